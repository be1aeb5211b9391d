// Calls of the Node built-in modules fount provides, bare and node:
// prefixed, ESM and CommonJS, and the Buffer global: fount must give what
// Node 20 gives.
import EventEmitter, { once } from "events";
import util from "node:util";
import { Buffer as ImportedBuffer } from "buffer";
import path from "path";
import querystring from "node:querystring";
import url from "url";
import { StringDecoder } from "string_decoder";
import assert from "node:assert";
import { setTimeout as sleep } from "timers/promises";
import os from "os";

export default {
  name: "node-builtins",
  version: "0.1.0",
  async run() {
    const out = {};
    const em = new EventEmitter();
    const heard = [];
    em.on("x", (a, b) => heard.push("on " + a + b));
    em.once("x", (a) => heard.push("once " + a));
    em.prependListener("x", () => heard.push("first"));
    em.emit("x", 1, 2);
    em.emit("x", 3, 4);
    setTimeout(() => em.emit("later", "v"), 1);
    const [later] = await once(em, "later");
    out.events = [heard, em.listenerCount("x"), em.eventNames(), later];

    out.util = [util.format("%s=%d %j %o%%", "a", 42, { b: [1] }, "s"), util.inspect({ a: 1, b: "two", c: [1, { d: null }] }),
      util.isDeepStrictEqual({ a: [1, 2] }, { a: [1, 2] }), util.isDeepStrictEqual([1], ["1"]), util.types.isDate(new Date())];
    const pf = util.promisify((x, cb) => setTimeout(() => cb(null, x * 2), 1));
    out.promisify = await pf(21);

    const b = Buffer.from("héllo wörld");
    out.buffer = [b.length, b.toString("hex"), b.toString("base64"), Buffer.from("aGk=", "base64").toString(), b.slice(0, 5).toString(),
      Buffer.concat([Buffer.from([1, 2]), Buffer.alloc(2, 0xff)]).toJSON(), Buffer.byteLength("€"), ImportedBuffer === Buffer,
      Buffer.isBuffer(b), b.readUInt16BE(0), Buffer.compare(Buffer.from("a"), Buffer.from("b")), b.equals(Buffer.from("héllo wörld"))];

    out.path = [path.join("/a/b", "../c", "./d.txt"), path.basename("/x/y/file.tar.gz", ".gz"), path.extname("f.mjs"),
      path.dirname("/p/q/r"), path.normalize("/a//b/../c/."), path.relative("/data/a/b", "/data/c"), path.isAbsolute("x/y"),
      path.parse("/home/u/f.txt"), path.sep, path.posix === path || typeof path.posix.join];

    out.querystring = [querystring.stringify({ a: [1, 2], b: "x y", c: "é" }), querystring.parse("a=1&a=2&b=x%20y&c"),
      querystring.escape("a b&c")];

    const parsed = url.parse("https://user:pw@host.example:8080/p/a?x=1&y=2#h", true);
    out.url = [parsed.protocol, parsed.auth, parsed.host, parsed.port, parsed.hostname, parsed.pathname, parsed.search,
      parsed.query, parsed.hash, parsed.path, url.format({ protocol: "https", hostname: "h.example", pathname: "/x", query: { a: 1 } }),
      new url.URL("/rel", "https://b.example/").href, url.fileURLToPath("file:///tmp/a%20b.txt")];

    const dec = new StringDecoder("utf8");
    out.stringDecoder = dec.write(Buffer.from([0xe2, 0x82])) + "|" + dec.write(Buffer.from([0xac])) + "|" + dec.end();

    const failures = [];
    for (const f of [() => assert.strictEqual(1, 2), () => assert.deepStrictEqual({ a: 1 }, { a: 1 }), () => assert.ok(0),
      () => assert.throws(() => { throw new TypeError("t"); }, TypeError), () => assert.equal("1", 1)]) {
      try { f(); failures.push("ok"); } catch (e) { failures.push(e.name + " " + e.code); }
    }
    await assert.rejects(Promise.reject(new Error("r")), /r/);
    out.assert = failures;

    out.sleep = await sleep(1, "slept");
    out.os = [os.EOL, typeof os.platform()];
    this.$emit(out);
  },
};
