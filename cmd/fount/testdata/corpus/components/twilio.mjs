import twilio from "twilio";
export default {
  name: "corpus-twilio", version: "0.1.0",
  async run(e) {
    const client = twilio("AC123", "token");
    client.api.baseUrl = e.base;
    const account = await client.api.v2010.accounts("AC123").fetch();
    this.$emit({ sid: account.sid, name: account.friendlyName, status: account.status });
  },
};
