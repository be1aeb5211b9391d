import { Octokit } from "@octokit/rest";
export default {
  name: "corpus-octokit", version: "0.1.0",
  async run(e) {
    const octokit = new Octokit({ auth: "token", baseUrl: e.base });
    const { data, status } = await octokit.rest.users.getAuthenticated();
    this.$emit({ status, login: data.login, id: data.id });
  },
};
