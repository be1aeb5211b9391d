// node:tls for fount: loads, cannot connect (see net).
import net from "net";

export class TLSSocket extends net.Socket {}
export const connect = net.connect;
export const createServer = net.createServer;
export const createSecureContext = () => ({});
export const DEFAULT_MIN_VERSION = "TLSv1.2";
export const DEFAULT_MAX_VERSION = "TLSv1.3";
export const rootCertificates = [];
export default { TLSSocket, connect, createServer, createSecureContext, DEFAULT_MIN_VERSION, DEFAULT_MAX_VERSION, rootCertificates };
