// node:async_hooks for fount: AsyncLocalStorage and AsyncResource over a
// store that follows synchronous calls only. QuickJS has no hook into
// promise jobs, so after an await inside run(), getStore() is what it was
// outside (undefined, unless enterWith set one); createHook's hooks never
// fire.
let current = new Map();

export class AsyncLocalStorage {
  run(store, fn, ...args) {
    const saved = current;
    current = new Map(current);
    current.set(this, store);
    try {
      return fn(...args);
    } finally {
      current = saved;
    }
  }
  exit(fn, ...args) {
    const saved = current;
    current = new Map(current);
    current.delete(this);
    try {
      return fn(...args);
    } finally {
      current = saved;
    }
  }
  getStore() {
    return current.get(this);
  }
  enterWith(store) {
    current = new Map(current);
    current.set(this, store);
  }
  disable() {
    current = new Map(current);
    current.delete(this);
  }
  static bind(fn) {
    const captured = current;
    return (...args) => {
      const saved = current;
      current = captured;
      try {
        return fn(...args);
      } finally {
        current = saved;
      }
    };
  }
  static snapshot() {
    return AsyncLocalStorage.bind((fn, ...args) => fn(...args));
  }
}

export class AsyncResource {
  constructor(type) {
    this.type = type;
    this._context = current;
  }
  runInAsyncScope(fn, thisArg, ...args) {
    const saved = current;
    current = this._context;
    try {
      return Reflect.apply(fn, thisArg, args);
    } finally {
      current = saved;
    }
  }
  bind(fn) {
    return (...args) => this.runInAsyncScope(fn, undefined, ...args);
  }
  static bind(fn, type) {
    return new AsyncResource(type || "bound-anonymous-fn").bind(fn);
  }
  emitDestroy() {
    return this;
  }
  asyncId() {
    return 1;
  }
  triggerAsyncId() {
    return 0;
  }
}

export const createHook = () => ({ enable() { return this; }, disable() { return this; } });
export const executionAsyncId = () => 1, triggerAsyncId = () => 0, executionAsyncResource = () => ({});
export default { AsyncLocalStorage, AsyncResource, createHook, executionAsyncId, triggerAsyncId, executionAsyncResource };
