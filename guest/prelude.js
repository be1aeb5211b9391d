// fount prelude: the component model, evaluated once per instance by
// fount_init before any component code runs (and so part of the snapshot).
//
// The C shim hands over `__host` (the ABI imports as JS functions) and takes
// back dispatch/poll/fire/result through __host.register. The prelude hides
// `__host` from component code; the real boundary is the wasm one, and the
// host validates everything it receives.
(function () {
  "use strict";

  // ---- primordials ------------------------------------------------------
  // Component code runs in this realm and may replace any built-in: the
  // global TypeError, JSON.stringify, Array.prototype.map, Promise's then,
  // the iterators that for...of and destructuring use. The runtime keeps
  // its own references, taken here before any component code runs (as
  // Node's primordials are), and loops by index rather than by iterator,
  // so that a component that replaces a built-in breaks only its own code.
  // web.js, loaded for code that uses the web globals, is not held to this.
  const { Array, ArrayBuffer, DataView, Date, Error, Float32Array, Float64Array, Function, JSON, Map, Math, Number, Object,
    Promise, RangeError, Reflect, ReferenceError, RegExp, Set, String, SyntaxError, TypeError, Uint8Array,
    encodeURIComponent } = globalThis;
  const ReflectApply = Reflect.apply;
  // uncurry(fn) is Function.prototype.call bound to fn: a function that
  // calls fn with its first argument as this, made of bound built-ins
  // alone (no array per call, and no lookup a component could change).
  const { bind: functionBind, call: functionCall } = Function.prototype;
  const uncurry = ReflectApply(functionBind, functionBind, [functionCall]);
  // FunctionPrototypeCall(fn, self, ...args) calls fn with this self.
  const FunctionPrototypeCall = uncurry(functionCall);
  const JSONParse = JSON.parse, JSONStringify = JSON.stringify;
  const ObjectAssign = Object.assign, ObjectCreate = Object.create, ObjectDefineProperty = Object.defineProperty, ObjectFreeze = Object.freeze,
    ObjectGetPrototypeOf = Object.getPrototypeOf, ObjectKeys = Object.keys, ObjectPrototype = Object.prototype,
    ObjectHasOwn = Object.prototype.hasOwnProperty;
  const ArrayIsArray = Array.isArray, ArrayBufferIsView = ArrayBuffer.isView;
  const MathFloor = Math.floor, MathMax = Math.max, MathMin = Math.min, DateNow = Date.now;
  const DatePrototypeGetTime = uncurry(Date.prototype.getTime);
  const { BigInt } = globalThis;
  // NODE_VERSION is the Node release fount's runtime answers to.
  const NODE_VERSION = "v20.18.1";
  const NumberIsInteger = Number.isInteger, NumberIsSafeInteger = Number.isSafeInteger, NumberIsFinite = Number.isFinite;
  const ArrayPrototypeJoin = uncurry(Array.prototype.join), ArrayPrototypePush = uncurry(Array.prototype.push),
    ArrayPrototypeSort = uncurry(Array.prototype.sort);
  const StringPrototypeEndsWith = uncurry(String.prototype.endsWith), StringPrototypeIndexOf = uncurry(String.prototype.indexOf),
    StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt),
    StringPrototypeSlice = uncurry(String.prototype.slice), StringPrototypeToLowerCase = uncurry(String.prototype.toLowerCase),
    StringPrototypeToUpperCase = uncurry(String.prototype.toUpperCase);
  // exec itself, never test or replace: those look exec up on the
  // RegExp anew at each call.
  const RegExpPrototypeExec = uncurry(RegExp.prototype.exec);
  const MapPrototypeDelete = uncurry(Map.prototype.delete), MapPrototypeForEach = uncurry(Map.prototype.forEach),
    MapPrototypeGet = uncurry(Map.prototype.get), MapPrototypeSet = uncurry(Map.prototype.set),
    MapPrototypeSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, "size").get);
  const SetPrototypeHas = uncurry(Set.prototype.has);
  const FunctionPrototypeBind = uncurry(functionBind);
  const PromiseResolve = uncurry(Promise.resolve), PromisePrototypeThen = uncurry(Promise.prototype.then);
  const TypedArrayPrototypeSet = uncurry(ObjectGetPrototypeOf(Uint8Array.prototype).set);

  // record makes the runtime's own messages to the host: with no
  // prototype, so that no toJSON a component puts on Object.prototype
  // changes how they encode.
  function record(fields) {
    return ObjectAssign(ObjectCreate(null), fields);
  }

  // keysOf lists an object's own enumerable string keys, as
  // Object.entries would, into an array read by index.
  function keysOf(o) {
    return o === null || o === undefined ? [] : ObjectKeys(o);
  }
  // includes is Array.prototype.includes over a list of the runtime's own.
  function includes(list, v) {
    for (let i = 0; i < list.length; i++) if (list[i] === v) return true;
    return false;
  }
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

  // The host sends intl.js, likewise, with the load of code that names
  // Intl.
  let intlLoaded = false;
  function loadIntl(source) {
    if (intlLoaded || !source) return;
    intlLoaded = true;
    host.evalScript(String(source), "fount:intl");
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
    "object", "any", "$.interface.http", "$.interface.timer", "$.service.db", "http_request", "alert",
    "$.interface.apphook", "data_store", "dir", "sql",
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
      const s = JSONStringify(v);
      return s === undefined ? String(v) : s;
    } catch (_) {
      return String(v);
    }
  }
  function logAt(level) {
    return function (...args) {
      const parts = [];
      for (let i = 0; i < args.length; i++) parts[i] = formatArg(args[i]);
      host.log(level, ArrayPrototypeJoin(parts, " "));
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

  // ---- timers (live only within one call) ------------------------------
  let timers = new Map();
  let timerCount = 0; // timers' size, kept here: the hot path reads it
  let timerSeq = 0;
  function addTimer(fn, ms, args) {
    if (typeof fn !== "function") throw new TypeError("setTimeout needs a function");
    const id = ++timerSeq;
    const delay = MathMax(0, Number(ms) || 0);
    const t = { at: DateNow() + delay, seq: id, fn, args };
    MapPrototypeSet(timers, id, t);
    timerCount++;
    return t;
  }
  function clearTimer(id) {
    if (MapPrototypeDelete(timers, id)) timerCount--;
  }
  globalThis.setTimeout = function (fn, ms, ...args) {
    return addTimer(fn, ms, args).seq;
  };
  globalThis.clearTimeout = clearTimer;
  // An interval fires again every ms while the call lasts; like every
  // timer, it is dropped when the call ends.
  globalThis.setInterval = function (fn, ms, ...args) {
    const t = addTimer(fn, ms, args);
    t.every = MathMax(1, Number(ms) || 0);
    return t.seq;
  };
  globalThis.clearInterval = clearTimer;
  // Immediates run before the timers due with them, as in Node, however
  // much the clock moved between setting a timer and an immediate (a
  // busy machine moves it by milliseconds).
  globalThis.setImmediate = function (fn, ...args) {
    const t = addTimer(fn, 0, args);
    t.immediate = true;
    return t.seq;
  };
  globalThis.clearImmediate = clearTimer;
  // A microtask that throws fails the call, as an uncaught exception
  // would end a Node process.
  function queueTask(fn) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    const seq = callSeq;
    PromisePrototypeThen(PromisePrototypeThen(PromiseResolve(Promise), () => fn()), undefined, (err) => failLate(err, seq));
  }
  globalThis.queueMicrotask = queueTask;

  // stdout and stderr write to the log of the call, as console does.
  function logStream(fd, level) {
    return { fd, isTTY: false, writable: true, write(chunk, enc, cb) {
      const s = String(chunk);
      host.log(level, StringPrototypeEndsWith(s, "\n") ? StringPrototypeSlice(s, 0, -1) : s);
      if (typeof enc === "function") enc();
      else if (typeof cb === "function") cb();
      return true;
    } };
  }
  // process looks like Node 20's to libraries' feature checks (axios
  // picks its Node adapter by Object.prototype.toString of it, got and
  // Slack's SDK read versions at load), with values that say nothing of
  // the machine.
  const started = DateNow();
  const processListeners = new Map();
  function hrtime(prev) {
    const ms = DateNow() - started;
    let s = MathFloor(ms / 1000), ns = (ms % 1000) * 1e6;
    if (ArrayIsArray(prev)) {
      s -= prev[0];
      ns -= prev[1];
      if (ns < 0) {
        s--;
        ns += 1e9;
      }
    }
    return [s, ns];
  }
  hrtime.bigint = () => BigInt(DateNow() - started) * 1000000n;
  function memoryUsage() {
    return { rss: 50331648, heapTotal: 16777216, heapUsed: 8388608, external: 1048576, arrayBuffers: 16384 };
  }
  memoryUsage.rss = () => 50331648;
  const processObject = {
    title: "node",
    version: NODE_VERSION,
    versions: { node: StringPrototypeSlice(NODE_VERSION, 1), v8: "11.3.244.8-node.28", uv: "1.46.0", zlib: "1.3.0.1-motley",
      modules: "115", napi: "9", unicode: "15.1" },
    release: { name: "node", lts: "Iron" },
    platform: "linux",
    arch: "x64",
    argv: ["/usr/local/bin/node", "/fount/component.mjs"],
    argv0: "node",
    execArgv: [],
    execPath: "/usr/local/bin/node",
    pid: 1,
    ppid: 0,
    exitCode: undefined,
    features: {},
    config: { variables: {} },
    env: {},
    cwd: () => "/",
    chdir() {
      throw new Error("process.chdir() is not supported in fount");
    },
    umask: () => 0o22,
    getuid: () => 1000,
    geteuid: () => 1000,
    getgid: () => 1000,
    getegid: () => 1000,
    uptime: () => (DateNow() - started) / 1000,
    hrtime,
    memoryUsage,
    cpuUsage: () => ({ user: 0, system: 0 }),
    emitWarning(warning, type) {
      const name = warning instanceof Error ? warning.name : typeof type === "string" ? type : (type && type.type) || "Warning";
      const text = warning instanceof Error ? warning.message : String(warning);
      host.log(2, "(node) " + name + ": " + text);
    },
    exit(code) {
      throw new Error("process.exit(" + (code === undefined ? "" : code) + ") is not supported in fount: return from run() instead");
    },
    abort() {
      throw new Error("process.abort() is not supported in fount");
    },
    nextTick(fn, ...args) {
      queueTask(() => ReflectApply(fn, undefined, args));
    },
    // Events: listeners are kept, and never called (no signal, exit or
    // warning event reaches a component).
    on(name, fn) {
      const list = MapPrototypeGet(processListeners, name) || [];
      list[list.length] = fn;
      MapPrototypeSet(processListeners, name, list);
      return this;
    },
    off(name, fn) {
      const list = MapPrototypeGet(processListeners, name) || [];
      const kept = [];
      for (let i = 0; i < list.length; i++) if (list[i] !== fn) kept[kept.length] = list[i];
      MapPrototypeSet(processListeners, name, kept);
      return this;
    },
    listeners: (name) => {
      const list = MapPrototypeGet(processListeners, name) || [];
      const out = [];
      for (let i = 0; i < list.length; i++) out[i] = list[i];
      return out;
    },
    listenerCount: (name) => (MapPrototypeGet(processListeners, name) || []).length,
    emit: () => false,
    removeAllListeners(name) {
      if (name === undefined) processListeners.clear();
      else MapPrototypeDelete(processListeners, name);
      return this;
    },
    stdout: logStream(1, 1),
    stderr: logStream(2, 3),
  };
  processObject.once = processObject.on;
  processObject.addListener = processObject.on;
  processObject.prependListener = processObject.on;
  processObject.removeListener = processObject.off;
  ObjectDefineProperty(processObject, Symbol.toStringTag, { value: "process" });
  globalThis.process = processObject;

  // Error.captureStackTrace is V8's, and libraries call it unguarded (pg
  // on every failed query): here it gives the target a stack of the
  // call site, frames after constructorOpt's when given, in QuickJS's
  // form (frames only, as its own errors have). Where a library sets
  // Error.prepareStackTrace (depd, under express and @slack/bolt, reads
  // the caller's file and line from V8's call sites), the stack is what
  // it makes of call sites read from QuickJS's frames.
  const framePattern = new RegExp("^\\s*at (.*?)(?: \\((.*?)(?::(\\d+))?\\))?$");
  const StringPrototypeSplit = uncurry(String.prototype.split);
  // callSite is a V8 CallSite of one of QuickJS's frames.
  function callSite(fn, file, line) {
    const name = fn === "<anonymous>" ? null : fn;
    const native = file === "native";
    return {
      getFileName: () => (native ? undefined : file),
      getScriptNameOrSourceURL: () => (native ? undefined : file),
      getLineNumber: () => line,
      getColumnNumber: () => (line === null ? null : 1),
      getFunctionName: () => name,
      getMethodName: () => null,
      getTypeName: () => null,
      getThis: () => undefined,
      getFunction: () => undefined,
      getEvalOrigin: () => undefined,
      isEval: () => false,
      isNative: () => native,
      isToplevel: () => name === null,
      isConstructor: () => false,
      isAsync: () => false,
      isPromiseAll: () => false,
      getPromiseIndex: () => null,
      toString: () => (name || "<anonymous>") + " (" + (native ? "native" : file + (line === null ? "" : ":" + line + ":1")) + ")",
    };
  }
  ObjectDefineProperty(Error, "captureStackTrace", {
    value: function captureStackTrace(target, constructorOpt) {
      if (target === null || (typeof target !== "object" && typeof target !== "function")) {
        throw new TypeError("Error.captureStackTrace needs an object");
      }
      const lines = StringPrototypeSplit(new Error().stack || "", "\n");
      const frames = [];
      const texts = [];
      // The first frame is this function's own.
      for (let i = 1; i < lines.length; i++) {
        const m = RegExpPrototypeExec(framePattern, lines[i]);
        if (m === null) continue;
        if (typeof constructorOpt === "function" && constructorOpt.name && m[1] === constructorOpt.name) {
          frames.length = 0;
          texts.length = 0;
          continue;
        }
        ArrayPrototypePush(frames, callSite(m[1], m[2] === undefined ? m[1] : m[2], m[3] === undefined ? null : Number(m[3])));
        ArrayPrototypePush(texts, lines[i]);
      }
      const limit = typeof Error.stackTraceLimit === "number" ? MathMax(0, Error.stackTraceLimit) : 10;
      frames.length = MathMin(frames.length, limit);
      texts.length = frames.length;
      const prepare = Error.prepareStackTrace;
      const stack = typeof prepare === "function" ? prepare(target, frames) : ArrayPrototypeJoin(texts, "\n") + (texts.length ? "\n" : "");
      ObjectDefineProperty(target, "stack", { value: stack, writable: true, configurable: true });
    },
    writable: true,
    configurable: true,
  });
  if (Error.stackTraceLimit === undefined) Error.stackTraceLimit = 10;

  // Methods of ES2022 and ES2023 that Node 20 has and this QuickJS lacks
  // (mongoose calls Object.hasOwn at load; .at and findLast are common):
  // defined as built-ins are, and only where missing.
  function builtinMethod(target, name, fn) {
    if (!ObjectHasOwnProperty(target, name)) ObjectDefineProperty(target, name, { value: fn, writable: true, configurable: true });
  }
  function ObjectHasOwnProperty(o, k) {
    return FunctionPrototypeCall(ObjectHasOwn, o, k);
  }
  function relativeIndex(i, len) {
    const n = Number(i);
    const k = n !== n ? 0 : n < 0 ? -MathFloor(-n) : MathFloor(n); // ToIntegerOrInfinity
    return k < 0 ? len + k : k;
  }
  function lengthOf(o) {
    const n = Number(o.length);
    return n > 0 ? MathMin(MathFloor(n), Number.MAX_SAFE_INTEGER) : 0;
  }
  function callable(f, what) {
    if (typeof f !== "function") throw new TypeError(what + " is not a function");
    return f;
  }
  builtinMethod(Object, "hasOwn", function hasOwn(o, k) {
    if (o === null || o === undefined) throw new TypeError("cannot convert to object");
    return ObjectHasOwnProperty(Object(o), k);
  });
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  function at(i) {
    const o = Object(this), len = lengthOf(o), k = relativeIndex(i, len);
    return k < 0 || k >= len ? undefined : o[k];
  }
  function findLast(predicate, self) {
    const o = Object(this);
    callable(predicate, "predicate");
    for (let k = lengthOf(o) - 1; k >= 0; k--) if (FunctionPrototypeCall(predicate, self, o[k], k, o)) return o[k];
    return undefined;
  }
  function findLastIndex(predicate, self) {
    const o = Object(this);
    callable(predicate, "predicate");
    for (let k = lengthOf(o) - 1; k >= 0; k--) if (FunctionPrototypeCall(predicate, self, o[k], k, o)) return k;
    return -1;
  }
  const ArrayFrom = Array.from, ArrayPrototypeReverse = uncurry(Array.prototype.reverse),
    ArrayPrototypeSplice = uncurry(Array.prototype.splice);
  // copyOf is a new array of an array-like's elements.
  function copyOf(self) {
    const o = Object(self);
    return ArrayFrom({ length: lengthOf(o) }, (_, k) => o[k]);
  }
  for (const target of [Array.prototype, TypedArrayPrototype]) {
    builtinMethod(target, "at", at);
    builtinMethod(target, "findLast", findLast);
    builtinMethod(target, "findLastIndex", findLastIndex);
  }
  builtinMethod(String.prototype, "at", function at(i) {
    if (this === null || this === undefined) throw new TypeError("String.prototype.at called on null or undefined");
    const s = String(this), k = relativeIndex(i, s.length);
    return k < 0 || k >= s.length ? undefined : s[k];
  });
  builtinMethod(Array.prototype, "toReversed", function toReversed() {
    return ArrayPrototypeReverse(copyOf(this));
  });
  builtinMethod(Array.prototype, "toSorted", function toSorted(compare) {
    if (compare !== undefined) callable(compare, "The comparison function");
    return ArrayPrototypeSort(copyOf(this), compare);
  });
  builtinMethod(Array.prototype, "toSpliced", function toSpliced(...args) {
    const copy = copyOf(this);
    ReflectApply(ArrayPrototypeSplice, undefined, [copy, ...args]);
    return copy;
  });
  builtinMethod(Array.prototype, "with", function (i, value) {
    const o = Object(this), len = lengthOf(o), k = relativeIndex(i, len);
    if (k < 0 || k >= len) throw new RangeError("Invalid index : " + i);
    const copy = copyOf(o);
    copy[k] = value;
    return copy;
  });
  ObjectDefineProperty(Array.prototype.with, "name", { value: "with" });
  builtinMethod(TypedArrayPrototype, "toReversed", function toReversed() {
    return new this.constructor(this).reverse();
  });
  builtinMethod(TypedArrayPrototype, "toSorted", function toSorted(compare) {
    if (compare !== undefined) callable(compare, "The comparison function");
    return new this.constructor(this).sort(compare);
  });
  builtinMethod(TypedArrayPrototype, "with", function (i, value) {
    const len = this.length, k = relativeIndex(i, len);
    if (k < 0 || k >= len) throw new RangeError("Invalid typed array index");
    const copy = new this.constructor(this);
    copy[k] = value;
    return copy;
  });
  ObjectDefineProperty(TypedArrayPrototype.with, "name", { value: "with" });
  builtinMethod(String.prototype, "isWellFormed", function isWellFormed() {
    return RegExpPrototypeExec(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/, String(this)) === null;
  });
  builtinMethod(String.prototype, "toWellFormed", function toWellFormed() {
    const s = String(this);
    let out = "";
    for (let i = 0; i < s.length; i++) {
      const c = StringPrototypeCharCodeAt(s, i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && StringPrototypeCharCodeAt(s, i + 1) >= 0xdc00 && StringPrototypeCharCodeAt(s, i + 1) <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else out += c >= 0xd800 && c <= 0xdfff ? "\ufffd" : s[i];
    }
    return out;
  });

  // Globals of Node 20 that this QuickJS lacks and libraries use at load
  // (undici, under cheerio). WeakRef holds its target strongly and
  // FinalizationRegistry never calls back: a call's objects live no
  // longer than its instance, which the host recycles.
  if (typeof globalThis.WeakRef !== "function") {
    globalThis.WeakRef = class WeakRef {
      #target;
      constructor(target) {
        if (target === null || (typeof target !== "object" && typeof target !== "function")) throw new TypeError("WeakRef: invalid target");
        this.#target = target;
      }
      deref() {
        return this.#target;
      }
    };
  }
  if (typeof globalThis.FinalizationRegistry !== "function") {
    globalThis.FinalizationRegistry = class FinalizationRegistry {
      constructor(cleanup) {
        if (typeof cleanup !== "function") throw new TypeError("FinalizationRegistry: cleanup must be callable");
      }
      register() {}
      unregister() {
        return false;
      }
    };
  }
  // performance as Node's global: the call's clock, no entries kept (the
  // perf_hooks module keeps marks).
  const timeOrigin = DateNow();
  globalThis.performance = {
    timeOrigin,
    now: () => DateNow() - timeOrigin,
    mark: (name) => ({ name: String(name), entryType: "mark", startTime: DateNow() - timeOrigin, duration: 0 }),
    measure: (name) => ({ name: String(name), entryType: "measure", startTime: 0, duration: DateNow() - timeOrigin }),
    clearMarks() {},
    clearMeasures() {},
    getEntries: () => [],
    getEntriesByName: () => [],
    getEntriesByType: () => [],
    toJSON: () => ({ timeOrigin }),
  };
  // The call's number, for state that lives within one call (fs's /tmp).
  ObjectDefineProperty(globalThis.process, Symbol.for("fount.call"), { get: () => callSeq });
  // Pipedream's code steps export defineComponent({...}); it only marks
  // the definition.
  globalThis.defineComponent = function defineComponent(d) {
    return d;
  };

  // ---- fetch (only when the host grants egress) ------------------------
  // The standard fetch over the host's; a plain object as the body is
  // sent as JSON (a fount convenience older components rely on).
  globalThis.fetch = async function fetch(input, init) {
    init = ObjectAssign({}, init);
    const b = init.body;
    if (b !== null && typeof b === "object" && ObjectGetPrototypeOf(b) === ObjectPrototype) {
      init.headers = new Headers(init.headers);
      if (!init.headers.has("content-type")) init.headers.set("content-type", "application/json");
      init.body = JSONStringify(b);
    }
    if (!webLoaded) throw new ReferenceError("fetch needs the web globals, which fount loads for code that names fetch");
    const req = new Request(input, init);
    if (req.signal.aborted) throw req.signal.reason;
    const headers = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const msg = { url: req.url, method: req.method, headers };
    const content = req._content();
    if (typeof content === "string") msg.body = content;
    else if (content !== null) {
      msg.body = base64(content); // bytes cross as base64: JSON carries text
      msg.body_encoding = "base64";
    }
    let res;
    try {
      res = hostFetch(msg);
    } catch (e) {
      if (!e || !e.code) throw e; // refused by the policy, or past the call's limits
      // Node's fetch rejects with a TypeError whose cause is the
      // network's error.
      const failed = new TypeError("fetch failed");
      failed.cause = e;
      throw failed;
    }
    if (res.body_encoding === "base64") res.body = unbase64(res.body);
    return Response._fromHost(res, req.url);
  };

  // NODE_ERRNOS are the negative errnos Node gives its network errors.
  const NODE_ERRNOS = { ENOTFOUND: -3008, EAI_AGAIN: -3001, ETIMEDOUT: -110, ECONNREFUSED: -111, ECONNRESET: -104,
    EHOSTUNREACH: -113, ENETUNREACH: -101 };

  // hostFetch sends a request the host's fetch import takes ({url,
  // method, headers, body}: any method may have a body, as Node's http
  // allows) and returns the host's response. A request that failed on
  // its way throws an Error shaped as Node's client errors are (code,
  // errno, syscall, hostname), which node:http throws as it is and
  // fetch as the cause of its TypeError.
  function hostFetch(msg) {
    const res = JSONParse(hostCall("fetch " + msg.url, () => host.fetch(JSONStringify(msg))));
    if (res.error === undefined) return res;
    const code = String(res.error.code);
    const at = RegExpPrototypeExec(/^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d+))?/i, String(msg.url));
    const hostname = at ? at[2] : "";
    const port = at ? (at[3] !== undefined ? Number(at[3]) : StringPrototypeToLowerCase(at[1]) === "https" ? 443 : 80) : 0;
    const syscall = code === "ENOTFOUND" || code === "EAI_AGAIN" ? "getaddrinfo" : "connect";
    // Node names where: the host it could not resolve, or the address
    // and port it could not reach; fount adds the egress policy's words.
    const where = syscall === "connect" && port ? hostname + ":" + port : hostname;
    const err = new Error(syscall + " " + code + " " + where + " (" + String(res.error.message) + ")");
    err.code = code;
    if (NODE_ERRNOS[code] !== undefined) err.errno = NODE_ERRNOS[code];
    err.syscall = syscall;
    if (syscall === "connect" && port) {
      err.address = hostname;
      err.port = port;
    } else {
      err.hostname = hostname;
    }
    throw err;
  }
  ObjectDefineProperty(globalThis.process, Symbol.for("fount.fetch"), { value: hostFetch });

  // ---- compression --------------------------------------------------------
  // node:zlib (bundled with code that imports it) reaches the host's
  // compress import through the symbol below: op's output as bytes, or an
  // Error shaped as Node's zlib errors (code, errno).
  function hostCompress(op, bytes, level) {
    const req = record({ op, data: base64(bytes) });
    if (level !== undefined) req.level = level;
    const reply = JSONParse(hostCall("compress", () => host.compress(JSONStringify(req))));
    if (reply.error) {
      const e = reply.error;
      const err = e.code === "ERR_BUFFER_TOO_LARGE" ? new RangeError(String(e.message)) : new Error(String(e.message));
      err.code = String(e.code);
      if (e.errno !== undefined) err.errno = e.errno;
      throw err;
    }
    return unbase64(reply.bytes || "");
  }
  ObjectDefineProperty(globalThis.process, Symbol.for("fount.compress"), { value: hostCompress });

  // Intl (intl.js, evaluated for code that names it) asks the host's zone
  // database for a zone's offsets at instants through this symbol.
  function hostTZ(zone, times) {
    return JSONParse(hostCall("tz", () => host.tz(JSONStringify(record({ zone: String(zone), times })))));
  }
  ObjectDefineProperty(globalThis.process, Symbol.for("fount.tz"), { value: hostTZ });

  // ---- sockets ------------------------------------------------------------
  // node:net, node:tls and node:dns (bundled with code that imports them)
  // reach the host's net import through the symbol below. Sockets live
  // within one call, as timers do: the host closes them when it ends, and
  // while any is open the event loop waits on the host for their events.
  let netOpen = 0; // sockets node:net holds open in this call
  let netEvents = null; // node:net's handler of the host's socket events
  function hostNet(req) {
    return JSONParse(hostCall("net", () => host.net(JSONStringify(req))));
  }
  ObjectDefineProperty(globalThis.process, Symbol.for("fount.net"), {
    value: ObjectFreeze(record({
      call: hostNet,
      listen(fn) {
        netEvents = fn;
      },
      hold(delta) {
        netOpen += delta;
      },
      // generation numbers the calls: a socket of an earlier call is closed.
      generation: () => callSeq,
    })),
  });

  // ---- crypto -------------------------------------------------------------
  // Hashes, HMACs and random bytes come from the host (the crypto import);
  // node:crypto reaches hostCrypto through the symbol below.
  // unbase64 decodes base64 (padding and stray characters skipped) by a
  // table: the bodies of fetch responses can be megabytes.
  function unbase64(s) {
    const str = String(s);
    let valid = 0;
    for (let i = 0; i < str.length; i++) {
      const c = StringPrototypeCharCodeAt(str, i);
      if (c < 128 && B64_INDEX[c] !== 255) valid++;
    }
    // Exactly as long as the bytes: callers hand out its buffer.
    const out = new Uint8Array((valid * 6) >> 3);
    let acc = 0, bits = 0, n = 0;
    for (let i = 0; i < str.length; i++) {
      const c = StringPrototypeCharCodeAt(str, i);
      const v = c < 128 ? B64_INDEX[c] : 255;
      if (v === 255) continue;
      acc = ((acc << 6) | v) & 0xffffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[n++] = (acc >> bits) & 255;
      }
    }
    return out;
  }
  function hostCryptoReply(req) {
    return JSONParse(hostCall("crypto", () => host.crypto(JSONStringify(req))));
  }
  function hostCrypto(req) {
    return unbase64(hostCryptoReply(req).bytes);
  }
  function viewBytes(v) {
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (ArrayBufferIsView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    throw new TypeError("The data must be an ArrayBuffer or an ArrayBufferView");
  }
  const SUBTLE_ALGS = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
  const cryptoGlobal = {
    getRandomValues(arr) {
      if (!ArrayBufferIsView(arr) || arr instanceof DataView || arr instanceof Float32Array || arr instanceof Float64Array) {
        throw new TypeError("The data argument must be an integer-type TypedArray");
      }
      if (arr.byteLength > 65536) throw new RangeError("The ArrayBufferView's byte length (" + arr.byteLength + ") exceeds the number of bytes of entropy available via this API (65536)");
      TypedArrayPrototypeSet(viewBytes(arr), hostCrypto({ op: "random", size: arr.byteLength }));
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
  ObjectDefineProperty(cryptoGlobal, Symbol.for("fount.crypto"), { value: hostCrypto });
  // node:crypto's keys and signatures read the whole reply.
  ObjectDefineProperty(cryptoGlobal, Symbol.for("fount.crypto.reply"), { value: hostCryptoReply });
  globalThis.crypto = cryptoGlobal;

  // ---- helpers -----------------------------------------------------------
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const B64_INDEX = new Uint8Array(128); // made before any component code runs
  for (let i = 0; i < 128; i++) B64_INDEX[i] = 255;
  for (let i = 0; i < 64; i++) B64_INDEX[StringPrototypeCharCodeAt(B64, i)] = i;
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
      const out = record({ name: String(e.name || "Error"), message: String(e.message), stack: String(e.stack || "") });
      const code = e.code;
      if ((typeof code === "string" && code !== "") || typeof code === "number") out.code = String(code);
      if (e instanceof SyntaxError) {
        const m = RegExpPrototypeExec(/:(\d+)/, out.stack);
        if (m) out.line = Number(m[1]);
      }
      return out;
    }
    return record({ name: "Error", message: String(e), stack: "" });
  }

  function toJSON(what, v) {
    let s;
    try {
      s = JSONStringify(v);
    } catch (e) {
      throw new TypeError(what + " is not JSON-serializable: " + e.message);
    }
    return s;
  }

  // stringValues copies an object's own fields with their values as
  // strings (headers).
  function stringValues(o) {
    const out = {};
    const names = keysOf(o);
    for (let i = 0; i < names.length; i++) out[names[i]] = String(o[names[i]]);
    return out;
  }

  // bindMethods puts each function of methods on target, bound to on.
  function bindMethods(target, methods, on) {
    const names = keysOf(methods);
    for (let i = 0; i < names.length; i++) {
      const fn = methods[names[i]];
      if (typeof fn === "function") target[names[i]] = FunctionPrototypeBind(fn, on);
    }
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
    const s = String(name);
    return s[0] === "." && s[1] === "/" ? StringPrototypeSlice(s, 2) : s;
  }

  function looksLikeESM(code) {
    return RegExpPrototypeExec(/(^|[\n;])\s*(import\s*[\w{*'"]|export\s+(default|const|let|var|function|class|async|\{|\*))/, code) !== null;
  }

  function requireFrom(base) {
    return function require(name) {
      let key = normalize(name);
      if (FunctionPrototypeCall(ObjectHasOwn, cjsCache, key)) return cjsCache[key].exports;
      if (!FunctionPrototypeCall(ObjectHasOwn, bundled, key)) {
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
    FunctionPrototypeCall(fn, module.exports, module.exports, requireFrom(filename), module, filename, "/");
  }

  function loadDefinition(msg) {
    bundled = {};
    const modules = msg.modules || {};
    const names = keysOf(modules);
    for (let i = 0; i < names.length; i++) bundled[normalize(names[i])] = modules[names[i]];
    const filename = normalize(msg.filename || "component.mjs");
    const code = String(msg.code || "");
    bundled[filename] = code;
    loadWeb(msg.web);
    loadIntl(msg.intl);
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
        host.evalModule("import * as ns from " + JSONStringify(filename) + "; globalThis.__fount_loaded(ns);", "fount:loader");
      } finally {
        delete globalThis.__fount_loaded;
      }
    } else {
      const module = { exports: {} };
      cjsCache[filename] = module;
      evalCJS(code, filename, module);
      loaded = module.exports;
      if (loaded && typeof loaded === "object" && ObjectKeys(loaded).length === 0 && ObjectGetPrototypeOf(loaded) === ObjectPrototype) {
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
      throw new TypeError('the component type must be "source" or "action", not ' + JSONStringify(d.type));
    }
    if (d.dedupe !== undefined && !includes(DEDUPE, d.dedupe)) {
      throw new TypeError('dedupe must be "unique", "greatest" or "last", not ' + JSONStringify(d.dedupe));
    }
    const props = d.props || {};
    const names = keysOf(props);
    for (let i = 0; i < names.length; i++) resolveProp(names[i], props[names[i]]);
  }

  // resolveProp returns the prop with its propDefinition merged in.
  function resolveProp(name, p) {
    if (typeof p === "string") p = { type: p }; // shorthand: db: "$.service.db"
    if (p === null || typeof p !== "object") throw new TypeError("prop " + name + " must be an object or a type name");
    let prop = p;
    if (ArrayIsArray(p.propDefinition)) {
      const app = p.propDefinition[0], defName = p.propDefinition[1];
      const base = app && app.propDefinitions && app.propDefinitions[defName];
      if (!base) throw new TypeError("prop " + name + ": propDefinition " + String(defName) + " is not defined by its app");
      prop = ObjectAssign({}, base, p);
      prop.__app = app;
    }
    if (typeof prop.type !== "string" || !SetPrototypeHas(KNOWN_TYPES, prop.type)) {
      throw new TypeError("prop " + name + " has unknown type " + JSONStringify(prop.type));
    }
    if (prop.min !== undefined && !NumberIsSafeInteger(prop.min)) throw new TypeError("prop " + name + ": min must be an integer");
    if (prop.max !== undefined && !NumberIsSafeInteger(prop.max)) throw new TypeError("prop " + name + ": max must be an integer");
    return prop;
  }

  // ---- introspection -----------------------------------------------------
  function describeProp(name, p) {
    const prop = resolveProp(name, p);
    const out = { name, type: prop.type };
    for (let i = 0; i < DESCRIBED.length; i++) {
      const f = DESCRIBED[i];
      if (prop[f] !== undefined && typeof prop[f] !== "function") out[f] = prop[f];
    }
    if (prop.default !== undefined) out.default = prop.default;
    if (ArrayIsArray(prop.options)) out.options = prop.options;
    else if (typeof prop.options === "function") out.remoteOptions = true;
    if (p && ArrayIsArray(p.propDefinition)) {
      const app = p.propDefinition[0];
      out.propDefinition = [(app && app.app) || "", p.propDefinition[1]];
    }
    return out;
  }

  // DESCRIBED are the fields of a prop that describe it.
  const DESCRIBED = ["label", "description", "optional", "secret", "min", "max", "reloadProps", "customResponse", "app",
    "alertType", "content"];

  function describeProps(props) {
    const names = keysOf(props);
    const out = [];
    for (let i = 0; i < names.length; i++) out[i] = describeProp(names[i], props[names[i]]);
    return out;
  }

  function describe(d) {
    const props = describeProps(d.props || {});
    const hooks = [];
    for (let i = 0; i < HOOKS.length; i++) if (d.hooks && typeof d.hooks[HOOKS[i]] === "function") hooks[hooks.length] = HOOKS[i];
    const out = {
      // A code step needs no name or version; it is named by its step.
      name: typeof d.name === "string" && d.name !== "" ? d.name : "step",
      version: typeof d.version === "string" && d.version !== "" ? d.version : "0.0.0",
      type: d.type || "source", // a step's explicit "source" was refused on load
      hooks,
      configurable_props: props,
      has_additional_props: typeof d.additionalProps === "function",
    };
    if (typeof d.key === "string") out.key = d.key;
    if (typeof d.description === "string") out.description = d.description;
    if (typeof d.dedupe === "string") out.dedupe = d.dedupe;
    return out;
  }

  // ---- building `this` ---------------------------------------------------
  // emitTime is an emit's ts or delivery_ts as the host takes it, epoch
  // milliseconds: a Date gives its time, as Pipedream takes one (an
  // invalid Date is refused, naming the field); anything else goes as it
  // is, for the host to check. A Date is told by the intrinsic getTime,
  // which only a Date's slot answers, not by instanceof, which code can
  // redefine.
  function emitTime(v, field) {
    if (v === null || typeof v !== "object") return v;
    let t;
    try {
      t = DatePrototypeGetTime(v);
    } catch {
      return v;
    }
    if (!NumberIsFinite(t)) throw new TypeError("$emit: meta." + field + " is an invalid Date");
    return t;
  }

  // emit is on the path of nearly every call: it spells out each field
  // rather than loop over their names, which costs several times more in
  // the sandbox.
  function emit(event, meta) {
    const payload = ObjectCreate(null); // see record
    if (event !== undefined) payload.event = event;
    if (meta) {
      if (meta.id !== undefined) payload.id = meta.id;
      if (meta.name !== undefined) payload.name = meta.name;
      if (meta.summary !== undefined) payload.summary = meta.summary;
      if (meta.ts !== undefined) payload.ts = emitTime(meta.ts, "ts");
      if (meta.delivery_ts !== undefined) payload.delivery_ts = emitTime(meta.delivery_ts, "delivery_ts");
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
    if (!NumberIsInteger(status) || status < 100 || status > 599) {
      throw new RangeError("respond() status must be an integer from 100 to 599, got " + JSONStringify(status));
    }
    const out = { status, headers: stringValues(r.headers) };
    if (r.immediate === true) out.immediate = true;
    const body = r.body;
    if (body === undefined || body === null) {
      // no body
    } else if (typeof body === "string") {
      out.body = body;
    } else if (body instanceof ArrayBuffer || ArrayBufferIsView(body)) {
      const bytes = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      out.body = base64(bytes);
      out.body_encoding = "base64";
    } else {
      out.body = toJSON("the respond() body", body);
      const names = keysOf(out.headers);
      let typed = false;
      for (let i = 0; i < names.length; i++) typed = typed || StringPrototypeToLowerCase(names[i]) === "content-type";
      if (!typed) out.headers["content-type"] = "application/json";
    }
    hostCall("respond", () => host.respond(JSONStringify(out)));
  }

  function makeDB() {
    return {
      get(key) {
        const s = hostCall("db.get", () => host.dbGet(String(key)));
        return s === undefined ? undefined : JSONParse(s);
      },
      set(key, value) {
        const s = toJSON("the db value", value);
        if (s === undefined) throw new TypeError("db.set: the value is not JSON-serializable");
        hostCall("db.set", () => host.dbSet(String(key), s));
      },
    };
  }

  // makeDataStore is a data_store prop: the account's data store the
  // prop is configured with, which the host picks (the guest only names
  // the prop). Its methods are async, as Pipedream's are.
  function makeDataStore(propName) {
    const call = (req) => {
      req.prop = propName;
      const reply = JSONParse(hostCall("data store " + propName, () => host.store(JSONStringify(req))));
      if (reply.error) throw new Error(reply.error);
      return reply;
    };
    const valueOf = (v) => {
      const s = toJSON("the data store value", v);
      if (s === undefined) throw new TypeError("data store " + propName + ": the value is not JSON-serializable");
      return JSONParse(s);
    };
    const ttlOf = (ttl) => {
      const n = Number(ttl);
      if (!NumberIsFinite(n) || n <= 0) throw new RangeError("data store " + propName + ": ttl is a number of seconds above 0");
      return MathMax(1, MathFloor(n));
    };
    const store = {
      async get(key) {
        const r = call({ op: "get", key: String(key) });
        return r.found ? r.value : undefined;
      },
      async set(key, value, opts) {
        const req = { op: "set", key: String(key), value: valueOf(value) };
        if (opts && opts.ttl !== undefined && opts.ttl !== null) req.ttl = ttlOf(opts.ttl);
        call(req);
      },
      async setTtl(key, ttl) {
        const r = call({ op: "get", key: String(key) });
        if (!r.found) return false;
        const req = { op: "set", key: String(key), value: r.value };
        if (ttl !== undefined && ttl !== null) req.ttl = ttlOf(ttl);
        call(req);
        return true;
      },
      async has(key) {
        return !!call({ op: "has", key: String(key) }).found;
      },
      async delete(key) {
        call({ op: "delete", key: String(key) });
      },
      async keys() {
        return call({ op: "keys" }).keys || [];
      },
      async entries() {
        return call({ op: "entries" }).entries || [];
      },
      async clear() {
        call({ op: "clear" });
      },
    };
    return store;
  }

  function makeApp(propName, prop) {
    const app = { app: prop.app, propDefinitions: prop.propDefinitions || {} };
    bindMethods(app, prop.methods, app);
    // Credentials are fetched on first use in each call and never kept
    // past it: a warm instance must not see revoked or rotated tokens, nor
    // reach them in a call that was granted no auth.
    let auth, authCall = -1;
    ObjectDefineProperty(app, "$auth", {
      enumerable: false, // not fetched by JSON.stringify or Object.assign
      get() {
        if (authCall !== callSeq) {
          auth = JSONParse(hostCall("$auth", () => host.auth(propName)));
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
    const req = ObjectAssign({ method: "GET", headers: [], params: [] }, cfg);
    req.execute = async function execute(overrides) {
      const c = ObjectAssign({}, req, overrides || {});
      const url = new URL(String(c.url || ""));
      const params = pairs(c.params);
      for (let i = 0; i < params.length; i++) url.searchParams.append(params[i][0], params[i][1]);
      const headers = new Headers(pairs(c.headers));
      const init = { method: StringPrototypeToUpperCase(String(c.method || "GET")), headers };
      const body = c.body;
      if (body !== undefined && body !== null && body !== "" && init.method !== "GET" && init.method !== "HEAD") {
        if (typeof body === "string") init.body = body;
        else if (body.mode === "raw" || (body.raw !== undefined && !body.fields)) init.body = String(body.raw || "");
        else {
          const type = body.contentType || "application/json";
          if (!headers.has("content-type")) headers.set("content-type", type);
          const fields = pairs(body.fields);
          const asObject = {};
          for (let i = 0; i < fields.length; i++) asObject[fields[i][0]] = fields[i][1];
          init.body = RegExpPrototypeExec(/x-www-form-urlencoded/, type) !== null ? new URLSearchParams(fields).toString() : JSONStringify(asObject);
        }
      }
      const res = await fetch(url.href, init);
      const text = await res.text();
      let data = text;
      if (RegExpPrototypeExec(/json/, res.headers.get("content-type") || "") !== null) {
        try {
          data = JSONParse(text);
        } catch (_) {}
      }
      const resHeaders = {};
      res.headers.forEach((v, k) => (resHeaders[k] = v));
      const out = { status: res.status, statusText: res.statusText, headers: resHeaders, data };
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
    const out = [];
    if (ArrayIsArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const p = v[i];
        if (p && p.name) out[out.length] = [String(p.name), String(p.value === undefined ? "" : p.value)];
      }
      return out;
    }
    const names = keysOf(v);
    for (let i = 0; i < names.length; i++) out[i] = [names[i], String(v[names[i]])];
    return out;
  }

  function propValue(name, prop, configured) {
    switch (prop.type) {
      case "app":
        return makeApp(name, prop);
      case "$.service.db":
        return makeDB();
      case "data_store":
        return makeDataStore(name);
      case "http_request":
        return makeHTTPRequest(ObjectAssign({}, prop.default || {}, configured || {}));
      case "$.interface.apphook": // an endpoint for the app's webhooks (docs/runtime.md)
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
      case "alert":
        return undefined; // a note for whoever configures the component
      case "dir": // the call's scratch directory: fount has no File Stash to sync it with
        return "/tmp";
      case "sql": { // as Pipedream gives it: {query, params}; the host stores it so, a default or a template may be text
        const v = configured !== undefined ? configured : prop.default;
        return typeof v === "string" ? { query: v, params: [] } : v;
      }
      default:
        return configured !== undefined ? configured : prop.default;
    }
  }

  function buildThis(d, configured) {
    const t = {};
    const props = d.props || {};
    const names = keysOf(props);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      t[name] = propValue(name, resolveProp(name, props[name]), configured[name]);
    }
    // Props that additionalProps added are not declared: the host checked
    // their values against what the method returned, and they are plain.
    const added = keysOf(configured);
    for (let i = 0; i < added.length; i++) {
      if (!(added[i] in t)) t[added[i]] = configured[added[i]];
    }
    bindMethods(t, d.methods, t);
    ObjectDefineProperty(t, "$emit", { value: emit });
    return t;
  }

  // ---- one call ------------------------------------------------------------
  let settled = true;
  let outcome = null;
  let exportsOut = null;
  let sendsOut = null; // this call's $.send.http and $.send.sse requests
  let stepMode = false; // loaded as a workflow step
  let configuredProps = {};
  let flowOut = null; // this call's $.flow.delay, suspend or rerun
  let stepCall = null; // the run event of the step call in progress

  const MAX_FLOW_MS = 366 * 24 * 3600 * 1000; // abi.MaxFlowMs
  const SUSPEND_TIMEOUT_MS = 24 * 3600 * 1000;
  const DEFAULT_MAX_RERUNS = 10;

  function flowMs(what, ms) {
    const n = Number(ms);
    if (!NumberIsFinite(n) || n < 0 || n > MAX_FLOW_MS) throw new RangeError("$.flow." + what + " needs a time in milliseconds from 0 to " + MAX_FLOW_MS + " (a year), not " + String(ms));
    return MathFloor(n);
  }

  // pause ends the execution's run after this step: the engine keeps it
  // and goes on when its time comes or its resume URL is called. The
  // URLs' secret comes from the host's randomness.
  function pause(flow) {
    if (!stepMode) throw new Error("$.flow." + flow.kind + " is only available in workflow steps");
    if (flowOut !== null) throw new Error("a step pauses its execution once: it called $.flow." + flowOut.kind + " already");
    if (!stepCall || typeof stepCall.flow_url !== "string") throw new Error("$.flow." + flow.kind + " pauses a workflow's execution: it does nothing in a test run of a step");
    const b64 = base64(hostCrypto({ op: "random", size: 24 })); // 24 bytes: no padding
    let secret = "";
    for (let i = 0; i < b64.length; i++) secret += b64[i] === "+" ? "-" : b64[i] === "/" ? "_" : b64[i];
    flow.secret = secret;
    flowOut = flow;
    const base = String(stepCall.flow_url) + "/" + secret;
    return { resume_url: base + "/resume", cancel_url: base + "/cancel" };
  }

  function send(kind, x) {
    if (x === null || typeof x !== "object") throw new TypeError("$.send." + kind + "() needs an object");
    if (sendsOut.length >= MAX_SENDS) throw new RangeError("a step may call $.send.http, $.send.sse and $.send.s3 at most " + MAX_SENDS + " times");
    let out;
    if (kind === "http") {
      if (typeof x.url !== "string" || x.url === "") throw new TypeError("$.send.http() needs a url");
      out = { kind, url: x.url, method: StringPrototypeToUpperCase(String(x.method || "POST")) };
      if (x.headers !== undefined) out.headers = stringValues(x.headers);
      if (x.params !== undefined) {
        const u = new URLish(out.url);
        const params = x.params, names = keysOf(params);
        for (let i = 0; i < names.length; i++) u.add(names[i], String(params[names[i]]));
        out.url = u.toString();
      }
      if (x.data !== undefined) out.body = typeof x.data === "string" ? x.data : toJSON("the $.send.http data", x.data);
    } else if (kind === "s3") {
      // The bucket is the operator's (the engine checks the name given);
      // the object is the payload as JSON.
      out = { kind, prefix: x.prefix === undefined ? "" : String(x.prefix), payload: JSONParse(toJSON("the $.send.s3 payload", x.payload === undefined ? null : x.payload)) };
      // As abi.ValidS3Prefix checks it again on the host.
      if (out.prefix.length > 512 || RegExpPrototypeExec(/[^A-Za-z0-9\-_.\/!()*']|(^|\/)\.{1,2}(\/|$)|\/\/|^\//, out.prefix) !== null) {
        throw new TypeError("$.send.s3() prefix " + JSONStringify(out.prefix) + " may hold letters, digits and -_./!()*', with no empty, . or .. segment, 512 bytes at most");
      }
      if (x.bucket !== undefined) out.bucket = String(x.bucket);
    } else {
      out = { kind, channel: x.channel === undefined ? "" : String(x.channel), payload: JSONParse(toJSON("the $.send.sse payload", x.payload === undefined ? null : x.payload)) };
    }
    sendsOut[sendsOut.length] = out;
  }

  // URLish appends query parameters to a URL without a URL global.
  class URLish {
    constructor(url) {
      this.url = url;
    }
    add(k, v) {
      const at = StringPrototypeIndexOf(this.url, "#");
      const base = at < 0 ? this.url : StringPrototypeSlice(this.url, 0, at);
      const hash = at < 0 ? undefined : StringPrototypeSlice(this.url, at + 1);
      const sep = StringPrototypeIndexOf(base, "?") >= 0 ? "&" : "?";
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
        let fn = MapPrototypeGet(compiledExprs, expr);
        if (fn === undefined) {
          fn = new Function("steps", "return (" + expr + ");");
          if (MapPrototypeSize(compiledExprs) < 1000) MapPrototypeSet(compiledExprs, expr, fn);
        }
        return fn(steps);
      } catch (e) {
        throw new Error("prop " + prop + ": the expression {{" + expr + "}} failed: " + e.message);
      }
    };
    const t = templates || {};
    const names = keysOf(t);
    for (let n = 0; n < names.length; n++) {
      const name = names[n], v = t[name];
      const whole = RegExpPrototypeExec(/^\s*\{\{([\s\S]*?)\}\}\s*$/, v);
      if (whole && StringPrototypeIndexOf(whole[1], "}}") < 0) {
        out[name] = evalExpr(name, whole[1]);
        continue;
      }
      // Each {{...}} in turn, as String.prototype.replace with /g would.
      const re = /\{\{([\s\S]*?)\}\}/g;
      let text = "", last = 0, m;
      while ((m = RegExpPrototypeExec(re, v)) !== null) {
        const r = evalExpr(name, m[1]);
        text += StringPrototypeSlice(v, last, m.index) + (typeof r === "string" ? r : JSONStringify(r));
        last = re.lastIndex;
      }
      out[name] = text + StringPrototypeSlice(v, last);
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
        delay(ms) {
          return pause(record({ kind: "delay", ms: flowMs("delay", ms) }));
        },
        suspend(timeout) {
          return pause(record({ kind: "suspend", ms: timeout === undefined ? SUSPEND_TIMEOUT_MS : flowMs("suspend", timeout) }));
        },
        rerun(delay, context, maxReruns) {
          const max = maxReruns === undefined ? DEFAULT_MAX_RERUNS : Number(maxReruns);
          if (!NumberIsInteger(max) || max < 0 || max > 10000) throw new RangeError("$.flow.rerun's maxReruns must be an integer from 0 to 10000");
          const run = (stepCall && stepCall.run) || { runs: 1 };
          if (run.runs > max) throw new Error("$.flow.rerun: the step ran " + run.runs + " times, past its maxReruns of " + max);
          const flow = record({ kind: "rerun", ms: flowMs("rerun", delay === undefined ? 0 : delay) });
          if (context !== undefined) flow.context = JSONParse(toJSON("the $.flow.rerun context", context));
          flow.max_reruns = max;
          return pause(flow);
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
        s3(x) {
          if (!stepMode) throw new Error("$.send.s3 is only available in workflow steps");
          send("s3", x);
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
      const values = evalTemplates(ev.templates, steps);
      const names = keysOf(values);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        // A prop that additionalProps added is plain, as in buildThis.
        const declared = def.props && ObjectHasOwnProperty(def.props, name);
        self[name] = declared ? propValue(name, resolveProp(name, def.props[name]), values[name]) : values[name];
      }
    }
    const on = self;
    stepCall = ev;
    if (stepDollar === null) {
      stepDollar = makeDollar(true);
      // Older Pipedream steps call $send.emit() as a global.
      ObjectDefineProperty(globalThis, "$send", { value: stepDollar.send, configurable: true });
      // $.context is the trigger's context with this run's count, a
      // rerun's context and the request that called its resume URL; made
      // when read, as few steps read it.
      ObjectDefineProperty(stepDollar, "context", {
        enumerable: true,
        get() {
          const c = ObjectAssign({}, (stepCall.steps && stepCall.steps.trigger && stepCall.steps.trigger.context) || {});
          c.run = ObjectAssign({ runs: 1 }, stepCall.run || {});
          return c;
        },
      });
    }
    return await FunctionPrototypeCall(def.run, on, { steps, $: stepDollar });
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
        process.env = ObjectFreeze(ObjectAssign({}, msg.env || {}));
        configuredProps = msg.props || {};
        self = buildThis(def, configuredProps);
        return describe(def);
      case "introspect":
        return describe(loadDefinition(msg));
      case "run":
        needLoaded();
        if (stepMode) return runStep(msg.event || {});
        if (def.type === "action") return FunctionPrototypeCall(def.run, self, { $: makeDollar(), steps: (msg.event && msg.event.steps) || {} });
        return FunctionPrototypeCall(def.run, self, msg.event === undefined ? {} : msg.event);
      case "hook": {
        needLoaded();
        if (!includes(HOOKS, msg.hook)) throw new TypeError("unknown hook " + JSONStringify(msg.hook));
        const h = def.hooks && def.hooks[msg.hook];
        return typeof h === "function" ? FunctionPrototypeCall(h, self) : undefined;
      }
      case "options":
        needLoaded();
        return propOptions(msg);
      case "additionalProps":
        needLoaded();
        return additionalProps();
      default:
        throw new TypeError("unknown operation " + JSONStringify(msg.op));
    }
  }

  // propOptions runs the options of a declared prop, or of one that
  // additionalProps adds for the props configured so far.
  async function propOptions(msg) {
    let raw = def.props && ObjectHasOwnProperty(def.props, msg.prop) ? def.props[msg.prop] : undefined;
    if (!raw && typeof def.additionalProps === "function") {
      const extra = await addedPropsOf();
      if (ObjectHasOwnProperty(extra, msg.prop)) raw = extra[msg.prop];
    }
    if (!raw) throw new TypeError("the component has no prop " + JSONStringify(msg.prop));
    const prop = resolveProp(msg.prop, raw);
    if (ArrayIsArray(prop.options)) return prop.options;
    if (typeof prop.options !== "function") throw new TypeError("prop " + msg.prop + " has no options");
    // Options of a propDefinition run with `this` bound to its app, as
    // the app's own methods do.
    let on = self;
    if (prop.__app) {
      const names = keysOf(def.props);
      let appName;
      for (let i = 0; i < names.length && appName === undefined; i++) if (def.props[names[i]] === prop.__app) appName = names[i];
      on = appName ? self[appName] : makeApp(msg.prop, prop.__app);
    }
    // A propDefinition's third element maps the configured props to
    // the values its options need (Pipedream's
    // [app, "channel", (c) => ({ teamId: c.team })]): they come with
    // the page.
    const arg = { page: msg.page || 0, prevContext: msg.prevContext || "" };
    const inputs = ArrayIsArray(raw.propDefinition) ? raw.propDefinition[2] : undefined;
    if (typeof inputs === "function") ObjectAssign(arg, FunctionPrototypeCall(inputs, on, configuredProps) || {});
    return FunctionPrototypeCall(prop.options, on, arg);
  }

  // addedPropsOf is what the component's additionalProps returns, as it
  // returns it.
  async function addedPropsOf() {
    return (await FunctionPrototypeCall(def.additionalProps, self, def.props || {})) || {};
  }

  async function additionalProps() {
    if (typeof def.additionalProps !== "function") return [];
    return describeProps(await addedPropsOf());
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
      if (err instanceof FlowExit) return record({ ok: true, exit: err.reason });
      return record({ ok: false, error: serializeError(err) });
    } catch (e) {
      return record({ ok: false, error: record({ name: "Error", message: "the call threw a value that cannot be read", stack: "" }) });
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
    const msg = JSONParse(text);
    const seq = ++callSeq;
    timers = new Map();
    timerCount = 0;
    netOpen = 0;
    settled = false;
    outcome = null;
    exportsOut = {};
    sendsOut = [];
    flowOut = null;
    if (msg.memory_limit) host.setMemoryLimit(msg.memory_limit);
    open = true;
    const ok = (value) => {
      const o = ObjectCreate(null); // see record; spelled out, as ok ends nearly every call
      o.ok = true;
      o.value = value;
      finish(o, seq);
    };
    const fail = (err) => finish(failure(err), seq);
    try {
      const value = perform(msg);
      if (value instanceof Promise) {
        // As await does: the promise's own then, if it has one, is not used.
        PromisePrototypeThen(value, ok, fail);
        return;
      }
      const then = value !== null && (typeof value === "object" || typeof value === "function") ? value.then : undefined;
      if (typeof then !== "function") {
        ok(value);
        return;
      }
      PromisePrototypeThen(new Promise((resolve, reject) => FunctionPrototypeCall(then, value, resolve, reject)), ok, fail);
    } catch (err) {
      fail(err);
    }
  }

  // nextTimer is the time in ms until the next timer is due.
  function nextTimer() {
    let next = Infinity;
    MapPrototypeForEach(timers, (t) => {
      next = MathMin(next, t.at);
    });
    return MathMax(0, MathMin(next - DateNow(), 1 << 30));
  }

  // pollNet waits on the host for socket events until the next timer, and
  // hands them to node:net. 0 lets the loop run jobs and fire timers; the
  // call's deadline ends it through the host's sleep.
  function pollNet() {
    let reply;
    try {
      reply = JSONParse(host.net(JSONStringify(record({ op: "poll", wait: timerCount > 0 ? nextTimer() : 1 << 30 }))));
    } catch (e) {
      if (e && e.hostCode === -6) return 1;
      finish(failure(hostError("net", e)), callSeq);
      return -1;
    }
    if (reply.events && netEvents) {
      try {
        netEvents(reply.events);
      } catch (err) {
        finish(failure(err), callSeq);
      }
    }
    return 0;
  }

  function poll() {
    if (settled) return -1;
    if (netOpen > 0) return pollNet();
    if (timerCount === 0) {
      finish(record({ ok: false, unsettled: true, error: record({ name: "Error", message: "the call returned a promise that never settles (no timer or socket is pending)", stack: "" }) }), callSeq);
      return -1;
    }
    return nextTimer();
  }

  function fire() {
    const now = DateNow();
    const due = [];
    MapPrototypeForEach(timers, (t) => {
      if (t.at <= now) ArrayPrototypePush(due, t);
    });
    ArrayPrototypeSort(due, (a, b) => (b.immediate === true) - (a.immediate === true) || a.at - b.at || a.seq - b.seq);
    for (let i = 0; i < due.length; i++) {
      const t = due[i];
      if (!MapPrototypeDelete(timers, t.seq)) continue; // cleared by an earlier callback
      timerCount--;
      if (t.every) {
        t.at = now + t.every;
        MapPrototypeSet(timers, t.seq, t);
        timerCount++;
      }
      try {
        ReflectApply(t.fn, undefined, t.args);
      } catch (err) {
        finish(failure(err), callSeq);
      }
    }
  }

  function result() {
    open = false;
    const o = outcome || record({ ok: false, error: record({ name: "Error", message: "the call did not settle", stack: "" }) });
    if (timerCount > 0) {
      o.dropped = timerCount;
      timers = new Map();
      timerCount = 0;
    }
    if (keysOf(exportsOut).length > 0) o.exports = exportsOut;
    if (sendsOut && sendsOut.length > 0) o.sends = sendsOut;
    if (flowOut !== null && o.ok) o.flow = flowOut;
    // Most runs return nothing: their result needs no JSON.stringify.
    if (o.ok && o.value === undefined && o.exit === undefined && o.dropped === undefined && o.exports === undefined && o.sends === undefined && o.flow === undefined) {
      return '{"ok":true}';
    }
    try {
      return JSONStringify(o);
    } catch (e) {
      return JSONStringify(record({ ok: false, error: record({ name: "TypeError", message: "the return value is not JSON-serializable: " + String(e && e.message), stack: "" }) }));
    }
  }

  host.register({ dispatch, poll, fire, result });
})();
