// What Node 20 has of ES2022 and ES2023 and this QuickJS lacked
// (Object.hasOwn, at, findLast, the copying array methods, well-formed
// strings, errors' cause), as Node gives it.
export default {
  name: "node-es2023",
  version: "0.1.0",
  async run() {
    const a = [5, 1, 4, 2];
    const t = new Int16Array([3, -1, 2]);
    const failure = (f) => { try { f(); return "ran"; } catch (e) { return e.name; } };
    this.$emit({
      hasOwn: [Object.hasOwn({ x: 1 }, "x"), Object.hasOwn({}, "toString"), Object.hasOwn([1], 0), failure(() => Object.hasOwn(null, "x"))],
      at: [a.at(0), a.at(-1), a.at(9), a.at(-9), a.at(1.7), "héllo".at(-1), "abc".at(5), t.at(-1)],
      findLast: [a.findLast((x) => x > 3), a.findLastIndex((x) => x > 3), a.findLast((x) => x > 9), a.findLastIndex(() => false),
        t.findLast((x) => x < 0), t.findLastIndex((x) => x > 2)],
      copies: [a.toSorted(), a.toSorted((x, y) => y - x), a.toReversed(), a.with(1, 9), a.with(-1, 0), a.toSpliced(1, 2, "x"), a,
        Array.from(t.toSorted()), Array.from(t.toReversed()), Array.from(t.with(0, 7)), Array.from(t), t.toSorted() instanceof Int16Array],
      errors: [failure(() => a.with(4, 1)), failure(() => a.toSorted(1)), failure(() => t.with(-4, 1))],
      strings: ["ab\ud800".isWellFormed(), "ab\ud83d\ude00".isWellFormed(), "ab\ud800c".toWellFormed(), "x\udc00".toWellFormed()],
      cause: [new Error("x", { cause: "why" }).cause, new TypeError("x", { cause: 0 }).cause, "cause" in new Error("x", {}), "cause" in new Error("x"),
        Object.getOwnPropertyDescriptor(new Error("x", { cause: 1 }), "cause").enumerable, new AggregateError([], "x", { cause: 2 }).cause,
        new RangeError("x", { cause: undefined }).hasOwnProperty("cause")],
      shapes: [Array.prototype.at.length, Array.prototype.with.name, Object.hasOwn.length, Object.keys(Array.prototype).length,
        Object.getOwnPropertyDescriptor(Array.prototype, "findLast").enumerable],
    });
  },
};
