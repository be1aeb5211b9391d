// A code step: it reads the request that triggered the workflow.
export default defineComponent({
  async run({ steps, $ }) {
    const body = steps.trigger.event.body || {};
    $.export("$summary", `parsed a request for ${body.name}`);
    return { name: String(body.name || "world"), times: Number(body.times || 1) };
  },
});
