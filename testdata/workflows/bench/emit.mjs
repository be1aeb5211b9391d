// BenchmarkWorkflowLoad's last step: emit, for the SSE stream to carry.
export default defineComponent({
  async run({ steps, $ }) {
    $.send.emit({ raw_event: { sent: steps.check.$return_value.sent } });
  },
});
