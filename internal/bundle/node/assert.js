// node:assert for fount: Node's assertions, with the deep comparison of
// util. CommonJS, as assert is a function: require("assert") must give
// something callable (follow-redirects calls assert.equal, others
// assert(...)), which an ES module's namespace is not.
const { deepEqual, inspect } = require("util");

class AssertionError extends Error {
  constructor(options) {
    super(options.message);
    this.name = "AssertionError";
    this.code = "ERR_ASSERTION";
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator;
    this.generatedMessage = !options.userMessage;
  }
}

function fail(actual, expected, message, operator, defaultMessage) {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message: message !== undefined ? message : defaultMessage, userMessage: message !== undefined, actual, expected, operator });
}

function ok(value, message) {
  if (!value) fail(value, true, message, "==", "The expression evaluated to a falsy value:\n\n  assert.ok(" + inspect(value) + ")\n");
}

const assert = function (value, message) {
  ok(value, message);
};
assert.ok = ok;
assert.AssertionError = AssertionError;
assert.fail = (message = "Failed") => fail(undefined, undefined, message, "fail", "Failed");
assert.equal = (a, b, m) => { if (!(a == b || (a !== a && b !== b))) fail(a, b, m, "==", `${inspect(a)} == ${inspect(b)}`); };
assert.notEqual = (a, b, m) => { if (a == b) fail(a, b, m, "!=", `${inspect(a)} != ${inspect(b)}`); };
assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) fail(a, b, m, "strictEqual", `Expected values to be strictly equal:\n\n${inspect(a)} !== ${inspect(b)}\n`); };
assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) fail(a, b, m, "notStrictEqual", `Expected "actual" to be strictly unequal to: ${inspect(b)}`); };
assert.deepEqual = (a, b, m) => { if (!deepEqual(a, b, false)) fail(a, b, m, "deepEqual", "Expected values to be loosely deep-equal"); };
assert.deepStrictEqual = (a, b, m) => { if (!deepEqual(a, b, true)) fail(a, b, m, "deepStrictEqual", "Expected values to be strictly deep-equal"); };
assert.notDeepEqual = (a, b, m) => { if (deepEqual(a, b, false)) fail(a, b, m, "notDeepEqual", "Expected \"actual\" not to be loosely deep-equal to \"expected\""); };
assert.notDeepStrictEqual = (a, b, m) => { if (deepEqual(a, b, true)) fail(a, b, m, "notDeepStrictEqual", "Expected \"actual\" not to be strictly deep-equal to \"expected\""); };
assert.match = (s, re, m) => { if (!re.test(s)) fail(s, re, m, "match", `The input did not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`); };
assert.doesNotMatch = (s, re, m) => { if (re.test(s)) fail(s, re, m, "doesNotMatch", `The input was expected to not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`); };

function matches(err, expected) {
  if (expected === undefined) return true;
  if (typeof expected === "function") {
    if (expected.prototype !== undefined && err instanceof expected) return true;
    if (Error.isPrototypeOf(expected) || expected === Error) return false;
    return expected(err) === true;
  }
  if (expected instanceof RegExp) return expected.test(String(err));
  return Object.keys(expected).every((k) => (expected[k] instanceof RegExp ? expected[k].test(err[k]) : deepEqual(err[k], expected[k], true)));
}
assert.throws = (fn, expected, message) => {
  if (typeof expected === "string") [message, expected] = [expected, undefined];
  try {
    fn();
  } catch (err) {
    if (!matches(err, expected)) throw err;
    return;
  }
  fail(undefined, expected, message, "throws", "Missing expected exception.");
};
assert.doesNotThrow = (fn, message) => {
  try {
    fn();
  } catch (err) {
    fail(err, undefined, typeof message === "string" ? message : undefined, "doesNotThrow", "Got unwanted exception.\nActual message: \"" + (err && err.message) + "\"");
  }
};
assert.rejects = async (p, expected, message) => {
  if (typeof expected === "string") [message, expected] = [expected, undefined];
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    if (!matches(err, expected)) throw err;
    return;
  }
  fail(undefined, expected, message, "rejects", "Missing expected rejection.");
};
assert.doesNotReject = async (p, message) => {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    fail(err, undefined, message, "doesNotReject", "Got unwanted rejection.\nActual message: \"" + (err && err.message) + "\"");
  }
};
assert.ifError = (v) => { if (v !== null && v !== undefined) throw v; };
assert.strict = Object.assign((v, m) => ok(v, m), assert, { equal: assert.strictEqual, deepEqual: assert.deepStrictEqual,
  notEqual: assert.notStrictEqual, notDeepEqual: assert.notDeepStrictEqual });
assert.strict.strict = assert.strict;
assert.AssertionError = AssertionError;
assert.strict.AssertionError = AssertionError;

module.exports = assert;
