// Entry of a two-file component: the greeting comes from a relative import.
import { greeting } from "./greeting.mjs";

export default {
  name: "Greeter",
  version: "0.1.0",
  props: {
    http: "$.interface.http",
    who: { type: "string", label: "Who to greet", default: "world", optional: true },
    times: { type: "integer", min: 1, max: 5, default: 1, optional: true },
  },
  run(event) {
    console.log(`greeting ${this.who}`);
    for (let i = 0; i < this.times; i++) {
      this.$emit({ text: greeting(this.who), body: event.body }, { summary: greeting(this.who) });
    }
  },
};
