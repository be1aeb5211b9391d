// Calls of the globals Node has and fount provides, with results that do
// not depend on time or randomness: fount must give what Node 20 gives.
export default {
  name: "node-globals",
  version: "0.1.0",
  async run() {
    const out = {};
    const u = new URL("HTTP://User:Pa ss@EXAMPLE.com:80/a/./b/../c d?x=1 2&y=é#frag ment");
    out.url = [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash];
    out.relative = [
      new URL("../up?q#h", "https://h.example/a/b/c").href,
      new URL("//other.example/p", "https://h.example/a").href,
      new URL("?only", "https://h.example/a/b?old#f").href,
      new URL("#only", "https://h.example/a/b?old").href,
      new URL("/root", "https://h.example:8443/a/b").href,
      new URL("mailto:ada@example.com").pathname,
      new URL("https://h.example").pathname,
      new URL("https://[::1]:3000/x").host,
    ];
    out.canParse = [URL.canParse("https://ok.example"), URL.canParse("nope"), URL.canParse("/p", "http://b.example")];
    let thrown = null;
    try { new URL("not a url"); } catch (e) { thrown = [e.name, e.code]; }
    out.invalid = thrown;
    u.searchParams.append("z", "a b&c");
    u.searchParams.set("x", "9");
    u.pathname = "/new path";
    u.hash = "";
    out.mutated = u.href;
    const sp = new URLSearchParams("a=1&b=2&a=3&c=%20x+y");
    sp.sort();
    out.params = [sp.toString(), sp.getAll("a"), sp.get("c"), sp.has("b"), sp.size, [...sp.keys()],
      new URLSearchParams({ q: "x y", n: 1 }).toString(), new URLSearchParams([["k", "v"], ["k", "w"]]).toString()];
    const enc = new TextEncoder().encode("héllo €𝄞");
    out.text = [Array.from(enc), new TextDecoder().decode(enc), new TextDecoder().decode(new Uint8Array([0xff, 0x41, 0xe2, 0x82])),
      new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))];
    const high = Uint8Array.from({ length: 256 }, (_, i) => i);
    const latin = new TextDecoder("latin1"), ascii = new TextDecoder("ascii"), utf16 = new TextDecoder("utf-16le");
    const s16 = utf16.decode(new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x3d, 0xd8, 0x00, 0xde]));
    out.encodings = [latin.encoding, ascii.encoding, utf16.encoding, [...latin.decode(high)].map((c) => c.codePointAt(0)).slice(0x7e, 0xa2),
      ascii.decode(new Uint8Array([0x68, 0x80, 0x93])), s16, s16.length, new TextDecoder("utf-16le").decode(new Uint8Array([0x41])),
      new TextDecoder().decode()];
    const dec = new TextDecoder();
    out.streamed = dec.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + dec.decode(new Uint8Array([0xac]));
    out.base64 = [btoa("hello\u00ff"), atob("aGVsbG8g d29ybGQ="), (() => { try { btoa("€"); } catch (e) { return e.name; } })()];
    const clone = structuredClone({ d: new Date(0), m: new Map([[1, { s: new Set(["a"]) }]]), a: [1, [2]], r: /x/gi });
    out.clone = [clone.d.toISOString(), clone.m.get(1).s.has("a"), clone.a, clone.r.flags,
      (() => { try { structuredClone(() => 1); } catch (e) { return e.name; } })()];
    const ac = new AbortController();
    const seen = [];
    ac.signal.addEventListener("abort", (e) => seen.push(e.type));
    ac.abort();
    out.abort = [ac.signal.aborted, ac.signal.reason.name, seen, AbortSignal.abort("why").reason];
    const target = new EventTarget();
    target.addEventListener("ping", (e) => seen.push("got " + e.type + " " + (e.target === target)), { once: true });
    target.dispatchEvent(new Event("ping"));
    target.dispatchEvent(new Event("ping"));
    out.events = seen;
    const h = new Headers({ "X-B": "2", "x-a": "1" });
    h.append("x-a", "3");
    out.headers = [[...h], h.get("X-A"), h.has("x-c")];
    const res = new Response(JSON.stringify({ ok: 1 }), { status: 201, headers: { "content-type": "application/json" } });
    out.response = [res.status, res.ok, res.headers.get("content-type"), await res.json(), res.bodyUsed];
    const req = new Request("https://api.example/v1?x=1", { method: "post", body: "hi" });
    out.request = [req.method, req.url, await req.text(), req.headers.get("content-type")];
    const order = [];
    await new Promise((resolve) => {
      let n = 0;
      const id = setInterval(() => { order.push("interval " + ++n); if (n === 2) { clearInterval(id); resolve(); } }, 1);
      setImmediate(() => order.push("immediate"));
      queueMicrotask(() => order.push("microtask"));
      process.nextTick(() => order.push("tick"));
    });
    out.timers = order.filter((o) => o !== "tick" && o !== "microtask").slice(0, 1).concat(order.includes("tick"), order.includes("microtask"));
    // "\-" in a class of a /u expression (fast-xml-parser builds some).
    out.regexp = [new RegExp("^[a\\-\\.]+$", "u").test("a-."), /[\-x]/u.test("-"), /[\-x]/u.test("y")];
    // A typed array ignores writes out of its bounds, in strict code too
    // (anynum writes below 0 at load).
    const typed = new Uint8Array(2);
    typed[-1] = 5;
    typed[7] = 1;
    out.typedOutOfBounds = [typed.length, typed[-1], typed[7], [...typed]];
    const { port1, port2 } = new MessageChannel();
    const got = new Promise((resolve) => { port2.onmessage = (e) => resolve([e.data, e instanceof MessageEvent, e.type]); });
    const sent = { n: 1, d: new Date(0) };
    port1.postMessage(sent);
    sent.n = 2;
    const b1 = new BroadcastChannel("news"), b2 = new BroadcastChannel("news");
    const heard = new Promise((resolve) => b2.addEventListener("message", (e) => resolve(e.data), { once: true }));
    b1.postMessage("hello");
    const [data, isEvent, type] = await got;
    out.messages = [data.n, data.d.getTime(), isEvent, type, await heard, b1.name, port1 instanceof MessagePort];
    port1.close();
    b1.close();
    b2.close();
    const blob = new Blob(["héllo ", new Uint8Array([119, 111]), new Blob(["rld"])], { type: "Text/Plain" });
    const file = new File([blob], "greeting.txt", { lastModified: 42 });
    out.blob = [blob.size, blob.type, await blob.text(), await blob.slice(-5, -1).text(), blob.slice(2).size, [...new Uint8Array(await blob.arrayBuffer())].length,
      file.name, file.lastModified, file.size, file instanceof Blob, Object.prototype.toString.call(file),
      await new Response(blob).text(), (await new Response("x", { headers: { "content-type": "a/b" } }).blob()).type];
    this.$emit(out);
  },
};
