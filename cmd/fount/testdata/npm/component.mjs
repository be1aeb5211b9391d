// A source that uses npm packages shaped like the ones real components
// import: a date library (UMD), a utility library by subpath (CommonJS),
// an XML parser (ESM behind an exports map) and a uuid generator with a
// dependency of its own.
import daytime from "daytime";
import chunk from "lodashlet/chunk.js";
import { parse } from "xml-lite";
import { v5, validate } from "uuidlet";

export default {
  name: "npm-realworld",
  version: "0.1.0",
  async run(event) {
    const body = event.body || event;
    const id = v5(body.name, "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    this.$emit({
      next_day: daytime(body.when).add(1, "day").format("YYYY-MM-DD HH:mm"),
      chunks: chunk(body.items, 2),
      order: parse(body.xml),
      id,
      valid: validate(id),
      version: daytime.version,
    }, { id: body.name });
  },
};
