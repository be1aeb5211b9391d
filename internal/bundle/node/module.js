// node:module for fount: the list of Node's built-ins; a require made
// with createRequire finds nothing, as the component's modules are
// bundled at deploy.
const builtins = ["assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto",
  "dgram", "diagnostics_channel", "dns", "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2", "https", "inspector",
  "inspector/promises", "module", "net", "os", "path", "path/posix", "path/win32", "perf_hooks", "process", "punycode", "querystring",
  "readline", "readline/promises", "repl", "stream", "stream/consumers", "stream/promises", "stream/web", "string_decoder", "sys",
  "timers", "timers/promises", "tls", "trace_events", "tty", "url", "util", "util/types", "v8", "vm", "wasi", "worker_threads", "zlib"];
export const builtinModules = builtins;
export const isBuiltin = (name) => builtins.includes(String(name).replace(/^node:/, ""));
export function createRequire() {
  return function require(id) {
    const err = new Error("Cannot find module '" + id + "': fount bundles a component's modules at deploy, and createRequire finds none");
    err.code = "MODULE_NOT_FOUND";
    throw err;
  };
}
export class Module {}
export default { builtinModules, isBuiltin, createRequire, Module };
