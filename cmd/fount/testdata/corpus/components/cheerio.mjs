import * as cheerio from "cheerio";
export default {
  name: "corpus-cheerio", version: "0.1.0",
  async run() {
    const $ = cheerio.load('<ul id="list"><li class="a">One</li><li class="b">Two &amp; three</li></ul>');
    this.$emit({ items: $("li").map((i, el) => $(el).text()).get(), cls: $("li").last().attr("class"), html: $("#list").html().length });
  },
};
