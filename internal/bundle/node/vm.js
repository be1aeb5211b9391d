// node:vm for fount: code runs in the component's own realm. A context
// (createContext, runInContext, runInNewContext) is an object whose
// properties the code reads and writes as globals, evaluated in a scope
// over it: enough for libraries that check or build expressions with vm
// (fast-redact, under pino 6 and 7, validates its paths so). It is no
// boundary, as Node's vm is none: the code shares the component's
// built-ins, and a global it creates without declaring lands on the
// component's global object, not on the context.
import { unavailable } from "./unavailable.js";

const no = unavailable("vm", "fount components have one realm");
const CONTEXT = Symbol("fount.vm.context");
const evaluate = (code) => (0, eval)(String(code));

// inScope evaluates code with ctx as its innermost scope. Sloppy, so
// that the scope can be an object; the code's own "use strict" holds.
const inScope = new Function("__fountVMContext", "__fountVMCode", "with (__fountVMContext) { return eval(__fountVMCode); }");

function contextError() {
  const e = new TypeError('The "contextifiedObject" argument must be an vm.Context');
  e.code = "ERR_INVALID_ARG_TYPE";
  return e;
}

export function createContext(object = {}) {
  if (object === null || typeof object !== "object") {
    const e = new TypeError('The "contextObject" argument must be of type object.');
    e.code = "ERR_INVALID_ARG_TYPE";
    throw e;
  }
  if (!isContext(object)) Object.defineProperty(object, CONTEXT, { value: true });
  return object;
}
export function isContext(object) {
  if (object === null || typeof object !== "object") {
    const e = new TypeError('The "object" argument must be of type object.');
    e.code = "ERR_INVALID_ARG_TYPE";
    throw e;
  }
  return object[CONTEXT] === true;
}
export const runInThisContext = (code) => evaluate(code);
export function runInContext(code, context) {
  if (context === null || typeof context !== "object" || !isContext(context)) throw contextError();
  return inScope(context, String(code));
}
export function runInNewContext(code, object = {}) {
  return inScope(createContext(object), String(code));
}
export function compileFunction(code, params = [], options = {}) {
  const fn = new Function(...params, String(code));
  const extensions = options.contextExtensions || [];
  if (!extensions.length) return fn;
  return function (...args) {
    return inScope(Object.assign({}, ...extensions, { __fountVMFn: fn, __fountVMThis: this, __fountVMArgs: args }),
      "__fountVMFn.apply(__fountVMThis, __fountVMArgs)");
  };
}
export const measureMemory = no("measureMemory");
export class Script {
  constructor(code) {
    this.code = String(code);
  }
  runInThisContext() {
    return evaluate(this.code);
  }
  runInNewContext(object) {
    return runInNewContext(this.code, object);
  }
  runInContext(context) {
    return runInContext(this.code, context);
  }
  createCachedData() {
    return new Uint8Array(0);
  }
}
export const constants = { USE_MAIN_CONTEXT_DEFAULT_LOADER: Symbol("vm_dynamic_import_main_context_default"),
  DONT_CONTEXTIFY: Symbol("vm_context_no_contextify") };
export default { runInThisContext, runInNewContext, runInContext, createContext, compileFunction, isContext, measureMemory, Script,
  constants };
