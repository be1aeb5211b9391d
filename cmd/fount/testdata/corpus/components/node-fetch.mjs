import fetch from "node-fetch";
export default {
  name: "corpus-node-fetch", version: "0.1.0",
  async run(e) {
    const r = await fetch(e.base + "/json");
    const post = await fetch(e.base + "/echo", { method: "POST", body: JSON.stringify({ b: 2 }), headers: { "content-type": "application/json" } });
    const gz = await (await fetch(e.base + "/gzip")).json();
    this.$emit({ status: r.status, body: await r.json(), type: r.headers.get("content-type"), post: await post.json(), gzip: gz });
  },
};
