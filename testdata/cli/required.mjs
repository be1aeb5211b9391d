// A component with two required props and one optional.
export default {
  name: "needs-props",
  version: "0.1.0",
  props: {
    region: { type: "string" },
    count: { type: "integer" },
    note: { type: "string", optional: true },
  },
  run() {},
};
