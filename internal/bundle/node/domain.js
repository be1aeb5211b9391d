// node:domain for fount: Node's deprecated domains, as objects that run
// what they are given; errors are not captured.
import { EventEmitter } from "events";

class Domain extends EventEmitter {
  constructor() {
    super();
    this.members = [];
  }
  run(fn, ...args) {
    return fn(...args);
  }
  add(em) {
    this.members.push(em);
  }
  remove(em) {
    this.members = this.members.filter((m) => m !== em);
  }
  bind(fn) {
    return fn;
  }
  intercept(fn) {
    return (err, ...args) => (err ? this.emit("error", err) : fn(...args));
  }
  enter() {}
  exit() {}
  dispose() {}
}
export const create = () => new Domain();
export const createDomain = create;
export const active = null;
export { Domain };
export default { create, createDomain, active, Domain };
