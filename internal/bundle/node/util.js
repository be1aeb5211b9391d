// node:util for fount: the parts of Node's util that components use.
// Written for fount (the util polyfill on npm pulls in a dozen packages
// for type checks QuickJS can do itself).
const formatRe = /%[sdifjoOc%]/g;

export function inspect(value, opts) {
  const seen = new Set();
  const depthMax = opts && opts.depth !== undefined ? opts.depth : 2;
  function fmt(v, depth) {
    if (v === null) return "null";
    switch (typeof v) {
      case "string":
        return "'" + v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
      case "undefined":
      case "number":
      case "boolean":
        return Object.is(v, -0) ? "-0" : String(v);
      case "bigint":
        return v + "n";
      case "symbol":
        return v.toString();
      case "function":
        return "[Function: " + (v.name || "(anonymous)") + "]" + (Object.keys(v).length ? " " + fmtObject(v, depth) : "");
    }
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Error) return v.stack || v.name + ": " + v.message;
    if (seen.has(v)) return "[Circular *1]";
    if (depth > depthMax) return Array.isArray(v) ? "[Array]" : "[Object]";
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        if (v.length === 0) return "[]";
        return "[ " + v.map((x) => fmt(x, depth + 1)).join(", ") + " ]";
      }
      if (v instanceof Map) return "Map(" + v.size + ") {" + (v.size ? " " + [...v].map(([k, x]) => fmt(k, depth + 1) + " => " + fmt(x, depth + 1)).join(", ") + " " : "") + "}";
      if (v instanceof Set) return "Set(" + v.size + ") {" + (v.size ? " " + [...v].map((x) => fmt(x, depth + 1)).join(", ") + " " : "") + "}";
      return fmtObject(v, depth);
    } finally {
      seen.delete(v);
    }
  }
  function key(k) {
    return /^[A-Za-z_$][\w$]*$/.test(k) ? k : "'" + k + "'";
  }
  function fmtObject(v, depth) {
    const keys = Object.keys(v);
    const ctor = v.constructor && v.constructor.name;
    const prefix = typeof v === "function" || !ctor || ctor === "Object" ? "" : ctor + " ";
    if (keys.length === 0) return prefix + "{}";
    return prefix + "{ " + keys.map((k) => key(k) + ": " + fmt(v[k], depth + 1)).join(", ") + " }";
  }
  return fmt(value, 0);
}
inspect.custom = Symbol.for("nodejs.util.inspect.custom");

export function format(f, ...args) {
  if (typeof f !== "string") return [f, ...args].map((a) => (typeof a === "string" ? a : inspect(a))).join(" ");
  let i = 0;
  let out = f.replace(formatRe, (m) => {
    if (m === "%%") return "%";
    if (i >= args.length) return m;
    const a = args[i++];
    switch (m) {
      case "%s":
        return typeof a === "string" ? a : typeof a === "bigint" ? a + "n" : typeof a === "object" && a !== null ? inspect(a, { depth: 0 }) : String(a);
      case "%d":
        return typeof a === "bigint" ? a + "n" : typeof a === "object" && a !== null ? "NaN" : String(Number(a));
      case "%i":
        return typeof a === "bigint" ? a + "n" : String(parseInt(a, 10));
      case "%f":
        return String(parseFloat(a));
      case "%j":
        try {
          return JSON.stringify(a);
        } catch {
          return "[Circular]";
        }
      case "%o":
      case "%O":
        return inspect(a);
      case "%c":
        return "";
    }
    return m;
  });
  for (; i < args.length; i++) out += " " + (typeof args[i] === "string" ? args[i] : inspect(args[i]));
  return out;
}

export function inherits(ctor, superCtor) {
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const customPromisify = Symbol.for("nodejs.util.promisify.custom");
export function promisify(fn) {
  if (typeof fn !== "function") throw new TypeError('The "original" argument must be of type function');
  if (fn[customPromisify]) return fn[customPromisify];
  function promisified(...args) {
    return new Promise((resolve, reject) => {
      fn.call(this, ...args, (err, ...values) => (err ? reject(err) : resolve(values[0])));
    });
  }
  Object.setPrototypeOf(promisified, Object.getPrototypeOf(fn));
  return Object.defineProperties(promisified, Object.getOwnPropertyDescriptors(fn));
}
promisify.custom = customPromisify;

export function callbackify(fn) {
  return function (...args) {
    const cb = args.pop();
    fn.apply(this, args).then((v) => cb(null, v), (err) => cb(err || new Error("Promise was rejected with a falsy value")));
  };
}

export function deprecate(fn, msg) {
  let warned = false;
  return function (...args) {
    if (!warned) {
      warned = true;
      console.warn("DeprecationWarning: " + msg);
    }
    return fn.apply(this, args);
  };
}

export function isDeepStrictEqual(a, b) {
  return deepEqual(a, b, true);
}

export function deepEqual(a, b, strict, seen = new Map()) {
  if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual(a[k], b[k], strict, seen)) return false;
  return true;
}

export const types = {
  isDate: (v) => v instanceof Date,
  isRegExp: (v) => v instanceof RegExp,
  isPromise: (v) => v instanceof Promise,
  isMap: (v) => v instanceof Map,
  isSet: (v) => v instanceof Set,
  isNativeError: (v) => v instanceof Error,
  isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
  isUint8Array: (v) => v instanceof Uint8Array,
  isArrayBuffer: (v) => v instanceof ArrayBuffer,
  isAnyArrayBuffer: (v) => v instanceof ArrayBuffer,
  isAsyncFunction: (v) => typeof v === "function" && v.constructor && v.constructor.name === "AsyncFunction",
  isGeneratorFunction: (v) => typeof v === "function" && v.constructor && /GeneratorFunction$/.test(v.constructor.name),
  // QuickJS cannot tell a Proxy from its target.
  isProxy: () => false,
  isBoxedPrimitive: (v) => v instanceof Number || v instanceof String || v instanceof Boolean,
  isWeakMap: (v) => v instanceof WeakMap,
  isWeakSet: (v) => v instanceof WeakSet,
  isDataView: (v) => v instanceof DataView,
  isSymbolObject: (v) => typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Symbol]",
  isBigInt64Array: (v) => typeof BigInt64Array !== "undefined" && v instanceof BigInt64Array,
};

// debuglog logs nothing: NODE_DEBUG is not set in fount.
export const debuglog = () => Object.assign(() => {}, { enabled: false });
export const debug = debuglog;
export const isArray = Array.isArray;
export const isError = (v) => v instanceof Error;
export const isFunction = (v) => typeof v === "function";
export const isString = (v) => typeof v === "string";
export const isObject = (v) => v !== null && typeof v === "object";
export const TextEncoder = globalThis.TextEncoder;
export const TextDecoder = globalThis.TextDecoder;

export default { inspect, format, inherits, promisify, callbackify, deprecate, isDeepStrictEqual, types, debuglog, debug, isArray, isError,
  isFunction, isString, isObject, TextEncoder, TextDecoder };
