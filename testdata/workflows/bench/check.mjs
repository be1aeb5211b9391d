// BenchmarkWorkflowLoad's action: its prop is templated from the first step.
export default {
  name: "Check",
  version: "1.0.0",
  type: "action",
  props: { sent: { type: "integer" } },
  async run({ $ }) {
    $.export("$summary", "checked");
    return { sent: this.sent, ok: this.sent > 0 };
  },
};
