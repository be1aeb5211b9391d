// BenchmarkWorkflowLoad's first step: parse the request.
export default defineComponent({
  async run({ steps }) {
    const body = steps.trigger.event.body;
    if (typeof body.sent !== "number") throw new TypeError("the body needs a number sent");
    return { sent: body.sent };
  },
});
