// node:dns for fount: lookups and DNS queries over the host's net import.
// lookup answers only with the addresses the egress policy lets a socket
// reach, so that DNS maps nothing of the operator's network; a name with
// none fails with EACCES. The resolver's servers are the host's own and
// cannot be changed.
import net from "net";

const host = globalThis.process[Symbol.for("fount.net")];

// ask runs a host op and gives its reply or Node's error, asynchronously
// as Node's DNS calls are.
function ask(req, hostname, syscall) {
  return new Promise((resolve, reject) => {
    let reply;
    try {
      reply = host.call(req);
    } catch (e) {
      reply = { error: { code: "EACCES", syscall, message: e.message } };
    }
    setImmediate(() => {
      if (reply.error) reject(net.netError(Object.assign({ syscall }, reply.error), hostname));
      else resolve(reply);
    });
  });
}

function familyOf(options) {
  if (typeof options === "number") return options;
  if (options && options.family !== undefined) return options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family) || 0;
  return 0;
}

function lookupAsync(hostname, options) {
  hostname = String(hostname || "localhost");
  const family = familyOf(options);
  const all = Boolean(options && typeof options === "object" && options.all);
  const literal = net.isIP(hostname);
  const req = { op: "lookup", host: hostname };
  if (family) req.family = family;
  if (literal) {
    // A literal address is its own answer, as in Node (the policy applies
    // when a socket dials it).
    const a = { address: hostname, family: literal };
    return Promise.resolve(all ? [a] : a);
  }
  return ask(req, hostname, "getaddrinfo").then((r) => (all ? r.addresses : r.addresses[0]));
}

export function lookup(hostname, options, cb) {
  if (typeof options === "function") {
    cb = options;
    options = {};
  }
  if (typeof cb !== "function") {
    const err = new TypeError('The "callback" argument must be of type function');
    err.code = "ERR_INVALID_ARG_TYPE";
    throw err;
  }
  const all = Boolean(options && typeof options === "object" && options.all);
  lookupAsync(hostname, options).then(
    (r) => (all ? cb(null, r) : cb(null, r.address, r.family)),
    (err) => cb(err),
  );
}

export function lookupService(address, port, cb) {
  const err = new Error("getnameinfo ENOTSUP " + address + " (fount answers no reverse lookups)");
  err.code = "ENOTSUP";
  err.syscall = "getnameinfo";
  setImmediate(() => cb(err));
}

function resolveAsync(hostname, rrtype = "A") {
  rrtype = String(rrtype).toUpperCase();
  const syscall = "query" + rrtype.charAt(0) + rrtype.slice(1).toLowerCase();
  return ask({ op: "resolve", host: String(hostname), rrtype }, String(hostname), syscall).then((r) => r.records || []);
}

function callbackOf(fn) {
  return (hostname, ...rest) => {
    const cb = rest.pop();
    fn(hostname, ...rest).then((v) => cb(null, v), (err) => cb(err));
  };
}

const resolvers = {
  resolve: resolveAsync,
  resolve4: (h) => resolveAsync(h, "A"),
  resolve6: (h) => resolveAsync(h, "AAAA"),
  resolveMx: (h) => resolveAsync(h, "MX"),
  resolveTxt: (h) => resolveAsync(h, "TXT"),
  resolveSrv: (h) => resolveAsync(h, "SRV"),
  resolveCname: (h) => resolveAsync(h, "CNAME"),
  resolveNs: (h) => resolveAsync(h, "NS"),
};

export const resolve = callbackOf(resolvers.resolve);
export const resolve4 = callbackOf(resolvers.resolve4);
export const resolve6 = callbackOf(resolvers.resolve6);
export const resolveMx = callbackOf(resolvers.resolveMx);
export const resolveTxt = callbackOf(resolvers.resolveTxt);
export const resolveSrv = callbackOf(resolvers.resolveSrv);
export const resolveCname = callbackOf(resolvers.resolveCname);
export const resolveNs = callbackOf(resolvers.resolveNs);

export const getServers = () => [];
export const setServers = () => {};
export const setDefaultResultOrder = () => {};
export const getDefaultResultOrder = () => "verbatim";

export class Resolver {
  constructor() {
    Object.assign(this, { resolve, resolve4, resolve6, resolveMx, resolveTxt, resolveSrv, resolveCname, resolveNs, getServers, setServers });
  }
  cancel() {}
}

export const promises = Object.assign({ lookup: lookupAsync, lookupService: (a, p) => new Promise((res, rej) => lookupService(a, p, (e, h, s) => (e ? rej(e) : res({ hostname: h, service: s })))),
  getServers, setServers, setDefaultResultOrder, getDefaultResultOrder }, resolvers);
promises.Resolver = class {
  constructor() {
    Object.assign(this, resolvers, { getServers, setServers });
  }
  cancel() {}
};

export const ADDRCONFIG = 1024, V4MAPPED = 2048, ALL = 256;
export const NODATA = "ENODATA", FORMERR = "EFORMERR", SERVFAIL = "ESERVFAIL", NOTFOUND = "ENOTFOUND", NOTIMP = "ENOTIMP",
  REFUSED = "EREFUSED", BADQUERY = "EBADQUERY", BADNAME = "EBADNAME", TIMEOUT = "ETIMEOUT", CONNREFUSED = "ECONNREFUSED",
  CANCELLED = "ECANCELLED";

export default { lookup, lookupService, resolve, resolve4, resolve6, resolveMx, resolveTxt, resolveSrv, resolveCname, resolveNs,
  getServers, setServers, setDefaultResultOrder, getDefaultResultOrder, Resolver, promises, ADDRCONFIG, V4MAPPED, ALL,
  NODATA, FORMERR, SERVFAIL, NOTFOUND, NOTIMP, REFUSED, BADQUERY, BADNAME, TIMEOUT, CONNREFUSED, CANCELLED };
