// node:timers for fount: the globals, which live within one call.
export const setTimeout = globalThis.setTimeout;
export const clearTimeout = globalThis.clearTimeout;
export const setInterval = globalThis.setInterval;
export const clearInterval = globalThis.clearInterval;
export const setImmediate = globalThis.setImmediate;
export const clearImmediate = globalThis.clearImmediate;
export const promises = {
  setTimeout: (ms, value) => new Promise((resolve) => globalThis.setTimeout(() => resolve(value), ms)),
  setImmediate: (value) => new Promise((resolve) => globalThis.setImmediate(() => resolve(value))),
};
export default { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, promises };
