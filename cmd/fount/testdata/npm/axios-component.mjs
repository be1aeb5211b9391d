// A component that calls an HTTP API with an axios-shaped client over
// node:http, as most published Pipedream components do through
// @pipedream/platform's axios.
import axios from "axioslite";

export default {
  name: "api-caller",
  version: "0.1.0",
  async run(event) {
    const seen = [];
    axios.events.on("request", (method, url) => seen.push(method + " " + new URL(url).pathname));
    const created = await axios.post(event.base + "/items", { name: "ada" }, { headers: { "X-Api-Key": "k1" } });
    const listed = await axios.get(event.base + "/items", { params: { q: "a b" } });
    let failed = null;
    try {
      await axios.get(event.base + "/missing");
    } catch (e) {
      failed = [e.name, e.response.status, e.response.data];
    }
    // A GET with a body, as Pipedream components send to search APIs:
    // Node's http adapter sends it.
    const searched = await axios.get(event.base + "/search", { data: { q: "ada" } });
    let refused = null;
    try {
      await axios.get(event.closed + "/x");
    } catch (e) {
      refused = [e.name, e.code];
    }
    this.$emit({ created: [created.status, created.data], listed: listed.data, failed, searched: [searched.adapter, searched.data], refused, seen });
  },
};
