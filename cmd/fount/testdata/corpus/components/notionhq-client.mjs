import { Client } from "@notionhq/client";
export default {
  name: "corpus-notion", version: "0.1.0",
  async run(e) {
    const notion = new Client({ auth: "secret_test", baseUrl: e.base });
    const me = await notion.users.me({});
    this.$emit({ object: me.object, id: me.id, name: me.name });
  },
};
