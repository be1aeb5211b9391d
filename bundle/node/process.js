// node:process for fount: the global process (env holds only what the
// specification allows).
const process = globalThis.process;
export default process;
export const env = process.env;
export const nextTick = process.nextTick;
