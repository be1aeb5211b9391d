// The README's first source: emits every HTTP request it receives.
export default {
  name: "Hello HTTP",
  version: "1.0.0",
  description: "Emit an event for each request to the endpoint",
  props: { http: "$.interface.http" },
  run(event) {
    console.log(`${event.method} ${event.path}`);
    this.$emit({ method: event.method, body: event.body }, { summary: `${event.method} ${event.path}` });
  },
};
