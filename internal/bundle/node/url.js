// node:url for fount: the WHATWG URL (the global), and the legacy
// parse, format and resolve on top of it. url.parse of a URL the WHATWG
// parser refuses falls back to a plain split, as Node's legacy parser is
// lenient.
import punycode from "./vendor/punycode-2.3.1/punycode.js";

export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;

export function parse(input, parseQuery) {
  const s = String(input);
  let u = null;
  try {
    u = new URL(s);
  } catch {}
  const out = { protocol: null, slashes: null, auth: null, host: null, port: null, hostname: null, hash: null,
    search: null, query: parseQuery ? {} : null, pathname: null, path: null, href: s };
  if (u) {
    Object.assign(out, {
      protocol: u.protocol, slashes: /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? true : null,
      auth: u.username ? decodeURIComponent(u.username) + (u.password ? ":" + decodeURIComponent(u.password) : "") : null,
      host: u.host || null, port: u.port || null, hostname: u.hostname || null, hash: u.hash || null,
      search: u.search || null, pathname: u.pathname || null, href: u.href,
    });
  } else {
    const m = /^([^?#]*)(\?[^#]*)?(#.*)?$/.exec(s);
    Object.assign(out, { pathname: m[1] || null, search: m[2] || null, hash: m[3] || null });
  }
  out.path = (out.pathname || "") + (out.search || "") || null;
  const q = out.search ? out.search.slice(1) : null;
  out.query = parseQuery ? Object.fromEntries(new URLSearchParams(q || "")) : q;
  return out;
}

export function format(obj) {
  if (obj instanceof URL) return obj.href;
  if (typeof obj === "string") return obj;
  let s = "";
  if (obj.protocol) s += obj.protocol.endsWith(":") ? obj.protocol : obj.protocol + ":";
  const host = obj.host || (obj.hostname ? obj.hostname + (obj.port ? ":" + obj.port : "") : "");
  if (obj.slashes || host || /^(https?|ftp|wss?|file):$/.test(s)) s += "//";
  if (obj.auth) s += encodeURIComponent(obj.auth).replace(/%3A/i, ":") + "@";
  s += host;
  s += obj.pathname || "";
  const search = obj.search || (obj.query && typeof obj.query === "object" && Object.keys(obj.query).length
    ? "?" + new URLSearchParams(obj.query).toString() : obj.query && typeof obj.query === "string" ? "?" + obj.query : "");
  s += search && !search.startsWith("?") ? "?" + search : search;
  if (obj.hash) s += obj.hash.startsWith("#") ? obj.hash : "#" + obj.hash;
  return s;
}

export function resolve(from, to) {
  return new URL(to, new URL(from, "resolve://")).href.replace(/^resolve:\/\/\/?/, from.startsWith("/") ? "/" : "");
}

export function fileURLToPath(u) {
  const url = typeof u === "string" ? new URL(u) : u;
  if (url.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  return decodeURIComponent(url.pathname);
}

export function pathToFileURL(p) {
  return new URL("file://" + encodeURI(String(p).startsWith("/") ? p : "/tmp/" + p));
}

// domainToASCII and domainToUnicode give a domain's punycode and back, or
// "" when it is not a valid domain, as Node's do.
export function domainToASCII(domain) {
  try {
    const d = punycode.toASCII(String(domain).toLowerCase());
    return /^[a-z0-9.-]*$/.test(d) ? d : "";
  } catch {
    return "";
  }
}
export function domainToUnicode(domain) {
  try {
    return punycode.toUnicode(String(domain).toLowerCase());
  } catch {
    return "";
  }
}
export default { URL, URLSearchParams, parse, format, resolve, fileURLToPath, pathToFileURL, domainToASCII, domainToUnicode };
