import { sheets } from "@googleapis/sheets";
export default {
  name: "corpus-sheets", version: "0.1.0",
  async run(e) {
    const api = sheets({ version: "v4", auth: "api-key", rootUrl: e.base + "/" });
    const r = await api.spreadsheets.get({ spreadsheetId: "sheet1" });
    this.$emit({ status: r.status, id: r.data.spreadsheetId, title: r.data.properties.title });
  },
};
