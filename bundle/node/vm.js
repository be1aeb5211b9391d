// node:vm for fount: code runs in the component's own context only
// (runInThisContext, Script.runInThisContext, as an indirect eval); a
// component cannot make new contexts.
import { unavailable } from "./unavailable.js";

const no = unavailable("vm", "fount components cannot create contexts");
const evaluate = (code) => (0, eval)(String(code));
export const runInThisContext = (code) => evaluate(code);
export const runInNewContext = no("runInNewContext"), runInContext = no("runInContext"), createContext = no("createContext"),
  compileFunction = no("compileFunction");
export const isContext = () => false;
export class Script {
  constructor(code) {
    this.code = String(code);
  }
  runInThisContext() {
    return evaluate(this.code);
  }
  runInNewContext() {
    return runInNewContext();
  }
  runInContext() {
    return runInContext();
  }
  createCachedData() {
    return new Uint8Array(0);
  }
}
export default { runInThisContext, runInNewContext, runInContext, createContext, compileFunction, isContext, Script };
