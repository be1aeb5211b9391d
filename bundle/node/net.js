// node:net for fount: the address helpers, and sockets that cannot
// connect. Components reach the network through fetch, http and https
// only (the egress policy); libraries that load net for proxies or raw
// sockets load, and fail only if they open one.
import { EventEmitter } from "events";

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

function noSockets() {
  const e = new Error("fount components cannot open sockets: use fetch, http or https, which go through the egress policy");
  e.code = "EACCES";
  return e;
}

export class Socket extends EventEmitter {
  connect() {
    throw noSockets();
  }
  setTimeout() {
    return this;
  }
  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
  destroy() {
    return this;
  }
  end() {
    return this;
  }
}
export const Stream = Socket;
export function connect() {
  throw noSockets();
}
export const createConnection = connect;
export function createServer() {
  throw noSockets();
}
export default { isIP, isIPv4, isIPv6, Socket, Stream, connect, createConnection, createServer };
