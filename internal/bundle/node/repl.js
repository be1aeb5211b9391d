// node:repl for fount: a component has no terminal.
import { unavailable } from "./unavailable.js";

export const start = unavailable("repl", "fount components have no terminal")("start");
export default { start };
