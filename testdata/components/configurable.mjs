// A source whose form needs the server: remote options that depend on
// another prop and come in pages, and props added by additionalProps.
export default {
  name: "Configurable",
  key: "configurable",
  version: "0.1.0",
  props: {
    http: "$.interface.http",
    region: { type: "string", options: ["eu", "us"] },
    city: {
      type: "string",
      async options({ page, prevContext }) {
        if (this.region === "broken") throw new RangeError("no cities in a broken region");
        const cities = { eu: ["paris", "berlin", "madrid"], us: ["boston", "denver"] }[this.region] || [];
        const start = prevContext ? JSON.parse(prevContext).next : 0;
        const options = cities.slice(start, start + 2).map((c) => ({ label: c.toUpperCase(), value: c }));
        return start + 2 < cities.length ? { options, context: { next: start + 2 } } : options;
      },
    },
    detailed: { type: "boolean", optional: true, reloadProps: true },
  },
  async additionalProps() {
    if (!this.detailed) return {};
    // An added prop may list its options too, from what is configured.
    const depths = this.region === "us" ? [1, 2] : [1, 2, 3];
    return { depth: { type: "integer", label: "Depth", min: 1, max: 5, async options() { return depths.map((d) => ({ label: "depth " + d, value: d })); } } };
  },
  run(event) {
    this.$emit({ region: this.region, city: this.city, depth: this.depth });
  },
};
