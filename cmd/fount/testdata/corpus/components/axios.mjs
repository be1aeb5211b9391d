import axios from "axios";
export default {
  name: "corpus-axios", version: "0.1.0",
  async run(e) {
    const r = await axios.post(e.base + "/echo", { a: 1 });
    let missing;
    try {
      await axios.get(e.base + "/missing");
    } catch (err) {
      missing = [err.name, err.response.status, err.response.data];
    }
    const gz = await axios.get(e.base + "/gzip");
    const bytes = await axios.get(e.base + "/bytes", { responseType: "arraybuffer" });
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const sent = await axios.post(e.base + "/digest", all, { headers: { "content-type": "application/octet-stream" } });
    const got = Buffer.from(bytes.data);
    this.$emit({ status: r.status, data: r.data, missing, gzip: gz.data, bytes: [got.length, got.equals(all)], sent: sent.data });
  },
};
