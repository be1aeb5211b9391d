// node:http for fount: client requests over the host's fetch import, so through the host's
// egress policy (loopback and private addresses refused unless the server
// allows them, every redirect re-checked, time and size capped). The
// request body is collected and sent whole; the response arrives whole
// and is streamed out of an IncomingMessage. Binary bodies cross the
// host boundary as base64. There is no server.
import { Readable, Writable } from "stream";
import { EventEmitter } from "events";
import { Buffer } from "buffer";

// hostFetch is the prelude's: the host's fetch import, as Node's client
// errors shape its failures.
const hostFetch = globalThis.process[Symbol.for("fount.fetch")];

export const METHODS = ["ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "HEAD", "LINK", "LOCK", "M-SEARCH",
  "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MOVE", "NOTIFY", "OPTIONS", "PATCH", "POST", "PROPFIND", "PROPPATCH",
  "PURGE", "PUT", "REBIND", "REPORT", "SEARCH", "SOURCE", "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE"];
export const STATUS_CODES = { 100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
  204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
  307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
  404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone", 413: "Payload Too Large", 415: "Unsupported Media Type",
  422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented",
  502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" };

export class Agent {
  constructor(options) {
    this.options = Object.assign({}, options);
    this.keepAlive = Boolean(this.options.keepAlive);
  }
  destroy() {}
}
export const globalAgent = new Agent();

export class IncomingMessage extends Readable {
  #body;
  constructor(status, headers, body) {
    super();
    this.statusCode = status;
    this.statusMessage = STATUS_CODES[status] || "";
    this.httpVersion = "1.1";
    this.httpVersionMajor = 1;
    this.httpVersionMinor = 1;
    this.headers = headers;
    this.rawHeaders = Object.entries(headers).flat();
    this.trailers = {};
    this.complete = false;
    this.#body = body;
  }
  _read() {
    if (this.#body === null) return;
    const b = this.#body;
    this.#body = null;
    if (b.length > 0) this.push(b);
    this.complete = true;
    this.push(null);
  }
  setTimeout(ms, cb) {
    if (cb) this.once("timeout", cb);
    return this;
  }
}

function requestURL(defaultProtocol, input, options) {
  let opts = {};
  let url = null;
  if (typeof input === "string" || input instanceof URL) {
    url = new URL(String(input));
    opts = Object.assign({}, options);
  } else opts = Object.assign({}, input);
  const protocol = opts.protocol || (url ? url.protocol : defaultProtocol);
  const host = opts.hostname || (opts.host ? String(opts.host).replace(/:\d+$/, "") : url ? url.hostname : "localhost");
  const hostPort = opts.host ? /:(\d+)$/.exec(String(opts.host)) : null;
  const port = opts.port || (url ? url.port : "") || (hostPort ? hostPort[1] : "");
  const path = opts.path || (url ? url.pathname + url.search : "/");
  const target = new URL(protocol + "//" + (host.includes(":") && !host.startsWith("[") ? "[" + host + "]" : host) + (port ? ":" + port : "") + path);
  const auth = opts.auth || (url && url.username ? decodeURIComponent(url.username) + ":" + decodeURIComponent(url.password) : "");
  return { url: target, opts, auth };
}

// RequestSocket stands for the connection of a request, which is the
// host's: already connected, it only answers what clients ask of one.
class RequestSocket extends EventEmitter {
  constructor(encrypted) {
    super();
    this.connecting = false;
    this.writable = true;
    this.readable = true;
    this.destroyed = false;
    this.encrypted = encrypted;
    this.remoteAddress = undefined;
    this.remotePort = undefined;
  }
  setTimeout(ms, cb) {
    if (cb) this.once("timeout", cb);
    return this;
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
    return {};
  }
  destroy() {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.emit("close", false);
    return this;
  }
  end() {
    return this;
  }
}

export class ClientRequest extends Writable {
  #url;
  #headers = {};
  #chunks = [];
  #timer = null;
  #signal;
  constructor(defaultProtocol, input, options, cb) {
    super();
    if (typeof options === "function") [cb, options] = [options, undefined];
    const { url, opts, auth } = requestURL(defaultProtocol, input, options);
    this.#url = url;
    this.method = String(opts.method || "GET").toUpperCase();
    this.path = url.pathname + url.search;
    this.host = url.hostname;
    this.protocol = url.protocol;
    this.aborted = false;
    this.reusedSocket = false;
    for (const [k, v] of Object.entries(opts.headers || {})) this.setHeader(k, v);
    if (auth && !this.hasHeader("authorization")) this.setHeader("authorization", "Basic " + Buffer.from(auth).toString("base64"));
    this.#signal = opts.signal;
    if (cb) this.once("response", cb);
    if (opts.timeout) this.setTimeout(opts.timeout);
    // As in Node, the request has a socket just after it is made, and
    // says so: clients (stripe, got's timings) wait for it to write.
    this.socket = this.connection = new RequestSocket(url.protocol === "https:");
    process.nextTick(() => this.emit("socket", this.socket));
  }
  setHeader(name, value) {
    this.#headers[String(name).toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    return this;
  }
  getHeader(name) {
    return this.#headers[String(name).toLowerCase()];
  }
  getHeaders() {
    return Object.assign({}, this.#headers);
  }
  hasHeader(name) {
    return String(name).toLowerCase() in this.#headers;
  }
  removeHeader(name) {
    delete this.#headers[String(name).toLowerCase()];
  }
  flushHeaders() {}
  setNoDelay() {}
  setSocketKeepAlive() {}
  setTimeout(ms, cb) {
    if (cb) this.once("timeout", cb);
    clearTimeout(this.#timer);
    if (ms > 0) this.#timer = setTimeout(() => this.emit("timeout"), ms);
    return this;
  }
  abort() {
    this.aborted = true;
    this.destroy();
  }
  _write(chunk, encoding, cb) {
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    cb();
  }
  _final(cb) {
    this.#send().then(
      () => cb(),
      (err) => {
        cb();
        this.emit("error", err);
      },
    );
  }
  async #send() {
    if (this.#signal && this.#signal.aborted) throw Object.assign(new Error("The operation was aborted"), { name: "AbortError", code: "ABORT_ERR" });
    const body = Buffer.concat(this.#chunks);
    // As Node's http does, a body goes with any method, GET included
    // (axios sends one), so the host's fetch is called as it is, not
    // through the fetch global, which refuses one on GET.
    const msg = { url: this.#url.href, method: this.method, headers: this.#headers };
    if (body.length > 0) {
      const text = body.toString("utf8");
      if (Buffer.from(text, "utf8").equals(body)) msg.body = text;
      else {
        msg.body = body.toString("base64"); // bytes cross as base64: JSON carries text
        msg.body_encoding = "base64";
      }
    }
    let res;
    try {
      await null; // as a socket would, answer after the caller has set its handlers up
      res = hostFetch(msg);
    } catch (e) {
      if (e && e.code) throw e; // the network's error, shaped as Node's
      const err = new Error(e && e.message);
      err.code = /not allowed/.test(err.message) ? "EACCES" : /deadline|timed out/.test(err.message) ? "ETIMEDOUT" : "ECONNREFUSED";
      throw err;
    } finally {
      clearTimeout(this.#timer);
    }
    if (this.aborted) return;
    const msg2 = new IncomingMessage(res.status, Object.assign({}, res.headers), Buffer.from(res.body, res.body_encoding === "base64" ? "base64" : "utf8"));
    this.res = msg2;
    this.emit("response", msg2);
  }
}

export function request(input, options, cb) {
  const req = new ClientRequest("http:", input, options, cb);
  return req;
}

export function get(input, options, cb) {
  const req = request(input, options, cb);
  req.end();
  return req;
}

export function createServer() {
  throw noServer();
}

// The server's classes exist, as frameworks build on their prototypes at
// load (express's response is Object.create(ServerResponse.prototype)),
// but a component never listens: making one throws.
function noServer() {
  const e = new Error("fount components cannot listen: use an HTTP interface prop ($.interface.http) instead of an HTTP server");
  e.code = "ENOSYS";
  return e;
}
export class OutgoingMessage extends Writable {
  constructor() {
    super();
    this.headersSent = false;
    this.finished = false;
    this._headers = {};
  }
  setHeader(name, value) {
    this._headers[String(name).toLowerCase()] = value;
    return this;
  }
  getHeader(name) {
    return this._headers[String(name).toLowerCase()];
  }
  getHeaders() {
    return Object.assign(Object.create(null), this._headers);
  }
  getHeaderNames() {
    return Object.keys(this._headers);
  }
  hasHeader(name) {
    return String(name).toLowerCase() in this._headers;
  }
  removeHeader(name) {
    delete this._headers[String(name).toLowerCase()];
  }
}
export class ServerResponse extends OutgoingMessage {
  constructor() {
    super();
    throw noServer();
  }
}
export class Server extends EventEmitter {
  constructor() {
    super();
    throw noServer();
  }
}

export function validateHeaderName(name) {
  if (typeof name !== "string" || !/^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/.test(name)) {
    const e = new TypeError("Header name must be a valid HTTP token [\"" + name + "\"]");
    e.code = "ERR_INVALID_HTTP_TOKEN";
    throw e;
  }
}
export function validateHeaderValue(name, value) {
  if (value === undefined) {
    const e = new TypeError('Invalid value "undefined" for header "' + name + '"');
    e.code = "ERR_HTTP_INVALID_HEADER_VALUE";
    throw e;
  }
  if (/[^\t\x20-\x7e\x80-\xff]/.test(String(value))) {
    const e = new TypeError('Invalid character in header content ["' + name + '"]');
    e.code = "ERR_INVALID_CHAR";
    throw e;
  }
}

export const maxHeaderSize = 16384;
export default { METHODS, STATUS_CODES, Agent, globalAgent, IncomingMessage, ClientRequest, OutgoingMessage, ServerResponse, Server,
  request, get, createServer, validateHeaderName, validateHeaderValue, maxHeaderSize };
