// node:tty for fount: nothing is a terminal.
import net from "net";

export const isatty = () => false;
export class ReadStream extends net.Socket {}
export class WriteStream extends net.Socket {}
export default { isatty, ReadStream, WriteStream };
