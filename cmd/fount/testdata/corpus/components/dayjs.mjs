import dayjs from "dayjs";
import utc from "dayjs/plugin/utc.js";
dayjs.extend(utc);
export default {
  name: "corpus-dayjs", version: "0.1.0",
  async run() {
    const d = dayjs.utc("2024-02-28T23:30:00Z");
    this.$emit({ next: d.add(1, "day").format("YYYY-MM-DD HH:mm"), start: d.startOf("month").toISOString(), diff: d.diff(dayjs.utc("2024-01-01"), "day") });
  },
};
