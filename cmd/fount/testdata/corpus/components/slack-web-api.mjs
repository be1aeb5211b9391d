import { WebClient } from "@slack/web-api";
export default {
  name: "corpus-slack", version: "0.1.0",
  async run(e) {
    const client = new WebClient("xoxb-test", { slackApiUrl: e.base + "/api/", retryConfig: { retries: 0 } });
    const r = await client.auth.test();
    this.$emit({ ok: r.ok, team: r.team, user_id: r.user_id });
  },
};
