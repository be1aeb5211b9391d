import fetch from "node-fetch";
export default {
  name: "corpus-node-fetch", version: "0.1.0",
  async run(e) {
    const r = await fetch(e.base + "/json");
    const post = await fetch(e.base + "/echo", { method: "POST", body: JSON.stringify({ b: 2 }), headers: { "content-type": "application/json" } });
    const gz = await (await fetch(e.base + "/gzip")).json();
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const got = await (await fetch(e.base + "/bytes")).buffer();
    const sent = await (await fetch(e.base + "/digest", { method: "POST", body: all })).json();
    const web = new Uint8Array(await (await globalThis.fetch(e.base + "/bytes")).arrayBuffer());
    const webSent = await (await globalThis.fetch(e.base + "/digest", { method: "POST", body: new Uint8Array(all) })).json();
    this.$emit({ status: r.status, body: await r.json(), type: r.headers.get("content-type"), post: await post.json(), gzip: gz,
      bytes: [got.length, got.equals(all)], sent, web: [web.length, Buffer.from(web).equals(all)], webSent });
  },
};
