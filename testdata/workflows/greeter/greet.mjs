// An action: its props are configured in workflow.yaml, here from the
// parse step's return value.
export default {
  name: "Greet",
  key: "greeter-greet",
  version: "0.1.0",
  type: "action",
  props: {
    who: { type: "string", label: "Who to greet" },
    times: { type: "integer", default: 1, min: 1, max: 10 },
  },
  async run({ $ }) {
    const greeting = Array(this.times).fill(`hello ${this.who}`).join(", ");
    $.export("$summary", `greeted ${this.who}`);
    return greeting;
  },
};
