import got from "got";
export default {
  name: "corpus-got", version: "0.1.0",
  async run(e) {
    const get = await got(e.base + "/json").json();
    const post = await got.post(e.base + "/echo", { json: { a: 1 } }).json();
    let missing;
    try {
      await got(e.base + "/missing", { retry: { limit: 0 } });
    } catch (err) {
      missing = [err.name, err.response && err.response.statusCode];
    }
    const gz = await got(e.base + "/gzip").json();
    this.$emit({ get, post, missing, gzip: gz });
  },
};
