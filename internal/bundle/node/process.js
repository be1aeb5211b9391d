// node:process for fount: the global process (env holds only what the
// specification allows; the rest answers as Node 20's does, with values
// that say nothing of the machine).
const process = globalThis.process;
export default process;
export const env = process.env;
export const nextTick = process.nextTick;
export const version = process.version;
export const versions = process.versions;
export const platform = process.platform;
export const arch = process.arch;
export const release = process.release;
export const title = process.title;
export const argv = process.argv;
export const execArgv = process.execArgv;
export const pid = process.pid;
export const hrtime = process.hrtime;
export const uptime = process.uptime;
export const memoryUsage = process.memoryUsage;
export const emitWarning = process.emitWarning;
export const cwd = process.cwd;
export const stdout = process.stdout;
export const stderr = process.stderr;
export const on = process.on;
