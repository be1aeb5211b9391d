// The last step emits the greeting: an event of the workflow, which its
// subscribers receive and `fount events greeter` shows.
export default defineComponent({
  async run({ steps, $ }) {
    $.send.emit({ raw_event: { greeting: steps.greet.$return_value } });
  },
});
