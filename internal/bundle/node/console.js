// node:console for fount: the global console.
const c = globalThis.console;
export default c;
export const log = (...a) => c.log(...a), info = (...a) => c.info(...a), warn = (...a) => c.warn(...a),
  error = (...a) => c.error(...a), debug = (...a) => c.debug(...a);
