// Emits an event on a schedule: every N seconds or on a cron expression.
export default {
  key: "schedule-custom-interval",
  name: "Custom Interval",
  description: "Emit an event on a schedule you choose",
  version: "0.1.0",
  type: "source",
  props: {
    timer: {
      type: "$.interface.timer",
      label: "Schedule",
      default: { intervalSeconds: 60 * 60 },
    },
    payload: {
      type: "object",
      label: "Payload",
      description: "Data to include in every event",
      optional: true,
    },
  },
  async run(event) {
    this.$emit(
      { ...(this.payload || {}), timestamp: event.timestamp },
      { id: String(event.timestamp), summary: `Tick at ${new Date(event.timestamp * 1000).toISOString()}`, ts: event.timestamp * 1000 },
    );
  },
};
