import xml2js from "xml2js";
export default {
  name: "corpus-xml2js", version: "0.1.0",
  async run() {
    const parsed = await xml2js.parseStringPromise('<order id="7"><item sku="a">2</item><item sku="b">3</item></order>');
    const built = new xml2js.Builder({ headless: true }).buildObject({ note: { $: { to: "ada" }, _: "hi" } });
    this.$emit({ parsed, built });
  },
};
