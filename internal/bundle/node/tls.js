// node:tls for fount: TLS client sockets over node:net's, the handshake
// and the record layer done by the host (Go's crypto/tls), which verifies
// the server's certificate against the system's roots, or the ca option,
// and the server name, as fetch does; rejectUnauthorized: false lets a
// component accept what it does not verify, on its own connection only.
// tls.connect({socket}) starts TLS on a connected socket (STARTTLS,
// PostgreSQL's SSLRequest). There is no server.
import net from "net";
import { Buffer } from "buffer";

function pem(v) {
  return Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : String(v);
}

// hostOptions are the host's TLS options for Node's.
function hostOptions(options, hostname) {
  const o = {};
  const servername = options.servername !== undefined ? options.servername : net.isIP(hostname) ? "" : hostname;
  if (servername) o.servername = String(servername);
  if (options.ca !== undefined && options.ca !== null) o.ca = (Array.isArray(options.ca) ? options.ca : [options.ca]).map(pem);
  if (options.rejectUnauthorized === false) o.insecure = true;
  if (Array.isArray(options.ALPNProtocols)) o.alpn = options.ALPNProtocols.map((p) => (typeof p === "string" ? p : Buffer.from(p).toString()));
  return o;
}

// JSStreamSocket stands for Node's wrap of a JavaScript stream under a
// TLSSocket, which http2-wrapper takes the constructor of at load
// (through _handle._parentWrap); fount's TLS runs on the host's sockets,
// so such a wrap never carries data.
class JSStreamSocket extends net.Socket {
  constructor(stream) {
    super();
    this.stream = stream;
  }
}

export class TLSSocket extends net.Socket {
  constructor(socket, options = {}) {
    super(options);
    if (socket && !(socket instanceof net.Socket)) this._handle = { _parentWrap: new JSStreamSocket(socket) };
    this.encrypted = true;
    this.authorized = false;
    this.authorizationError = null;
    this.alpnProtocol = false;
    this._protocol = null;
    this._rejectUnauthorized = options.rejectUnauthorized !== false;
    this._tlsOptions = hostOptions(options, options.host || options.servername || "localhost");
    this.servername = this._tlsOptions.servername || undefined;
  }
  _onSecure(info) {
    this.authorized = Boolean(info.authorized);
    this.authorizationError = info.authorization_error || null;
    this.alpnProtocol = info.alpn || false;
    this._protocol = info.protocol || null;
    this._becomeReady();
    this.emit("secureConnect");
    this.emit("secure");
  }
  getProtocol() {
    return this.destroyed ? null : this._protocol;
  }
  getPeerCertificate() {
    return {};
  }
  getCipher() {
    return this._protocol ? { name: "", standardName: "", version: this._protocol } : null;
  }
  getSession() {
    return undefined;
  }
  isSessionReused() {
    return false;
  }
  setServername(name) {
    this.servername = String(name);
    this._tlsOptions.servername = this.servername;
  }
}

// upgrade starts TLS on socket, a net.Socket this call connected, and
// returns the TLS socket that now owns the connection.
function upgrade(options, cb) {
  const raw = options.socket;
  const hostname = options.host || options.servername || raw._host || "localhost";
  const t = new TLSSocket(null, Object.assign({}, options, { host: hostname }));
  if (cb) t.once("secureConnect", cb);
  t._host = hostname;
  t._port = raw._port;
  t._tlsUpgrade = true;
  t.remoteAddress = raw.remoteAddress;
  t.remotePort = raw.remotePort;
  t.remoteFamily = raw.remoteFamily;
  t._local = raw._local;
  if (!raw._id || raw.destroyed) {
    process.nextTick(() => t.destroy(net.netError({ code: "ENOTCONN", syscall: "connect", message: "the socket is not connected" }, hostname, 0)));
    return t;
  }
  raw._handOver(t);
  // As in Node, the two close together: the TLS socket owns the
  // connection, and code that listened on the plain one hears it end.
  t.once("close", () => raw.destroy());
  raw.once("close", () => t.destroy());
  const reply = globalThis.process[Symbol.for("fount.net")].call({ op: "tls", id: t._id, tls: t._tlsOptions });
  if (reply.error) process.nextTick(() => t.destroy(net.netError(reply.error, hostname, 0)));
  return t;
}

export function connect(...args) {
  let options = {};
  let cb;
  for (const a of args) {
    if (typeof a === "function") cb = a;
    else if (a !== null && typeof a === "object") options = Object.assign({}, options, a);
    else if (typeof a === "number" || /^\d+$/.test(String(a))) options.port = Number(a);
    else if (typeof a === "string") options.host = a;
  }
  if (options.socket) return upgrade(options, cb);
  // An unverified server fails the host's handshake, with Node's code.
  return new TLSSocket(null, options).connect(options, cb);
}

export const createServer = () => net.createServer();
export const createSecureContext = (options) => ({ context: {}, options });
export const checkServerIdentity = () => undefined;
export const getCiphers = () => ["tls_aes_128_gcm_sha256", "tls_aes_256_gcm_sha384", "tls_chacha20_poly1305_sha256",
  "ecdhe-rsa-aes128-gcm-sha256", "ecdhe-ecdsa-aes128-gcm-sha256", "ecdhe-rsa-aes256-gcm-sha384", "ecdhe-ecdsa-aes256-gcm-sha384"];
export const DEFAULT_MIN_VERSION = "TLSv1.2";
export const DEFAULT_MAX_VERSION = "TLSv1.3";
export const DEFAULT_ECDH_CURVE = "auto";
export const rootCertificates = [];
export default { TLSSocket, connect, createServer, createSecureContext, checkServerIdentity, getCiphers,
  DEFAULT_MIN_VERSION, DEFAULT_MAX_VERSION, DEFAULT_ECDH_CURVE, rootCertificates };
