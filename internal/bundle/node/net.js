// node:net for fount: TCP client sockets over the host's net import, so
// through the host's egress policy (loopback and private addresses refused
// unless the server allows them, checked on the address actually dialled),
// bounded per call in count, bytes and time. A socket lives within the
// call that opened it: the host closes it when the call ends, and a socket
// kept from an earlier call fails as a reset one. There is no server.
import { Duplex } from "stream";
import { Buffer } from "buffer";

const host = globalThis.process[Symbol.for("fount.net")];

const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
export const isIPv4 = (s) => v4.test(String(s));
export function isIPv6(s) {
  s = String(s);
  if (!/^[0-9A-Fa-f:.]+$/.test(s) || !s.includes(":")) return false;
  try {
    return new URL("http://[" + s + "]/").hostname.length > 2;
  } catch {
    return false;
  }
}
export const isIP = (s) => (isIPv4(s) ? 4 : isIPv6(s) ? 6 : 0);

// ERRNOS are the negative errnos Node gives these codes on Linux.
const ERRNOS = { ENOTFOUND: -3008, EAI_AGAIN: -3001, ETIMEDOUT: -110, ECONNREFUSED: -111, ECONNRESET: -104,
  EHOSTUNREACH: -113, ENETUNREACH: -101, EACCES: -13, EPIPE: -32, EMFILE: -24, ENOBUFS: -105, EBADF: -9, ENOTCONN: -107 };

// TLS_MESSAGES are OpenSSL's words for the certificate errors, which Node
// gives with their code alone (no syscall, no address).
const TLS_MESSAGES = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "unable to verify the first certificate",
  CERT_HAS_EXPIRED: "certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "self-signed certificate in certificate chain",
};

// netError makes the host's error into Node's: code, errno, syscall, and
// the address in the message, with the host's words on why after it.
export function netError(e, hostname, port) {
  const code = String(e.code || "EIO");
  if (TLS_MESSAGES[code] !== undefined || code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    const err = new Error(TLS_MESSAGES[code] || "Hostname/IP does not match certificate's altnames: " + String(e.message || ""));
    err.code = code;
    if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
      err.reason = String(e.message || "");
      err.host = hostname;
    }
    return err;
  }
  const syscall = e.syscall || "connect";
  const where = syscall === "getaddrinfo" || syscall.startsWith("query") ? hostname : port ? hostname + ":" + port : "";
  const err = new Error(syscall + " " + code + (where ? " " + where : "") + (e.message ? " (" + e.message + ")" : ""));
  err.code = code;
  if (ERRNOS[code] !== undefined) err.errno = ERRNOS[code];
  err.syscall = syscall;
  if (syscall === "getaddrinfo" || syscall.startsWith("query")) err.hostname = hostname;
  else if (port) {
    err.address = hostname;
    err.port = port;
  }
  return err;
}

// sockets are this call's open sockets, by the host's id.
const sockets = new Map();
let listening = false;
function onHostEvents(events) {
  for (let i = 0; i < events.length; i++) {
    const s = sockets.get(events[i].id);
    if (s !== undefined && s._generation === host.generation()) s._onHostEvent(events[i]);
  }
}

function call(req) {
  if (!listening) {
    host.listen(onHostEvents);
    listening = true;
  }
  return host.call(req);
}

function staleError() {
  const err = new Error("the socket was closed when the call that opened it ended: fount closes a call's sockets at its end");
  err.code = "ECONNRESET";
  err.errno = ERRNOS.ECONNRESET;
  err.syscall = "write";
  return err;
}

function toBase64(chunk, encoding) {
  return (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding)).toString("base64");
}

// normalizeArgs reads connect's (port, host, cb), (options, cb) or
// (path, cb) arguments into [options, cb].
export function normalizeArgs(args) {
  let options = {};
  const a0 = args[0];
  if (a0 !== null && typeof a0 === "object") options = Object.assign({}, a0);
  else if (typeof a0 === "string" && !/^\d+$/.test(a0)) options.path = a0;
  else {
    options.port = a0;
    if (typeof args[1] === "string") options.host = args[1];
  }
  const cb = args[args.length - 1];
  return [options, typeof cb === "function" ? cb : undefined];
}

export class Socket extends Duplex {
  constructor(options = {}) {
    super({ allowHalfOpen: Boolean(options.allowHalfOpen), emitClose: true, autoDestroy: true, decodeStrings: true });
    this._id = 0;
    this._generation = 0;
    this._waiting = null; // a write held until the socket is connected (or secure)
    this._ready = false; // connected, and secure if TLS was asked for
    this._timeoutMs = 0;
    this._timer = null;
    this._host = undefined;
    this._bytesWritten = 0;
    this.bytesRead = 0;
    this.connecting = false;
    this.remoteAddress = undefined;
    this.remotePort = undefined;
    this.remoteFamily = undefined;
    this._local = undefined;
  }

  // The local address is the open socket's, as in Node, where it goes
  // with the handle; the remote one stays known after the close.
  get localAddress() {
    return this._local && !this.destroyed ? this._local.address : undefined;
  }
  get localPort() {
    return this._local && !this.destroyed ? this._local.port : undefined;
  }
  get localFamily() {
    return this._local && !this.destroyed ? "IPv" + this._local.family : undefined;
  }

  get pending() {
    return !this._ready;
  }
  get bytesWritten() {
    return this._bytesWritten;
  }
  get readyState() {
    if (this.connecting) return "opening";
    if (this.destroyed || !this._id) return "closed";
    if (this.readable && this.writable) return "open";
    return this.readable ? "readOnly" : "writeOnly";
  }

  connect(...args) {
    const [options, cb] = normalizeArgs(args);
    if (cb) this.once(this._tlsOptions ? "secureConnect" : "connect", cb);
    if (options.path !== undefined) {
      process.nextTick(() => this.destroy(netError({ code: "EACCES", syscall: "connect", message: "fount components cannot use local sockets" }, String(options.path))));
      return this;
    }
    const port = Number(options.port);
    const hostname = options.host === undefined || options.host === null || options.host === "" ? "localhost" : String(options.host);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      const err = new RangeError('Port should be > 0 and < 65536. Received ' + String(options.port) + ".");
      err.code = "ERR_SOCKET_BAD_PORT";
      throw err;
    }
    if (options.timeout) this.setTimeout(options.timeout);
    this._host = hostname;
    this.connecting = true;
    const req = { op: "connect", host: hostname, port };
    if (this._tlsOptions) req.tls = this._tlsOptions;
    let reply;
    try {
      reply = call(req);
    } catch (e) {
      process.nextTick(() => this.destroy(netError({ code: "EACCES", syscall: "connect", message: e.message }, hostname, port)));
      return this;
    }
    if (reply.error) {
      process.nextTick(() => this.destroy(netError(reply.error, hostname, port)));
      return this;
    }
    this._adoptId(reply.id);
    this._port = port;
    return this;
  }

  _adoptId(id) {
    this._id = id;
    this._generation = host.generation();
    sockets.set(id, this);
    host.hold(1);
  }

  // _onHostEvent takes one of the host's events for this socket.
  _onHostEvent(e) {
    switch (e.type) {
      case "connect":
        this.connecting = false;
        if (e.local) this._local = e.local;
        if (e.remote) {
          this.remoteAddress = e.remote.address;
          this.remotePort = e.remote.port;
          this.remoteFamily = "IPv" + e.remote.family;
        }
        this._touch();
        this.emit("connect");
        if (!this._tlsOptions) this._becomeReady();
        break;
      case "secure":
        this._onSecure(e.tls || {});
        break;
      case "data": {
        const b = Buffer.from(e.data || "", "base64");
        this.bytesRead += b.length;
        this._touch();
        this.push(b);
        break;
      }
      case "end":
        this.push(null);
        break;
      case "error":
        this.destroy(netError(e.error || {}, this._host, this._tlsUpgrade ? 0 : this._port));
        break;
    }
  }

  _onSecure() {}

  _becomeReady() {
    this._ready = true;
    this.emit("ready");
    const w = this._waiting;
    this._waiting = null;
    if (w) w();
  }

  _write(chunk, encoding, cb) {
    if (this._generation !== host.generation() && this._id) return cb(staleError());
    if (!this._ready) {
      this._waiting = () => this._write(chunk, encoding, cb);
      return;
    }
    let reply;
    try {
      reply = call({ op: "write", id: this._id, data: toBase64(chunk, encoding) });
    } catch (e) {
      return cb(e);
    }
    if (reply.error) return cb(netError(reply.error, this._host, this._port));
    this._bytesWritten += chunk.length;
    this._touch();
    cb();
  }

  _final(cb) {
    if (!this._ready) {
      this._waiting = () => this._final(cb);
      return;
    }
    if (this._generation !== host.generation()) return cb();
    const reply = call({ op: "end", id: this._id });
    cb(reply.error ? netError(reply.error, this._host, this._port) : undefined);
  }

  _read() {}

  _destroy(err, cb) {
    this.connecting = false;
    this._release();
    if (this._timer) clearTimeout(this._timer);
    this._timer = null;
    cb(err);
  }

  // _release closes the host's socket and forgets it.
  _release() {
    if (!this._id) return;
    const id = this._id;
    this._id = 0;
    if (this._generation !== host.generation()) return;
    sockets.delete(id);
    host.hold(-1);
    try {
      call({ op: "close", id });
    } catch {
      // the call is ending; the host closes it anyway
    }
  }

  // _handOver gives this socket's host id to another socket object (TLS
  // started on it): this one keeps no hold on the host's socket.
  _handOver(to) {
    const id = this._id;
    this._id = 0;
    sockets.delete(id);
    host.hold(-1);
    to._adoptId(id);
  }

  setTimeout(ms, cb) {
    this._timeoutMs = Number(ms) || 0;
    if (cb) {
      if (this._timeoutMs === 0) this.removeListener("timeout", cb);
      else this.once("timeout", cb);
    }
    this._touch();
    return this;
  }
  // _touch restarts the idle timer of setTimeout.
  _touch() {
    if (this._timer) clearTimeout(this._timer);
    this._timer = null;
    if (this._timeoutMs > 0 && !this.destroyed) this._timer = setTimeout(() => this.emit("timeout"), this._timeoutMs);
  }

  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
  address() {
    return this.localAddress === undefined ? {} : { address: this.localAddress, family: this.localFamily, port: this.localPort };
  }
}
export const Stream = Socket;

export function connect(...args) {
  const [options, cb] = normalizeArgs(args);
  const s = new Socket(options);
  return s.connect(options, cb);
}
export const createConnection = connect;

export function createServer() {
  const e = new Error("fount components cannot listen: a source's HTTP endpoint is its way in");
  e.code = "EACCES";
  throw e;
}
export const Server = createServer;

// BlockList and SocketAddress are rarely used; BlockList is a minimal one.
export class BlockList {
  constructor() {
    this.rules = [];
  }
  addAddress(address) {
    this.rules.push(String(address));
  }
  check(address) {
    return this.rules.includes(String(address));
  }
}

export const getDefaultAutoSelectFamily = () => true;
export const setDefaultAutoSelectFamily = () => {};

export default { isIP, isIPv4, isIPv6, Socket, Stream, connect, createConnection, createServer, Server, BlockList,
  getDefaultAutoSelectFamily, setDefaultAutoSelectFamily };
