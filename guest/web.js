// fount web globals: the WHATWG APIs Node has as globals and QuickJS does
// not (URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa,
// DOMException, Event, EventTarget, AbortController, AbortSignal,
// structuredClone, Blob, File, MessageChannel, MessagePort, MessageEvent,
// BroadcastChannel, Headers, Request, Response). Evaluated before the
// prelude, once per instance, so part of the snapshot.
//
// Hand-written rather than vendored: the polyfills that exist for these
// either lean on a DOM (url-polyfill's anchor element), or bring Unicode
// tables (whatwg-url's tr46) that would weigh on every instance's memory.
// What is left out is said where it is: internationalised host names,
// and encodings besides UTF-8, windows-1252 (ascii, latin1) and UTF-16LE.
(function () {
  "use strict";

  function define(name, value) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }

  // ---- DOMException ------------------------------------------------------
  const DOM_CODES = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12,
    InvalidCharacterError: 5, NetworkError: 19, AbortError: 20, TimeoutError: 23, DataCloneError: 25 };
  class DOMException extends Error {
    constructor(message = "", name = "Error") {
      super(message);
      Object.defineProperty(this, "name", { value: String(name), configurable: true, writable: true });
    }
    get code() {
      return DOM_CODES[this.name] || 0;
    }
  }
  define("DOMException", DOMException);

  // ---- UTF-8 -------------------------------------------------------------
  function utf8Encode(str) {
    str = String(str);
    const out = [];
    for (let i = 0; i < str.length; i++) {
      let c = str.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
        const d = str.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        } else c = 0xfffd;
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }

  // utf8Decode decodes bytes, replacing each maximal invalid sequence with
  // U+FFFD as the Encoding Standard does, or throwing when fatal.
  function utf8Decode(bytes, fatal) {
    let out = "";
    let chunk = [];
    const flush = () => {
      out += String.fromCharCode.apply(null, chunk);
      chunk = [];
    };
    const bad = () => {
      if (fatal) throw new TypeError("The encoded data was not valid for encoding utf-8");
      chunk.push(0xfffd);
    };
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i];
      let need = 0, cp = 0, lower = 0x80, upper = 0xbf;
      if (b < 0x80) {
        chunk.push(b);
        i++;
        if (chunk.length > 8192) flush();
        continue;
      } else if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; }
      else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 0xf; if (b === 0xe0) lower = 0xa0; if (b === 0xed) upper = 0x9f; }
      else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x7; if (b === 0xf0) lower = 0x90; if (b === 0xf4) upper = 0x8f; }
      else { bad(); i++; continue; }
      let j = 1;
      for (; j <= need; j++) {
        const c = bytes[i + j];
        if (c === undefined || c < lower || c > upper) break;
        lower = 0x80; upper = 0xbf;
        cp = (cp << 6) | (c & 63);
      }
      if (j <= need) { bad(); i += j; continue; }
      i += need + 1;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        chunk.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      } else chunk.push(cp);
      if (chunk.length > 8192) flush();
    }
    flush();
    return out;
  }

  function bytesOf(input) {
    if (input === undefined) return new Uint8Array(0);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeError("The data must be an ArrayBuffer or an ArrayBufferView");
  }

  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(input = "") {
      return utf8Encode(input);
    }
    encodeInto(src, dest) {
      const bytes = utf8Encode(src);
      let read = 0, written = 0;
      // Write whole characters only, counting UTF-16 units read.
      for (let i = 0; i < String(src).length; ) {
        const c = String(src).codePointAt(i);
        const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (written + n > dest.length) break;
        for (let k = 0; k < n; k++) dest[written + k] = bytes[written + k];
        written += n;
        const units = c >= 0x10000 ? 2 : 1;
        read += units;
        i += units;
      }
      return { read, written };
    }
  }

  const UTF8_LABELS = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"];
  // windows-1252, which WHATWG's "ascii" and "latin1" are, and UTF-16LE:
  // the other encodings libraries decode (pdfkit's ascii at load).
  const WINDOWS_1252_LABELS = ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
    "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"];
  const UTF16LE_LABELS = ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"];
  function encodingOf(label) {
    const l = String(label).trim().toLowerCase();
    if (UTF8_LABELS.includes(l)) return "utf-8";
    if (WINDOWS_1252_LABELS.includes(l)) return "windows-1252";
    if (UTF16LE_LABELS.includes(l)) return "utf-16le";
    throw new RangeError('The "' + label + '" encoding is not supported: fount decodes utf-8, windows-1252 (ascii, latin1) and utf-16le');
  }
  // decode1252 decodes each byte as the code point of its value, as
  // Node 20 does for these labels (ISO-8859-1's mapping, not WHATWG's
  // windows-1252 table for 0x80 to 0x9f).
  function decode1252(bytes) {
    let out = "";
    for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return out;
  }
  function decode16(bytes) {
    let out = "";
    const units = [];
    for (let i = 0; i + 1 < bytes.length; i += 2) {
      units.push(bytes[i] | (bytes[i + 1] << 8));
      if (units.length === 8192) {
        out += String.fromCharCode(...units);
        units.length = 0;
      }
    }
    out += String.fromCharCode(...units);
    return bytes.length % 2 ? out + "\ufffd" : out;
  }
  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    #pending = [];
    constructor(label = "utf-8", options = {}) {
      this.#encoding = encodingOf(label);
      this.#fatal = Boolean(options.fatal);
      this.#ignoreBOM = Boolean(options.ignoreBOM);
    }
    get encoding() {
      return this.#encoding;
    }
    get fatal() {
      return this.#fatal;
    }
    get ignoreBOM() {
      return this.#ignoreBOM;
    }
    decode(input, options = {}) {
      let bytes = input === undefined ? new Uint8Array(0) : bytesOf(input);
      if (this.#pending.length) bytes = Uint8Array.from([...this.#pending, ...bytes]);
      this.#pending = [];
      if (this.#encoding === "windows-1252") return decode1252(bytes);
      if (this.#encoding === "utf-16le") {
        if (options.stream && bytes.length % 2) {
          this.#pending = [bytes[bytes.length - 1]];
          bytes = bytes.subarray(0, bytes.length - 1);
        }
        let t = decode16(bytes);
        if (!this.#ignoreBOM && t.charCodeAt(0) === 0xfeff) t = t.slice(1);
        return t;
      }
      if (options.stream) {
        // Keep an incomplete sequence at the end for the next call.
        let k = bytes.length;
        for (let back = 1; back <= 3 && k - back >= 0; back++) {
          const b = bytes[k - back];
          if ((b & 0xc0) === 0x80) continue;
          const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
          if (len > back) {
            this.#pending = Array.from(bytes.subarray(k - back));
            bytes = bytes.subarray(0, k - back);
          }
          break;
        }
      }
      let s = utf8Decode(bytes, this.#fatal);
      if (!this.#ignoreBOM && s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      return s;
    }
  }
  define("TextEncoder", TextEncoder);
  define("TextDecoder", TextDecoder);

  // ---- base64 ------------------------------------------------------------
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  define("btoa", function btoa(data) {
    if (arguments.length === 0) throw new TypeError("btoa needs an argument");
    const s = String(data);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw new DOMException("Invalid character", "InvalidCharacterError");
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < s.length ? B64[n & 63] : "=");
    }
    return out;
  });
  define("atob", function atob(data) {
    if (arguments.length === 0) throw new TypeError("atob needs an argument");
    let s = String(data).replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    let out = "", bits = 0, acc = 0;
    for (const ch of s) {
      acc = (acc << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += String.fromCharCode((acc >> bits) & 255);
      }
    }
    return out;
  });

  // ---- percent-encoding --------------------------------------------------
  const HEX = "0123456789ABCDEF";
  function pctEncode(str, keep) {
    let out = "";
    for (const ch of String(str)) {
      const c = ch.codePointAt(0);
      if (c > 0x20 && c < 0x7f && !keep.has(ch)) out += ch;
      else for (const b of utf8Encode(ch)) out += "%" + HEX[b >> 4] + HEX[b & 15];
    }
    return out;
  }
  function pctDecodeBytes(str) {
    const bytes = [];
    const enc = utf8Encode(str);
    for (let i = 0; i < enc.length; i++) {
      const h = String.fromCharCode(enc[i + 1] || 0, enc[i + 2] || 0);
      if (enc[i] === 0x25 && /^[0-9A-Fa-f]{2}$/.test(h)) {
        bytes.push(parseInt(h, 16));
        i += 2;
      } else bytes.push(enc[i]);
    }
    return new Uint8Array(bytes);
  }
  const set = (s) => new Set(s.split(""));
  const FRAGMENT_SET = set(' "<>`');
  const QUERY_SET = set(' "#<>');
  const SPECIAL_QUERY_SET = set(" \"#<>'");
  const PATH_SET = set(' "#<>?`{}');
  const USERINFO_SET = set(' "#<>?`{}/:;=@[\\]^|');

  // ---- URLSearchParams ---------------------------------------------------
  function formEncode(s) {
    let out = "";
    for (const b of utf8Encode(s)) {
      const ch = String.fromCharCode(b);
      if (/[A-Za-z0-9*\-._]/.test(ch)) out += ch;
      else if (b === 0x20) out += "+";
      else out += "%" + HEX[b >> 4] + HEX[b & 15];
    }
    return out;
  }
  function formDecode(s) {
    return utf8Decode(pctDecodeBytes(s.replace(/\+/g, " ")), false);
  }
  function parseForm(query) {
    const list = [];
    for (const part of String(query).split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? "" : part.slice(eq + 1);
      list.push([formDecode(name), formDecode(value)]);
    }
    return list;
  }

  class URLSearchParams {
    #list = [];
    #url = null; // the URL whose query this is, kept in step
    constructor(init = "") {
      if (init instanceof URLSearchParams) this.#list = init.#list.map((p) => [p[0], p[1]]);
      else if (init !== null && typeof init === "object" && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError("Each query pair must be an iterable [name, value] tuple");
          this.#list.push([String(p[0]), String(p[1])]);
        }
      } else if (init !== null && typeof init === "object") {
        for (const k of Object.keys(init)) this.#list.push([k, String(init[k])]);
      } else {
        const s = String(init);
        this.#list = parseForm(s.startsWith("?") ? s.slice(1) : s);
      }
    }
    static _attach(params, url, query) {
      params.#url = url;
      params.#list = query === null ? [] : parseForm(query);
    }
    static _reset(params, query) {
      params.#list = query === null ? [] : parseForm(query);
    }
    #update() {
      if (this.#url) this.#url._setQueryFromParams(this.toString());
    }
    get size() {
      return this.#list.length;
    }
    append(name, value) {
      this.#list.push([String(name), String(value)]);
      this.#update();
    }
    delete(name, value) {
      name = String(name);
      this.#list = this.#list.filter((p) => p[0] !== name || (value !== undefined && p[1] !== String(value)));
      this.#update();
    }
    get(name) {
      const p = this.#list.find((p) => p[0] === String(name));
      return p ? p[1] : null;
    }
    getAll(name) {
      return this.#list.filter((p) => p[0] === String(name)).map((p) => p[1]);
    }
    has(name, value) {
      return this.#list.some((p) => p[0] === String(name) && (value === undefined || p[1] === String(value)));
    }
    set(name, value) {
      name = String(name);
      const i = this.#list.findIndex((p) => p[0] === name);
      if (i < 0) this.#list.push([name, String(value)]);
      else {
        this.#list[i][1] = String(value);
        this.#list = this.#list.filter((p, j) => j <= i || p[0] !== name);
      }
      this.#update();
    }
    sort() {
      const keyed = this.#list.map((p, i) => [p, i]);
      keyed.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
      this.#list = keyed.map((k) => k[0]);
      this.#update();
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.#list) fn.call(thisArg, v, k, this);
    }
    *entries() {
      for (const p of this.#list) yield [p[0], p[1]];
    }
    *keys() {
      for (const p of this.#list) yield p[0];
    }
    *values() {
      for (const p of this.#list) yield p[1];
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    toString() {
      return this.#list.map((p) => formEncode(p[0]) + "=" + formEncode(p[1])).join("&");
    }
    get [Symbol.toStringTag]() {
      return "URLSearchParams";
    }
  }
  define("URLSearchParams", URLSearchParams);

  // ---- URL ---------------------------------------------------------------
  const SPECIAL = { "ftp:": "21", "file:": "", "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };
  const isSpecial = (scheme) => Object.prototype.hasOwnProperty.call(SPECIAL, scheme);
  const FORBIDDEN_HOST = /[\u0000\t\n\r #/:<>?@[\\\]^|%]/;

  function invalid(input) {
    const e = new TypeError("Invalid URL");
    e.code = "ERR_INVALID_URL";
    e.input = input;
    return e;
  }

  function parseHost(host, special, input) {
    if (host.startsWith("[")) {
      if (!host.endsWith("]") || !/^\[[0-9A-Fa-f:.]+\]$/.test(host)) throw invalid(input);
      return host.toLowerCase();
    }
    if (!special) {
      if (/[\u0000\t\n\r #/:<>?@[\\\]^|]/.test(host)) throw invalid(input);
      return pctEncode(host, new Set());
    }
    const decoded = utf8Decode(pctDecodeBytes(host), false).toLowerCase();
    if (/[^\u0000-\u007f]/.test(decoded)) {
      throw new TypeError("Invalid URL: fount does not convert internationalised host names; give the punycode (xn--) form");
    }
    if (decoded === "" || FORBIDDEN_HOST.test(decoded.replace(/%/g, "")) || /[\u0000-\u001f\u007f]/.test(decoded)) throw invalid(input);
    return decoded;
  }

  function normalizePath(segments, special) {
    const out = [];
    for (const raw of segments) {
      const s = raw.toLowerCase();
      if (s === ".." || s === ".%2e" || s === "%2e." || s === "%2e%2e") out.pop();
      else if (s !== "." && s !== "%2e") out.push(pctEncode(raw, PATH_SET));
    }
    // A path ending in . or .. keeps its trailing slash.
    const last = segments[segments.length - 1];
    if (last !== undefined && /^(\.|%2e){1,2}$/i.test(last)) out.push("");
    return "/" + out.join("/");
  }

  // splitRest takes what follows the authority (or the whole input, for a
  // path-relative reference) apart into path, query and fragment.
  function splitRest(rest) {
    let fragment = null, query = null;
    const h = rest.indexOf("#");
    if (h >= 0) {
      fragment = rest.slice(h + 1);
      rest = rest.slice(0, h);
    }
    const q = rest.indexOf("?");
    if (q >= 0) {
      query = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
    return { path: rest, query, fragment };
  }

  function parseAuthority(rec, auth, input) {
    const at = auth.lastIndexOf("@");
    if (at >= 0) {
      const info = auth.slice(0, at);
      auth = auth.slice(at + 1);
      const colon = info.indexOf(":");
      rec.username = pctEncode(colon < 0 ? info : info.slice(0, colon), USERINFO_SET);
      rec.password = colon < 0 ? "" : pctEncode(info.slice(colon + 1), USERINFO_SET);
    }
    const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(auth);
    if (!m) throw invalid(input);
    const special = isSpecial(rec.scheme);
    if (m[1] === "" && special && rec.scheme !== "file:") throw invalid(input);
    rec.host = m[1] === "" ? "" : parseHost(m[1], special, input);
    rec.port = "";
    if (m[2] !== undefined && m[2] !== "") {
      if (!/^\d+$/.test(m[2]) || Number(m[2]) > 65535) throw invalid(input);
      const port = String(Number(m[2]));
      rec.port = SPECIAL[rec.scheme] === port ? "" : port;
    }
  }

  function finishRest(rec, rest, special) {
    const { path, query, fragment } = splitRest(rest);
    rec.query = query === null ? null : pctEncode(query, special ? SPECIAL_QUERY_SET : QUERY_SET);
    rec.fragment = fragment === null ? null : pctEncode(fragment, FRAGMENT_SET);
    return path;
  }

  function parseURL(input, base) {
    input = String(input).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "");
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(input);
    const rec = { scheme: "", username: "", password: "", host: null, port: "", path: "/", opaque: false, query: null, fragment: null };
    if (m && !(base && isSpecial(m[1].toLowerCase() + ":") && base.scheme === m[1].toLowerCase() + ":" && !/^[\\/]/.test(m[2]))) {
      rec.scheme = m[1].toLowerCase() + ":";
      let rest = m[2];
      const special = isSpecial(rec.scheme);
      if (rec.scheme === "file:") {
        // file: has a host only after two slashes, and it may be empty.
        rec.host = "";
        if (/^[\\/]{2}/.test(rest)) {
          rest = rest.slice(2);
          const end = rest.search(/[\\/?#]/);
          const host = end < 0 ? rest : rest.slice(0, end);
          rec.host = host === "" || host.toLowerCase() === "localhost" ? "" : parseHost(host, true, input);
          rest = end < 0 ? "" : rest.slice(end);
        }
        const path = finishRest(rec, rest, true);
        rec.path = normalizePath(path.replace(/^[\\/]/, "").split(/[\\/]/), true);
        return rec;
      }
      if (special) {
        rest = rest.replace(/^[\\/]*/, "");
        const end = rest.search(/[\\/?#]/);
        parseAuthority(rec, end < 0 ? rest : rest.slice(0, end), input);
        rest = end < 0 ? "" : rest.slice(end);
        const path = finishRest(rec, rest, true);
        rec.path = normalizePath(path.replace(/^[\\/]/, "").split(/[\\/]/), true);
        return rec;
      }
      if (rest.startsWith("//")) {
        rest = rest.slice(2);
        const end = rest.search(/[/?#]/);
        parseAuthority(rec, end < 0 ? rest : rest.slice(0, end), input);
        rest = end < 0 ? "" : rest.slice(end);
        const path = finishRest(rec, rest, false);
        rec.path = path === "" ? "" : normalizePath(path.slice(1).split("/"), false);
        return rec;
      }
      const path = finishRest(rec, rest, false);
      if (path.startsWith("/")) rec.path = normalizePath(path.slice(1).split("/"), false);
      else {
        rec.opaque = true;
        rec.path = pctEncode(path, new Set());
      }
      return rec;
    }
    if (!base) throw invalid(input);
    // A relative reference, resolved against base.
    const special = isSpecial(base.scheme);
    Object.assign(rec, { scheme: base.scheme, username: base.username, password: base.password, host: base.host, port: base.port });
    let rel = m && isSpecial(m[1].toLowerCase() + ":") ? m[2] : input;
    const slash = special ? /^[\\/]/ : /^\//;
    if (base.opaque) {
      if (!rel.startsWith("#")) throw invalid(input);
      Object.assign(rec, { path: base.path, opaque: true, query: base.query });
      rec.fragment = pctEncode(rel.slice(1), FRAGMENT_SET);
      return rec;
    }
    if (special ? /^[\\/]{2}/.test(rel) : rel.startsWith("//")) {
      return parseURL(base.scheme + rel, null);
    }
    if (slash.test(rel)) {
      const path = finishRest(rec, rel, special);
      rec.path = normalizePath(path.slice(1).split(special ? /[\\/]/ : "/"), special);
      return rec;
    }
    if (rel === "" || rel.startsWith("?") || rel.startsWith("#")) {
      rec.path = base.path;
      if (rel === "") {
        rec.query = base.query;
        return rec;
      }
      if (rel.startsWith("#")) {
        rec.query = base.query;
        rec.fragment = pctEncode(rel.slice(1), FRAGMENT_SET);
        return rec;
      }
      finishRest(rec, rel, special);
      return rec;
    }
    const path = finishRest(rec, rel, special);
    const dir = base.path.slice(0, base.path.lastIndexOf("/") + 1);
    const merged = (dir || "/") + path;
    rec.path = normalizePath(merged.slice(1).split(special ? /[\\/]/ : "/"), special);
    return rec;
  }

  class URL {
    #rec;
    #params;
    constructor(url, base) {
      if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
      let b = null;
      if (base !== undefined) b = (base instanceof URL ? base : new URL(String(base))).#rec;
      this.#rec = parseURL(url instanceof URL ? url.href : url, b);
      this.#params = new URLSearchParams();
      URLSearchParams._attach(this.#params, this, this.#rec.query);
    }
    static canParse(url, base) {
      try {
        new URL(url, base);
        return true;
      } catch {
        return false;
      }
    }
    _setQueryFromParams(q) {
      this.#rec.query = q === "" ? null : q;
    }
    get href() {
      const r = this.#rec;
      let s = r.scheme;
      if (r.host !== null) {
        s += "//";
        if (r.username || r.password) s += r.username + (r.password ? ":" + r.password : "") + "@";
        s += r.host + (r.port ? ":" + r.port : "");
      } else if (!r.opaque && r.path.startsWith("//")) s += "/.";
      s += r.path;
      if (r.query !== null) s += "?" + r.query;
      if (r.fragment !== null) s += "#" + r.fragment;
      return s;
    }
    set href(v) {
      this.#rec = parseURL(v, null);
      URLSearchParams._reset(this.#params, this.#rec.query);
    }
    get origin() {
      const r = this.#rec;
      if (r.scheme === "blob:") {
        try {
          return new URL(r.path).origin;
        } catch {
          return "null";
        }
      }
      if (!isSpecial(r.scheme) || r.scheme === "file:") return "null";
      return r.scheme + "//" + r.host + (r.port ? ":" + r.port : "");
    }
    get protocol() {
      return this.#rec.scheme;
    }
    set protocol(v) {
      const s = String(v).replace(/:.*$/s, "").toLowerCase() + ":";
      if (!/^[a-z][a-z0-9+.-]*:$/.test(s) || isSpecial(s) !== isSpecial(this.#rec.scheme)) return;
      this.#rec.scheme = s;
      if (SPECIAL[s] === this.#rec.port) this.#rec.port = "";
    }
    get username() {
      return this.#rec.username;
    }
    set username(v) {
      if (this.#rec.host) this.#rec.username = pctEncode(String(v), USERINFO_SET);
    }
    get password() {
      return this.#rec.password;
    }
    set password(v) {
      if (this.#rec.host) this.#rec.password = pctEncode(String(v), USERINFO_SET);
    }
    get host() {
      const r = this.#rec;
      return r.host === null ? "" : r.host + (r.port ? ":" + r.port : "");
    }
    set host(v) {
      if (this.#rec.opaque) return;
      try {
        const r = parseURL(this.#rec.scheme + "//" + String(v) + "/", null);
        this.#rec.host = r.host;
        this.#rec.port = r.port;
      } catch {}
    }
    get hostname() {
      return this.#rec.host === null ? "" : this.#rec.host;
    }
    set hostname(v) {
      if (this.#rec.opaque) return;
      try {
        this.#rec.host = parseURL(this.#rec.scheme + "//" + String(v).replace(/:.*$/s, "") + "/", null).host;
      } catch {}
    }
    get port() {
      return this.#rec.port;
    }
    set port(v) {
      const s = String(v);
      if (this.#rec.host === null || this.#rec.scheme === "file:") return;
      if (s === "") {
        this.#rec.port = "";
        return;
      }
      const m = /^\d+/.exec(s);
      if (!m || Number(m[0]) > 65535) return;
      const port = String(Number(m[0]));
      this.#rec.port = SPECIAL[this.#rec.scheme] === port ? "" : port;
    }
    get pathname() {
      return this.#rec.path;
    }
    set pathname(v) {
      if (this.#rec.opaque) return;
      const special = isSpecial(this.#rec.scheme);
      const s = String(v);
      const path = s.startsWith("/") || (special && s.startsWith("\\")) ? s.slice(1) : s;
      this.#rec.path = normalizePath(path.split(special ? /[\\/]/ : "/"), special);
    }
    get search() {
      const q = this.#rec.query;
      return q === null || q === "" ? "" : "?" + q;
    }
    set search(v) {
      let s = String(v);
      if (s.startsWith("?")) s = s.slice(1);
      this.#rec.query = s === "" ? null : pctEncode(s, isSpecial(this.#rec.scheme) ? SPECIAL_QUERY_SET : QUERY_SET);
      URLSearchParams._reset(this.#params, this.#rec.query);
    }
    get searchParams() {
      return this.#params;
    }
    get hash() {
      const f = this.#rec.fragment;
      return f === null || f === "" ? "" : "#" + f;
    }
    set hash(v) {
      let s = String(v);
      if (s.startsWith("#")) s = s.slice(1);
      this.#rec.fragment = s === "" ? null : pctEncode(s, FRAGMENT_SET);
    }
    toString() {
      return this.href;
    }
    toJSON() {
      return this.href;
    }
    get [Symbol.toStringTag]() {
      return "URL";
    }
  }
  define("URL", URL);

  // ---- events ------------------------------------------------------------
  class Event {
    #type;
    #target = null;
    #stop = false;
    #canceled = false;
    constructor(type, init = {}) {
      if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
      this.#type = String(type);
      this.bubbles = Boolean(init.bubbles);
      this.cancelable = Boolean(init.cancelable);
      this.composed = Boolean(init.composed);
      this.timeStamp = Date.now();
      this.isTrusted = false;
    }
    get type() {
      return this.#type;
    }
    get target() {
      return this.#target;
    }
    get currentTarget() {
      return this.#target;
    }
    get defaultPrevented() {
      return this.#canceled;
    }
    _dispatching(target) {
      this.#target = target;
    }
    _stopped() {
      return this.#stop;
    }
    preventDefault() {
      if (this.cancelable) this.#canceled = true;
    }
    stopPropagation() {}
    stopImmediatePropagation() {
      this.#stop = true;
    }
  }
  define("Event", Event);

  class EventTarget {
    #listeners = new Map();
    addEventListener(type, listener, options) {
      if (listener == null) return;
      const once = typeof options === "object" && options !== null && Boolean(options.once);
      const signal = typeof options === "object" && options !== null ? options.signal : undefined;
      if (signal && signal.aborted) return;
      const list = this.#listeners.get(String(type)) || [];
      if (list.some((l) => l.listener === listener)) return;
      const entry = { listener, once };
      list.push(entry);
      this.#listeners.set(String(type), list);
      if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, listener), { once: true });
    }
    removeEventListener(type, listener) {
      const list = this.#listeners.get(String(type));
      if (list) this.#listeners.set(String(type), list.filter((l) => l.listener !== listener));
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw new TypeError('The "event" argument must be an instance of Event');
      event._dispatching(this);
      for (const entry of (this.#listeners.get(event.type) || []).slice()) {
        if (entry.once) this.removeEventListener(event.type, entry.listener);
        const fn = typeof entry.listener === "function" ? entry.listener : entry.listener.handleEvent;
        try {
          fn.call(typeof entry.listener === "function" ? this : entry.listener, event);
        } catch (e) {
          Promise.reject(e); // reported, not thrown at the dispatcher, as in Node
        }
        if (event._stopped()) break;
      }
      const handler = this["on" + event.type];
      if (typeof handler === "function") handler.call(this, event);
      return !event.defaultPrevented;
    }
  }
  define("EventTarget", EventTarget);

  class AbortSignal extends EventTarget {
    #aborted = false;
    #reason = undefined;
    constructor(key) {
      super();
      if (key !== ABORT_KEY) throw new TypeError("Illegal constructor");
      this.onabort = null;
    }
    get aborted() {
      return this.#aborted;
    }
    get reason() {
      return this.#reason;
    }
    throwIfAborted() {
      if (this.#aborted) throw this.#reason;
    }
    _abort(reason) {
      if (this.#aborted) return;
      this.#aborted = true;
      this.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
      this.dispatchEvent(new Event("abort"));
    }
    static abort(reason) {
      const s = new AbortSignal(ABORT_KEY);
      s._abort(reason);
      return s;
    }
    static timeout(ms) {
      const s = new AbortSignal(ABORT_KEY);
      setTimeout(() => s._abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms);
      return s;
    }
    static any(signals) {
      const s = new AbortSignal(ABORT_KEY);
      for (const each of signals) {
        if (each.aborted) {
          s._abort(each.reason);
          break;
        }
        each.addEventListener("abort", () => s._abort(each.reason), { once: true });
      }
      return s;
    }
  }
  const ABORT_KEY = {};
  define("AbortSignal", AbortSignal);

  class AbortController {
    #signal = new AbortSignal(ABORT_KEY);
    get signal() {
      return this.#signal;
    }
    abort(reason) {
      this.#signal._abort(reason);
    }
  }
  define("AbortController", AbortController);

  // ---- structuredClone ---------------------------------------------------
  function cloneInto(v, seen) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) {
      if (typeof v === "symbol") throw new DOMException(String(v) + " could not be cloned.", "DataCloneError");
      return v;
    }
    if (typeof v === "function") throw new DOMException((v.name || "function") + " could not be cloned.", "DataCloneError");
    if (seen.has(v)) return seen.get(v);
    let out;
    if (v instanceof Date) out = new Date(v.getTime());
    else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
    else if (v instanceof ArrayBuffer) out = v.slice(0);
    else if (ArrayBuffer.isView(v)) {
      const buf = cloneInto(v.buffer, seen);
      out = v instanceof DataView ? new DataView(buf, v.byteOffset, v.byteLength) : new v.constructor(buf, v.byteOffset, v.length);
    } else if (v instanceof Map) {
      out = new Map();
      seen.set(v, out);
      for (const [k, val] of v) out.set(cloneInto(k, seen), cloneInto(val, seen));
      return out;
    } else if (v instanceof Set) {
      out = new Set();
      seen.set(v, out);
      for (const val of v) out.add(cloneInto(val, seen));
      return out;
    } else if (v instanceof Error) {
      out = new (globalThis[v.name] && globalThis[v.name].prototype instanceof Error ? globalThis[v.name] : Error)(v.message);
      if (v.stack !== undefined) out.stack = v.stack;
    } else if (v instanceof Boolean || v instanceof Number || v instanceof String) out = Object(v.valueOf());
    else if (Array.isArray(v)) {
      out = new Array(v.length);
      seen.set(v, out);
      for (const k of Object.keys(v)) out[k] = cloneInto(v[k], seen);
      return out;
    } else if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet) {
      throw new DOMException("#<" + v.constructor.name + "> could not be cloned.", "DataCloneError");
    } else {
      out = {};
      seen.set(v, out);
      for (const k of Object.keys(v)) out[k] = cloneInto(v[k], seen);
      return out;
    }
    seen.set(v, out);
    return out;
  }
  define("structuredClone", function structuredClone(value) {
    if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
    return cloneInto(value, new Map());
  });

  // ---- fetch's Headers, Request and Response -----------------------------
  class Headers {
    #map = new Map(); // lower-case name -> value
    constructor(init) {
      if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
      else if (init !== undefined && init !== null && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError("Header pairs must be [name, value]");
          this.append(p[0], p[1]);
        }
      } else if (init !== undefined && init !== null) for (const k of Object.keys(init)) this.append(k, init[k]);
    }
    static #name(n) {
      n = String(n);
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(n)) throw new TypeError("Header name must be a valid HTTP token [\"" + n + "\"]");
      return n.toLowerCase();
    }
    append(name, value) {
      const k = Headers.#name(name);
      const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
      this.#map.set(k, this.#map.has(k) ? this.#map.get(k) + ", " + v : v);
    }
    set(name, value) {
      this.#map.set(Headers.#name(name), String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ""));
    }
    get(name) {
      const v = this.#map.get(Headers.#name(name));
      return v === undefined ? null : v;
    }
    has(name) {
      return this.#map.has(Headers.#name(name));
    }
    delete(name) {
      this.#map.delete(Headers.#name(name));
    }
    getSetCookie() {
      const v = this.#map.get("set-cookie");
      return v === undefined ? [] : [v];
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
    }
    *entries() {
      for (const k of [...this.#map.keys()].sort()) yield [k, this.#map.get(k)];
    }
    *keys() {
      for (const [k] of this.entries()) yield k;
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  define("Headers", Headers);



  // ---- MessageChannel, MessagePort, BroadcastChannel -------------------
  // Node 20's globals, within the one realm a component has: a message is
  // a structured clone, delivered to the other port (or the other
  // channels of the name) as a task of its own, once the port is started
  // (by onmessage, or start()). Closed ports drop what they are sent.
  class MessageEvent extends Event {
    #data;
    constructor(type, init = {}) {
      super(type, init);
      this.#data = init.data;
    }
    get data() {
      return this.#data;
    }
  }
  define("MessageEvent", MessageEvent);
  const PORT_KEY = {};
  class MessagePort extends EventTarget {
    #peer = null;
    #queue = [];
    #started = false;
    #closed = false;
    #onmessage = null;
    constructor(key) {
      super();
      if (key !== PORT_KEY) throw new TypeError("Illegal constructor");
    }
    static _pair() {
      const a = new MessagePort(PORT_KEY), b = new MessagePort(PORT_KEY);
      a.#peer = b;
      b.#peer = a;
      return [a, b];
    }
    get onmessage() {
      return this.#onmessage;
    }
    set onmessage(fn) {
      this.#onmessage = fn;
      this.start();
    }
    postMessage(data) {
      const peer = this.#peer;
      if (this.#closed || peer === null) return;
      peer._receive(structuredClone(data));
    }
    _receive(data) {
      if (this.#closed) return;
      this.#queue.push(data);
      this.#deliver();
    }
    #deliver() {
      if (!this.#started) return;
      while (this.#queue.length) {
        const data = this.#queue.shift();
        setTimeout(() => {
          if (!this.#closed) this.dispatchEvent(new MessageEvent("message", { data }));
        }, 0);
      }
    }
    start() {
      this.#started = true;
      this.#deliver();
    }
    close() {
      this.#closed = true;
      if (this.#peer) this.#peer.#peer = null;
      this.#peer = null;
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
  }
  define("MessagePort", MessagePort);
  class MessageChannel {
    constructor() {
      [this.port1, this.port2] = MessagePort._pair();
    }
  }
  define("MessageChannel", MessageChannel);
  const channels = new Map();
  class BroadcastChannel extends EventTarget {
    #name;
    #closed = false;
    constructor(name) {
      super();
      if (arguments.length === 0) throw new TypeError('The "name" argument must be specified');
      this.#name = String(name);
      this.onmessage = null;
      const list = channels.get(this.#name) || [];
      list.push(this);
      channels.set(this.#name, list);
    }
    get name() {
      return this.#name;
    }
    postMessage(data) {
      if (this.#closed) throw new DOMException("BroadcastChannel is closed.", "InvalidStateError");
      for (const other of channels.get(this.#name) || []) {
        if (other === this) continue;
        const copy = structuredClone(data);
        setTimeout(() => {
          if (!other.#closed) other.dispatchEvent(new MessageEvent("message", { data: copy }));
        }, 0);
      }
    }
    close() {
      this.#closed = true;
      const list = (channels.get(this.#name) || []).filter((c) => c !== this);
      if (list.length) channels.set(this.#name, list);
      else channels.delete(this.#name);
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
  }
  define("BroadcastChannel", BroadcastChannel);

  // ---- Blob and File ----------------------------------------------------
  // Node 20's globals: bytes held whole, with a media type (and a File's
  // name and time). stream() needs the WHATWG streams, which fount gives
  // code that names ReadableStream.
  function blobBytes(part) {
    if (part instanceof Blob) return part._bytes();
    if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
    if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength));
    return utf8Encode(String(part));
  }
  function blobType(type) {
    const t = type === undefined ? "" : String(type);
    return /^[\x20-\x7e]*$/.test(t) ? t.toLowerCase() : "";
  }
  class Blob {
    #bytes;
    #type;
    constructor(parts = [], options = {}) {
      if (typeof parts !== "object" || parts === null || typeof parts[Symbol.iterator] !== "function") {
        throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
      }
      const chunks = [];
      let size = 0;
      for (const part of parts) {
        const b = blobBytes(part);
        chunks.push(b);
        size += b.length;
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const b of chunks) {
        all.set(b, at);
        at += b.length;
      }
      this.#bytes = all;
      this.#type = blobType(options && options.type);
    }
    get size() {
      return this.#bytes.length;
    }
    get type() {
      return this.#type;
    }
    _bytes() {
      return this.#bytes;
    }
    slice(start = 0, end = this.size, type = "") {
      const n = this.size;
      const from = start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
      const to = end < 0 ? Math.max(n + end, 0) : Math.min(end, n);
      return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type });
    }
    text() {
      return Promise.resolve(utf8Decode(this.#bytes, false));
    }
    arrayBuffer() {
      return Promise.resolve(this.#bytes.slice().buffer);
    }
    bytes() {
      return Promise.resolve(this.#bytes.slice());
    }
    stream() {
      if (typeof globalThis.ReadableStream !== "function") {
        throw new TypeError("Blob.stream() needs ReadableStream, which fount gives code that names it");
      }
      const bytes = this.#bytes.slice();
      return new globalThis.ReadableStream({ start(c) {
        if (bytes.length) c.enqueue(bytes);
        c.close();
      } });
    }
    get [Symbol.toStringTag]() {
      return "Blob";
    }
  }
  class File extends Blob {
    #name;
    #lastModified;
    constructor(parts, name, options = {}) {
      if (arguments.length < 2) throw new TypeError("Failed to construct 'File': 2 arguments required, but only " + arguments.length + " present.");
      super(parts, options);
      this.#name = String(name);
      this.#lastModified = options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
    }
    get name() {
      return this.#name;
    }
    get lastModified() {
      return this.#lastModified;
    }
    get [Symbol.toStringTag]() {
      return "File";
    }
  }
  define("Blob", Blob);
  define("File", File);

  // bodyContent turns a body into what the host sends, text or bytes,
  // and the content type it implies.
  function bodyContent(body, headers) {
    if (body === undefined || body === null) return null;
    if (typeof body === "string") {
      if (!headers.has("content-type")) headers.set("content-type", "text/plain;charset=UTF-8");
      return body;
    }
    if (body instanceof URLSearchParams) {
      if (!headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
      return body.toString();
    }
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new Uint8Array(bytesOf(body));
    if (body instanceof Blob) {
      if (body.type && !headers.has("content-type")) headers.set("content-type", body.type);
      return body._bytes().slice();
    }
    return String(body);
  }

  // A body is text or bytes, as it came: text is read as UTF-8 when bytes
  // are asked for, and bytes decoded as UTF-8 when text is.
  class Body {
    #content;
    #used = false;
    constructor(content) {
      this.#content = content;
    }
    get bodyUsed() {
      return this.#used;
    }
    get body() {
      return this.#content === null ? null : this.#content;
    }
    #take() {
      if (this.#used) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
      this.#used = true;
      return Promise.resolve(this.#content === null ? "" : this.#content);
    }
    text() {
      return this.#take().then((c) => (typeof c === "string" ? c : utf8Decode(c, false)));
    }
    json() {
      return this.text().then((t) => JSON.parse(t));
    }
    arrayBuffer() {
      return this.bytes().then((b) => b.buffer);
    }
    bytes() {
      return this.#take().then((c) => (typeof c === "string" ? utf8Encode(c) : new Uint8Array(c)));
    }
    blob() {
      const type = this.headers ? this.headers.get("content-type") || "" : "";
      return this.bytes().then((b) => new Blob([b], { type }));
    }
    _text() {
      const c = this.#content;
      return c === null || typeof c === "string" ? c : utf8Decode(c, false);
    }
    // _content is the body as it is held: a string, a Uint8Array or null.
    _content() {
      return this.#content;
    }
  }

  const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"];
  class Request extends Body {
    constructor(input, init = {}) {
      const from = input instanceof Request ? input : null;
      const headers = new Headers(init.headers !== undefined ? init.headers : from ? from.headers : undefined);
      const text = init.body !== undefined ? bodyContent(init.body, headers) : from ? from._content() : null;
      super(text);
      this.url = from ? from.url : new URL(String(input)).href;
      const m = String(init.method !== undefined ? init.method : from ? from.method : "GET");
      this.method = METHODS.includes(m.toUpperCase()) ? m.toUpperCase() : m;
      if ((this.method === "GET" || this.method === "HEAD") && text !== null) throw new TypeError("Request with GET/HEAD method cannot have body.");
      this.headers = headers;
      this.signal = init.signal || (from ? from.signal : new AbortController().signal);
      this.redirect = init.redirect || "follow";
    }
    clone() {
      return new Request(this);
    }
  }
  define("Request", Request);

  const STATUS_TEXT = { 200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 429: "Too Many Requests",
    500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" };
  class Response extends Body {
    constructor(body = null, init = {}) {
      const headers = new Headers(init.headers);
      super(bodyContent(body, headers));
      this.status = init.status === undefined ? 200 : Number(init.status);
      if (!(this.status >= 200 && this.status <= 599)) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
      this.statusText = init.statusText !== undefined ? String(init.statusText) : "";
      this.headers = headers;
      this.type = "default";
      this.url = init.url || "";
      this.redirected = false;
    }
    get ok() {
      return this.status >= 200 && this.status < 300;
    }
    clone() {
      return new Response(this._content(), { status: this.status, statusText: this.statusText, headers: this.headers, url: this.url });
    }
    static json(data, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      return new Response(JSON.stringify(data), Object.assign({}, init, { headers }));
    }
    static error() {
      const r = new Response(null, { status: 200 });
      r.type = "error";
      return r;
    }
    static _fromHost(res, url) {
      return new Response(res.body === undefined ? null : res.body, { status: res.status < 200 ? 200 : res.status,
        statusText: STATUS_TEXT[res.status] || "", headers: res.headers || {}, url });
    }
  }
  define("Response", Response);
})();
