// V8's stack API as libraries use it (depd, under express): call sites
// through Error.prepareStackTrace and Error.captureStackTrace, with a
// constructor's frames left out, and the plain string stack.
function grab(fn) {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_, sites) => sites;
  const holder = {};
  Error.captureStackTrace(holder, fn);
  const sites = holder.stack;
  Error.prepareStackTrace = prepare;
  return sites;
}
function outer() {
  return inner();
}
function inner() {
  return grab();
}
function skipped() {
  return grab(skipped);
}
function callsSkipped() {
  return skipped();
}

export default {
  name: "node-stacks",
  version: "0.1.0",
  async run() {
    const sites = outer();
    const top = sites[0];
    const plain = {};
    Error.captureStackTrace(plain);
    this.$emit({
      names: sites.slice(0, 3).map((s) => s.getFunctionName()),
      methods: ["getFileName", "getLineNumber", "getColumnNumber", "getFunctionName", "getTypeName", "isEval", "isNative", "isToplevel",
        "isConstructor", "getThis", "getEvalOrigin"].map((m) => typeof top[m]),
      types: [typeof top.getFileName(), typeof top.getLineNumber(), typeof top.getColumnNumber(), top.isEval(), top.isNative()],
      skipped: callsSkipped()[0].getFunctionName(),
      plain: [typeof plain.stack, Array.isArray(sites), typeof Error.stackTraceLimit],
    });
  },
};
