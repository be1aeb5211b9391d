// fount prelude: the component model, evaluated once per instance by
// fount_init before any component code runs (and so part of the snapshot).
//
// The C shim hands over `__host` (the ABI imports as JS functions) and takes
// back dispatch/poll/fire/result through __host.register. The prelude hides
// `__host` from component code; the real boundary is the wasm one, and the
// host validates everything it receives.
(function () {
  "use strict";
  const host = globalThis.__host;
  delete globalThis.__host;

  // ---- web globals ------------------------------------------------------
  // The host sends web.js with the load of code that names one of them;
  // evaluated, they cost an instance about 300 KiB.
  let webLoaded = false;
  function loadWeb(source) {
    if (webLoaded || !source) return;
    webLoaded = true;
    host.evalScript(String(source), "fount:web");
  }

  const HOST_ERRORS = {
    "-1": "invalid request",
    "-2": "over the size limit",
    "-3": "not allowed for this source",
    "-4": "not found",
    "-5": "failed on the host",
    "-6": "deadline exceeded",
    "-7": "no pending reply",
    "-8": "not allowed in this state",
  };
  const KNOWN_TYPES = new Set([
    "app", "boolean", "boolean[]", "integer", "integer[]", "string", "string[]",
    "object", "any", "$.interface.http", "$.interface.timer", "$.service.db", "http_request",
  ]);
  const HOOKS = ["deploy", "activate", "deactivate"];
  const DEDUPE = ["unique", "greatest", "last"];
  const MAX_SENDS = 100; // abi.MaxSends
  // HOST_ERRORS, KNOWN_TYPES, HOOKS and DEDUPE copy Go constants (package
  // abi's error codes, package component's prop types, hooks and dedupe
  // strategies); TestPreludeMatchesGo in package host checks them.

  function hostCall(what, fn) {
    try {
      return fn();
    } catch (e) {
      throw hostError(what, e);
    }
  }

  // hostError turns a host function's refusal into an Error that names
  // what was refused; anything else passes through.
  function hostError(what, e) {
    if (e && typeof e.hostCode === "number") {
      return new Error(what + ": " + (HOST_ERRORS[e.hostCode] || "host error " + e.hostCode));
    }
    return e;
  }

  // ---- console --------------------------------------------------------
  function formatArg(v) {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack ? v.name + ": " + v.message + "\n" + v.stack : String(v);
    if (v === undefined || typeof v === "function" || typeof v === "symbol") return String(v);
    if (typeof v === "bigint") return v + "n";
    try {
      const s = JSON.stringify(v);
      return s === undefined ? String(v) : s;
    } catch (_) {
      return String(v);
    }
  }
  function logAt(level) {
    return function (...args) {
      host.log(level, args.map(formatArg).join(" "));
    };
  }
  globalThis.console = {
    debug: logAt(0), log: logAt(1), info: logAt(1), warn: logAt(2), error: logAt(3),
    trace: logAt(0), dir: logAt(1),
  };

  // callSeq numbers the calls of this instance; work a call left pending
  // (a late .then, a stale $) checks it so that it cannot settle or write
  // into a later call.
  let callSeq = 0;
  let open = false; // between a call's dispatch and its result
  const promiseThen = Promise.prototype.then;

  // ---- timers (live only within one call) ------------------------------
  let timers = new Map();
  let timerSeq = 0;
  globalThis.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== "function") throw new TypeError("setTimeout needs a function");
    const id = ++timerSeq;
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(id, { at: Date.now() + delay, seq: id, fn, args });
    return id;
  };
  globalThis.clearTimeout = function (id) {
    timers.delete(id);
  };
  // An interval fires again every ms while the call lasts; like every
  // timer, it is dropped when the call ends.
  globalThis.setInterval = function (fn, ms, ...args) {
    const id = globalThis.setTimeout(fn, ms, ...args);
    timers.get(id).every = Math.max(1, Number(ms) || 0);
    return id;
  };
  globalThis.clearInterval = globalThis.clearTimeout;
  // Immediates are due one millisecond early so that they run before
  // timers set just before them, as in Node, even when the clock ticks
  // in between.
  globalThis.setImmediate = function (fn, ...args) {
    const id = globalThis.setTimeout(fn, 0, ...args);
    timers.get(id).at -= 1;
    return id;
  };
  globalThis.clearImmediate = globalThis.clearTimeout;
  // A microtask that throws fails the call, as an uncaught exception
  // would end a Node process.
  globalThis.queueMicrotask = function (fn) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    const seq = callSeq;
    Promise.resolve().then(() => fn()).catch((err) => failLate(err, seq));
  };

  // stdout and stderr write to the log of the call, as console does.
  function logStream(fd, level) {
    return { fd, isTTY: false, writable: true, write(chunk, enc, cb) {
      host.log(level, String(chunk).replace(/\n$/, ""));
      if (typeof enc === "function") enc();
      else if (typeof cb === "function") cb();
      return true;
    } };
  }
  globalThis.process = {
    env: {},
    nextTick(fn, ...args) {
      globalThis.queueMicrotask(() => fn(...args));
    },
    stdout: logStream(1, 1),
    stderr: logStream(2, 3),
  };
  // The call's number, for state that lives within one call (fs's /tmp).
  Object.defineProperty(globalThis.process, Symbol.for("fount.call"), { get: () => callSeq });
  // Pipedream's code steps export defineComponent({...}); it only marks
  // the definition.
  globalThis.defineComponent = function defineComponent(d) {
    return d;
  };

  // ---- fetch (only when the host grants egress) ------------------------
  // The standard fetch over the host's; a plain object as the body is
  // sent as JSON (a fount convenience older components rely on).
  globalThis.fetch = async function fetch(input, init) {
    init = Object.assign({}, init);
    const b = init.body;
    if (b !== null && typeof b === "object" && Object.getPrototypeOf(b) === Object.prototype) {
      init.headers = new Headers(init.headers);
      if (!init.headers.has("content-type")) init.headers.set("content-type", "application/json");
      init.body = JSON.stringify(b);
    }
    if (!webLoaded) throw new ReferenceError("fetch needs the web globals, which fount loads for code that names fetch");
    const req = new Request(input, init);
    if (req.signal.aborted) throw req.signal.reason;
    const headers = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const msg = { url: req.url, method: req.method, headers };
    if (req._text() !== null) msg.body = req._text();
    const res = JSON.parse(hostCall("fetch " + req.url, () => host.fetch(JSON.stringify(msg))));
    return Response._fromHost(res, req.url);
  };

  // ---- crypto -------------------------------------------------------------
  // Hashes, HMACs and random bytes come from the host (the crypto import);
  // node:crypto reaches hostCrypto through the symbol below.
  function unbase64(s) {
    const out = [];
    let acc = 0, bits = 0;
    for (const ch of String(s)) {
      const v = B64.indexOf(ch);
      if (v < 0) continue;
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push((acc >> bits) & 255);
      }
    }
    return new Uint8Array(out);
  }
  function hostCrypto(req) {
    return unbase64(JSON.parse(hostCall("crypto", () => host.crypto(JSON.stringify(req)))).bytes);
  }
  function viewBytes(v) {
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    throw new TypeError("The data must be an ArrayBuffer or an ArrayBufferView");
  }
  const SUBTLE_ALGS = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
  const cryptoGlobal = {
    getRandomValues(arr) {
      if (!ArrayBuffer.isView(arr) || arr instanceof DataView || arr instanceof Float32Array || arr instanceof Float64Array) {
        throw new TypeError("The data argument must be an integer-type TypedArray");
      }
      if (arr.byteLength > 65536) throw new RangeError("The ArrayBufferView's byte length (" + arr.byteLength + ") exceeds the number of bytes of entropy available via this API (65536)");
      viewBytes(arr).set(hostCrypto({ op: "random", size: arr.byteLength }));
      return arr;
    },
    randomUUID() {
      const b = hostCrypto({ op: "random", size: 16 });
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => (x + 0x100).toString(16).slice(1)).join("");
      return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
    },
    subtle: {
      async digest(algorithm, data) {
        const name = String(typeof algorithm === "string" ? algorithm : algorithm && algorithm.name).toUpperCase();
        const alg = SUBTLE_ALGS[name];
        if (!alg) throw new TypeError("Unrecognized algorithm name");
        return hostCrypto({ op: "digest", alg, data: base64(viewBytes(data)) }).buffer;
      },
    },
  };
  Object.defineProperty(cryptoGlobal, Symbol.for("fount.crypto"), { value: hostCrypto });
  globalThis.crypto = cryptoGlobal;

  // ---- helpers -----------------------------------------------------------
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function base64(bytes) {
    let out = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
      out += i + 2 < bytes.length ? B64[n & 63] : "=";
    }
    return out;
  }

  function serializeError(e) {
    if (e instanceof Error || (e && typeof e === "object" && "message" in e)) {
      const out = { name: String(e.name || "Error"), message: String(e.message), stack: String(e.stack || "") };
      if (e instanceof SyntaxError) {
        const m = /:(\d+)/.exec(out.stack);
        if (m) out.line = Number(m[1]);
      }
      return out;
    }
    return { name: "Error", message: String(e), stack: "" };
  }

  function toJSON(what, v) {
    let s;
    try {
      s = JSON.stringify(v);
    } catch (e) {
      throw new TypeError(what + " is not JSON-serializable: " + e.message);
    }
    return s;
  }

  // Sentinel thrown by $.flow.exit to end an action early.
  class FlowExit {
    constructor(reason) {
      this.reason = reason;
    }
  }

  // ---- loading -----------------------------------------------------------
  let def = null; // the component definition object
  let self = null; // `this` for run, hooks and methods
  let bundled = {}; // module sources by normalised name
  const cjsCache = {};

  function normalize(name) {
    return String(name).replace(/^\.\//, "");
  }

  function looksLikeESM(code) {
    return /(^|[\n;])\s*(import\s*[\w{*'"]|export\s+(default|const|let|var|function|class|async|\{|\*))/.test(code);
  }

  function requireFrom(base) {
    return function require(name) {
      let key = normalize(name);
      if (key in cjsCache) return cjsCache[key].exports;
      if (!(key in bundled)) {
        throw new Error("Cannot find module '" + name + "': only modules bundled with the component can be required");
      }
      const module = { exports: {} };
      cjsCache[key] = module;
      evalCJS(bundled[key], key, module);
      return module.exports;
    };
  }

  function evalCJS(code, filename, module) {
    // One line of wrapper, so error line numbers match the component's.
    const fn = host.evalScript("(function (exports, require, module, __filename, __dirname) {" + code + "\n})", filename);
    fn.call(module.exports, module.exports, requireFrom(filename), module, filename, "/");
  }

  function loadDefinition(msg) {
    bundled = {};
    for (const [k, v] of Object.entries(msg.modules || {})) bundled[normalize(k)] = v;
    const filename = normalize(msg.filename || "component.mjs");
    const code = String(msg.code || "");
    bundled[filename] = code;
    loadWeb(msg.web);
    host.setModules(bundled);
    let loaded;
    if (msg.format ? msg.format === "esm" : looksLikeESM(code)) {
      globalThis.__fount_loaded = (ns) => {
        if (ns.default === undefined && !("run" in ns) && !("name" in ns)) {
          throw new TypeError("the module has no default export: a component is export default { name, version, run() {...} } (or module.exports = {...})");
        }
        loaded = ns.default !== undefined ? ns.default : ns;
      };
      try {
        host.evalModule("import * as ns from " + JSON.stringify(filename) + "; globalThis.__fount_loaded(ns);", "fount:loader");
      } finally {
        delete globalThis.__fount_loaded;
      }
    } else {
      const module = { exports: {} };
      cjsCache[filename] = module;
      evalCJS(code, filename, module);
      loaded = module.exports;
      if (loaded && typeof loaded === "object" && Object.keys(loaded).length === 0 && Object.getPrototypeOf(loaded) === Object.prototype) {
        throw new TypeError("the module exports nothing: a component is module.exports = { name, version, run() {...} } (or export default {...})");
      }
      if (loaded && loaded.__esModule && loaded.default) loaded = loaded.default;
    }
    checkDefinition(loaded, msg.step);
    return loaded;
  }

  function checkDefinition(d, step) {
    if (d === null || typeof d !== "object") {
      throw new TypeError("the component must export an object (export default {...} or module.exports = {...})");
    }
    if (step && d.type === "source") throw new TypeError("a workflow step must be an action or code step, and this component is a source");
    if (!step && (typeof d.name !== "string" || d.name === "")) throw new TypeError("the component needs a name (a non-empty string)");
    if (!step && (typeof d.version !== "string" || d.version === "")) throw new TypeError("the component needs a version (a non-empty string)");
    if (typeof d.run !== "function") throw new TypeError("the component needs a run method");
    if (d.type !== undefined && d.type !== "source" && d.type !== "action") {
      throw new TypeError('the component type must be "source" or "action", not ' + JSON.stringify(d.type));
    }
    if (d.dedupe !== undefined && !DEDUPE.includes(d.dedupe)) {
      throw new TypeError('dedupe must be "unique", "greatest" or "last", not ' + JSON.stringify(d.dedupe));
    }
    for (const [name, p] of Object.entries(d.props || {})) resolveProp(name, p);
  }

  // resolveProp returns the prop with its propDefinition merged in.
  function resolveProp(name, p) {
    if (typeof p === "string") p = { type: p }; // shorthand: db: "$.service.db"
    if (p === null || typeof p !== "object") throw new TypeError("prop " + name + " must be an object or a type name");
    let prop = p;
    if (Array.isArray(p.propDefinition)) {
      const [app, defName] = p.propDefinition;
      const base = app && app.propDefinitions && app.propDefinitions[defName];
      if (!base) throw new TypeError("prop " + name + ": propDefinition " + String(defName) + " is not defined by its app");
      prop = Object.assign({}, base, p);
      prop.__app = app;
    }
    if (typeof prop.type !== "string" || !KNOWN_TYPES.has(prop.type)) {
      throw new TypeError("prop " + name + " has unknown type " + JSON.stringify(prop.type));
    }
    for (const f of ["min", "max"]) {
      if (prop[f] !== undefined && !Number.isSafeInteger(prop[f])) throw new TypeError("prop " + name + ": " + f + " must be an integer");
    }
    return prop;
  }

  // ---- introspection -----------------------------------------------------
  function describeProp(name, p) {
    const prop = resolveProp(name, p);
    const out = { name, type: prop.type };
    for (const f of ["label", "description", "optional", "secret", "min", "max", "reloadProps", "customResponse", "app"]) {
      if (prop[f] !== undefined && typeof prop[f] !== "function") out[f] = prop[f];
    }
    if (prop.default !== undefined) out.default = prop.default;
    if (Array.isArray(prop.options)) out.options = prop.options;
    else if (typeof prop.options === "function") out.remoteOptions = true;
    if (p && Array.isArray(p.propDefinition)) {
      const app = p.propDefinition[0];
      out.propDefinition = [(app && app.app) || "", p.propDefinition[1]];
    }
    return out;
  }

  function describe(d) {
    const props = Object.entries(d.props || {}).map(([n, p]) => describeProp(n, p));
    const out = {
      // A code step needs no name or version; it is named by its step.
      name: typeof d.name === "string" && d.name !== "" ? d.name : "step",
      version: typeof d.version === "string" && d.version !== "" ? d.version : "0.0.0",
      type: d.type || "source", // a step's explicit "source" was refused on load
      hooks: HOOKS.filter((h) => d.hooks && typeof d.hooks[h] === "function"),
      configurable_props: props,
      has_additional_props: typeof d.additionalProps === "function",
    };
    for (const f of ["key", "description", "dedupe"]) if (typeof d[f] === "string") out[f] = d[f];
    return out;
  }

  // ---- building `this` ---------------------------------------------------
  // emit is on the path of nearly every call: it spells out each field
  // rather than loop over their names, which costs several times more in
  // the sandbox.
  function emit(event, meta) {
    const payload = {};
    if (event !== undefined) payload.event = event;
    if (meta) {
      if (meta.id !== undefined) payload.id = meta.id;
      if (meta.name !== undefined) payload.name = meta.name;
      if (meta.summary !== undefined) payload.summary = meta.summary;
      if (meta.ts !== undefined) payload.ts = meta.ts;
      if (meta.delivery_ts !== undefined) payload.delivery_ts = meta.delivery_ts;
    }
    const text = toJSON("the emitted event", payload);
    try {
      host.emit(text);
    } catch (e) {
      throw hostError("$emit", e);
    }
  }

  function respond(r) {
    if (r === null || typeof r !== "object") throw new TypeError("respond() needs an object {status, headers, body}");
    const status = r.status;
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RangeError("respond() status must be an integer from 100 to 599, got " + JSON.stringify(status));
    }
    const out = { status, headers: {} };
    for (const [k, v] of Object.entries(r.headers || {})) out.headers[k] = String(v);
    const body = r.body;
    if (body === undefined || body === null) {
      // no body
    } else if (typeof body === "string") {
      out.body = body;
    } else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      const bytes = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      out.body = base64(bytes);
      out.body_encoding = "base64";
    } else {
      out.body = toJSON("the respond() body", body);
      if (!Object.keys(out.headers).some((k) => k.toLowerCase() === "content-type")) out.headers["content-type"] = "application/json";
    }
    hostCall("respond", () => host.respond(JSON.stringify(out)));
  }

  function makeDB() {
    return {
      get(key) {
        const s = hostCall("db.get", () => host.dbGet(String(key)));
        return s === undefined ? undefined : JSON.parse(s);
      },
      set(key, value) {
        const s = toJSON("the db value", value);
        if (s === undefined) throw new TypeError("db.set: the value is not JSON-serializable");
        hostCall("db.set", () => host.dbSet(String(key), s));
      },
    };
  }

  function makeApp(propName, prop) {
    const app = { app: prop.app, propDefinitions: prop.propDefinitions || {} };
    for (const [m, fn] of Object.entries(prop.methods || {})) {
      if (typeof fn === "function") app[m] = fn.bind(app);
    }
    // Credentials are fetched on first use in each call and never kept
    // past it: a warm instance must not see revoked or rotated tokens, nor
    // reach them in a call that was granted no auth.
    let auth, authCall = -1;
    Object.defineProperty(app, "$auth", {
      enumerable: false, // not fetched by JSON.stringify or Object.assign
      get() {
        if (authCall !== callSeq) {
          auth = JSON.parse(hostCall("$auth", () => host.auth(propName)));
          authCall = callSeq;
        }
        return auth;
      },
    });
    return app;
  }

  // makeHTTPRequest is Pipedream's http_request prop: its configuration,
  // and execute(), which sends it through fetch (so through the egress
  // policy) and answers as axios does: {status, statusText, headers,
  // data}, data parsed when it is JSON, and an error for a status of 400
  // or more.
  function makeHTTPRequest(cfg) {
    const req = Object.assign({ method: "GET", headers: [], params: [] }, cfg);
    req.execute = async function execute(overrides) {
      const c = Object.assign({}, req, overrides || {});
      const url = new URL(String(c.url || ""));
      for (const p of pairs(c.params)) url.searchParams.append(p[0], p[1]);
      const headers = new Headers(pairs(c.headers));
      const init = { method: String(c.method || "GET").toUpperCase(), headers };
      const body = c.body;
      if (body !== undefined && body !== null && body !== "" && init.method !== "GET" && init.method !== "HEAD") {
        if (typeof body === "string") init.body = body;
        else if (body.mode === "raw" || (body.raw !== undefined && !body.fields)) init.body = String(body.raw || "");
        else {
          const type = body.contentType || "application/json";
          if (!headers.has("content-type")) headers.set("content-type", type);
          const fields = pairs(body.fields);
          init.body = /x-www-form-urlencoded/.test(type) ? new URLSearchParams(fields).toString() : JSON.stringify(Object.fromEntries(fields));
        }
      }
      const res = await fetch(url.href, init);
      const text = await res.text();
      let data = text;
      if (/json/.test(res.headers.get("content-type") || "")) {
        try {
          data = JSON.parse(text);
        } catch (_) {}
      }
      const out = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers), data };
      if (res.status >= 400) {
        const err = new Error("Request failed with status code " + res.status);
        err.response = out;
        throw err;
      }
      return out;
    };
    return req;
  }

  // pairs reads Pipedream's [{name, value}] lists, or a plain object.
  function pairs(v) {
    if (!v) return [];
    if (Array.isArray(v)) return v.filter((p) => p && p.name).map((p) => [String(p.name), String(p.value === undefined ? "" : p.value)]);
    return Object.entries(v).map(([k, x]) => [k, String(x)]);
  }

  function propValue(name, prop, configured) {
    switch (prop.type) {
      case "app":
        return makeApp(name, prop);
      case "$.service.db":
        return makeDB();
      case "http_request":
        return makeHTTPRequest(Object.assign({}, prop.default || {}, configured || {}));
      case "$.interface.http": {
        const c = configured || {};
        return {
          endpoint: c.endpoint_url || c.endpoint || null,
          respond(r) {
            if (!prop.customResponse) throw new Error("respond() needs customResponse: true on the http prop " + name);
            respond(r);
          },
        };
      }
      case "$.interface.timer":
        return configured !== undefined ? configured : prop.default;
      default:
        return configured !== undefined ? configured : prop.default;
    }
  }

  function buildThis(d, configured) {
    const t = {};
    for (const [name, p] of Object.entries(d.props || {})) {
      t[name] = propValue(name, resolveProp(name, p), configured[name]);
    }
    // Props that additionalProps added are not declared: the host checked
    // their values against what the method returned, and they are plain.
    for (const [name, v] of Object.entries(configured)) {
      if (!(name in t)) t[name] = v;
    }
    for (const [name, fn] of Object.entries(d.methods || {})) {
      if (typeof fn === "function") t[name] = fn.bind(t);
    }
    Object.defineProperty(t, "$emit", { value: emit });
    return t;
  }

  // ---- one call ------------------------------------------------------------
  let settled = true;
  let outcome = null;
  let exportsOut = null;
  let sendsOut = null; // this call's $.send.http and $.send.sse requests
  let stepMode = false; // loaded as a workflow step
  let configuredProps = {};

  function send(kind, x) {
    if (x === null || typeof x !== "object") throw new TypeError("$.send." + kind + "() needs an object");
    if (sendsOut.length >= MAX_SENDS) throw new RangeError("a step may call $.send.http and $.send.sse at most " + MAX_SENDS + " times");
    let out;
    if (kind === "http") {
      if (typeof x.url !== "string" || x.url === "") throw new TypeError("$.send.http() needs a url");
      out = { kind, url: x.url, method: String(x.method || "POST").toUpperCase() };
      if (x.headers !== undefined) {
        out.headers = {};
        for (const [k, v] of Object.entries(x.headers)) out.headers[k] = String(v);
      }
      if (x.params !== undefined) {
        const u = new URLish(out.url);
        for (const [k, v] of Object.entries(x.params)) u.add(k, String(v));
        out.url = u.toString();
      }
      if (x.data !== undefined) out.body = typeof x.data === "string" ? x.data : toJSON("the $.send.http data", x.data);
    } else {
      out = { kind, channel: x.channel === undefined ? "" : String(x.channel), payload: JSON.parse(toJSON("the $.send.sse payload", x.payload === undefined ? null : x.payload)) };
    }
    sendsOut.push(out);
  }

  // URLish appends query parameters to a URL without a URL global.
  class URLish {
    constructor(url) {
      this.url = url;
    }
    add(k, v) {
      const [base, hash] = this.url.split("#", 2);
      const sep = base.includes("?") ? "&" : "?";
      this.url = base + sep + encodeURIComponent(k) + "=" + encodeURIComponent(v) + (hash === undefined ? "" : "#" + hash);
    }
    toString() {
      return this.url;
    }
  }

  // evalTemplates returns the configured props with each {{...}}
  // expression of a string value evaluated against steps: a value that is
  // one expression takes the expression's value, any other string the
  // text of each expression in its place.
  // Compiled expressions, by their text: a warm instance compiles each
  // once, not at every execution.
  const compiledExprs = new Map();

  function evalTemplates(templates, steps) {
    const out = {};
    const evalExpr = (prop, expr) => {
      try {
        let fn = compiledExprs.get(expr);
        if (fn === undefined) {
          fn = new Function("steps", "return (" + expr + ");");
          if (compiledExprs.size < 1000) compiledExprs.set(expr, fn);
        }
        return fn(steps);
      } catch (e) {
        throw new Error("prop " + prop + ": the expression {{" + expr + "}} failed: " + e.message);
      }
    };
    for (const [name, v] of Object.entries(templates || {})) {
      const whole = /^\s*\{\{([\s\S]*?)\}\}\s*$/.exec(v);
      if (whole && !whole[1].includes("}}")) {
        out[name] = evalExpr(name, whole[1]);
        continue;
      }
      out[name] = v.replace(/\{\{([\s\S]*?)\}\}/g, (_, expr) => {
        const r = evalExpr(name, expr);
        return typeof r === "string" ? r : JSON.stringify(r);
      });
    }
    return out;
  }

  let stepDollar = null; // a step's $, made once: see makeDollar

  // makeDollar makes an action's $. A source's action gets one per call,
  // bound to that call's exports. A step's (current set) is made once per
  // instance and writes to the exports of the call in progress: a call
  // ends only when nothing of it is left to run, so no earlier call's
  // code can use it later.
  function makeDollar(current) {
    const exp = exportsOut; // this call's exports, even if used later
    return {
      export(name, value) {
        (current ? exportsOut : exp)[String(name)] = value;
      },
      flow: {
        exit(reason) {
          throw new FlowExit(reason === undefined ? "" : String(reason));
        },
      },
      respond,
      send: {
        emit(x) {
          emit(x && x.raw_event !== undefined ? x.raw_event : x);
        },
        http(x) {
          if (!stepMode) throw new Error("$.send.http is only available in workflow steps");
          send("http", x);
        },
        email() {
          throw new Error("$.send.email is not supported by fount: send mail with an action that calls your mail provider's API");
        },
        s3() {
          throw new Error("$.send.s3 is not supported by fount: upload with an action that calls your storage provider's API");
        },
        sse(x) {
          if (!stepMode) throw new Error("$.send.sse is only available in workflow steps");
          send("sse", x);
        },
      },
    };
  }

  // runStep runs a workflow step: its props' {{...}} expressions are
  // evaluated against the steps so far, then run({ steps, $ }).
  async function runStep(ev) {
    const steps = ev.steps || {};
    // A templated prop has no configured value, so this call's value
    // replaces the last call's on this, to which the methods are bound.
    if (ev.templates) {
      for (const [name, v] of Object.entries(evalTemplates(ev.templates, steps))) {
        self[name] = propValue(name, resolveProp(name, def.props[name]), v);
      }
    }
    const on = self;
    if (stepDollar === null) stepDollar = makeDollar(true);
    return await def.run.call(on, { steps, $: stepDollar });
  }

  function needLoaded() {
    if (!def) throw new Error("no component is loaded in this instance");
  }

  // perform starts an operation and returns its value, or a promise of
  // it. It is not async itself: a run() that returns at once then settles
  // without a round of promise jobs, which cost several microseconds each
  // in the sandbox.
  function perform(msg) {
    switch (msg.op) {
      case "load":
        stepMode = !!msg.step;
        def = loadDefinition(msg);
        process.env = Object.freeze(Object.assign({}, msg.env || {}));
        configuredProps = msg.props || {};
        self = buildThis(def, configuredProps);
        return describe(def);
      case "introspect":
        return describe(loadDefinition(msg));
      case "run":
        needLoaded();
        if (stepMode) return runStep(msg.event || {});
        if (def.type === "action") return def.run.call(self, { $: makeDollar(), steps: (msg.event && msg.event.steps) || {} });
        return def.run.call(self, msg.event === undefined ? {} : msg.event);
      case "hook": {
        needLoaded();
        if (!HOOKS.includes(msg.hook)) throw new TypeError("unknown hook " + JSON.stringify(msg.hook));
        const h = def.hooks && def.hooks[msg.hook];
        return typeof h === "function" ? h.call(self) : undefined;
      }
      case "options": {
        needLoaded();
        const raw = def.props && def.props[msg.prop];
        if (!raw) throw new TypeError("the component has no prop " + JSON.stringify(msg.prop));
        const prop = resolveProp(msg.prop, raw);
        if (Array.isArray(prop.options)) return prop.options;
        if (typeof prop.options !== "function") throw new TypeError("prop " + msg.prop + " has no options");
        // Options of a propDefinition run with `this` bound to its app, as
        // the app's own methods do.
        let on = self;
        if (prop.__app) {
          const appName = Object.keys(def.props).find((k) => def.props[k] === prop.__app);
          on = appName ? self[appName] : makeApp(msg.prop, prop.__app);
        }
        return prop.options.call(on, { page: msg.page || 0, prevContext: msg.prevContext || "" });
      }
      case "additionalProps":
        needLoaded();
        return additionalProps();
      default:
        throw new TypeError("unknown operation " + JSON.stringify(msg.op));
    }
  }

  async function additionalProps() {
    if (typeof def.additionalProps !== "function") return [];
    const extra = (await def.additionalProps.call(self, def.props || {})) || {};
    return Object.entries(extra).map(([n, p]) => describeProp(n, p));
  }

  function finish(o, seq) {
    if (settled || seq !== callSeq) return;
    settled = true;
    outcome = o;
  }

  // failure is the outcome of a call that threw err; it never throws
  // itself, whatever err's getters do.
  function failure(err) {
    try {
      if (err instanceof FlowExit) return { ok: true, exit: err.reason };
      return { ok: false, error: serializeError(err) };
    } catch (e) {
      return { ok: false, error: { name: "Error", message: "the call threw a value that cannot be read", stack: "" } };
    }
  }

  // failLate fails call seq with err even if it has settled, until its
  // result is taken: a microtask that throws runs after a run() that
  // returned at once, and fails the call as an uncaught exception ends a
  // Node process.
  function failLate(err, seq) {
    if (seq !== callSeq || !open) return;
    settled = true;
    outcome = failure(err);
  }

  function dispatch(text) {
    const msg = JSON.parse(text);
    const seq = ++callSeq;
    timers = new Map();
    settled = false;
    outcome = null;
    exportsOut = {};
    sendsOut = [];
    if (msg.memory_limit) host.setMemoryLimit(msg.memory_limit);
    open = true;
    const ok = (value) => finish({ ok: true, value }, seq);
    const fail = (err) => finish(failure(err), seq);
    try {
      const value = perform(msg);
      if (value instanceof Promise) {
        // As await does: the promise's own then, if it has one, is not used.
        promiseThen.call(value, ok, fail);
        return;
      }
      const then = value !== null && (typeof value === "object" || typeof value === "function") ? value.then : undefined;
      if (typeof then !== "function") {
        ok(value);
        return;
      }
      promiseThen.call(new Promise((resolve, reject) => then.call(value, resolve, reject)), ok, fail);
    } catch (err) {
      fail(err);
    }
  }

  function poll() {
    if (settled) return -1;
    if (timers.size === 0) {
      finish({ ok: false, unsettled: true, error: { name: "Error", message: "the call returned a promise that never settles (no timer is pending)", stack: "" } }, callSeq);
      return -1;
    }
    let next = Infinity;
    for (const t of timers.values()) next = Math.min(next, t.at);
    return Math.max(0, Math.min(next - Date.now(), 1 << 30));
  }

  function fire() {
    const now = Date.now();
    const due = [...timers.values()].filter((t) => t.at <= now).sort((a, b) => a.at - b.at || a.seq - b.seq);
    for (const t of due) {
      if (!timers.delete(t.seq)) continue; // cleared by an earlier callback
      if (t.every) timers.set(t.seq, Object.assign(t, { at: now + t.every }));
      try {
        t.fn(...t.args);
      } catch (err) {
        finish(failure(err), callSeq);
      }
    }
  }

  function result() {
    open = false;
    const o = outcome || { ok: false, error: { name: "Error", message: "the call did not settle", stack: "" } };
    if (timers.size > 0) {
      o.dropped = timers.size;
      timers = new Map();
    }
    if (Object.keys(exportsOut || {}).length > 0) o.exports = exportsOut;
    if (sendsOut && sendsOut.length > 0) o.sends = sendsOut;
    // Most runs return nothing: their result needs no JSON.stringify.
    if (o.ok && o.value === undefined && o.exit === undefined && o.dropped === undefined && o.exports === undefined && o.sends === undefined) {
      return '{"ok":true}';
    }
    try {
      return JSON.stringify(o);
    } catch (e) {
      return JSON.stringify({ ok: false, error: { name: "TypeError", message: "the return value is not JSON-serializable: " + e.message, stack: "" } });
    }
  }

  host.register({ dispatch, poll, fire, result });
})();
