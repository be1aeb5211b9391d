import moment from "moment-timezone";
export default {
  name: "corpus-moment-timezone", version: "0.1.0",
  async run() {
    const m = moment.tz("2024-07-01 12:00", "America/New_York");
    this.$emit({ utc: m.clone().utc().format(), tokyo: m.clone().tz("Asia/Tokyo").format("YYYY-MM-DD HH:mm Z"), dst: m.isDST() });
  },
};
