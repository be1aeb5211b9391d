import { DateTime } from "luxon";
export default {
  name: "corpus-luxon", version: "0.1.0",
  async run() {
    const d = DateTime.fromISO("2024-02-28T23:30:00Z", { zone: "utc" });
    const out = { iso: d.plus({ days: 1 }).toISO(), format: d.toFormat("yyyy LLL dd HH:mm") };
    out.newYork = d.setZone("America/New_York").toFormat("yyyy-MM-dd HH:mm ZZ");
    this.$emit(out);
  },
};
