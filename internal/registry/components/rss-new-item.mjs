// Polls an RSS or Atom feed and emits each new item once (dedupe: unique).
// Needs outbound network access (the server's egress policy).
function tagValue(xml, tag) {
  const m = new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "i").exec(xml);
  if (!m) return "";
  return m[1].replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, "$1").trim();
}

function linkOf(xml) {
  const href = /<link[^>]*href="([^"]+)"/i.exec(xml);
  return href ? href[1] : tagValue(xml, "link");
}

export function parseFeed(xml) {
  const blocks = xml.match(/<(item|entry)[\s>][\s\S]*?<\/(item|entry)>/gi) || [];
  return blocks.map((b) => {
    const date = tagValue(b, "pubDate") || tagValue(b, "updated") || tagValue(b, "published");
    const ts = Date.parse(date);
    return {
      id: tagValue(b, "guid") || tagValue(b, "id") || linkOf(b),
      title: tagValue(b, "title"),
      link: linkOf(b),
      ts: Number.isNaN(ts) ? undefined : ts,
    };
  });
}

export default {
  key: "rss-new-item-in-feed",
  name: "New Item in Feed",
  description: "Emit new items from an RSS or Atom feed",
  version: "1.0.0",
  type: "source",
  dedupe: "unique",
  props: {
    db: "$.service.db",
    timer: { type: "$.interface.timer", default: { intervalSeconds: 60 * 15 } },
    url: { type: "string", label: "Feed URL", description: "The URL of an RSS or Atom feed" },
  },
  async run() {
    const res = await fetch(this.url, { headers: { accept: "application/rss+xml, application/atom+xml, text/xml" } });
    if (!res.ok) throw new Error(`fetching ${this.url} failed with HTTP ${res.status}`);
    const items = parseFeed(await res.text()).filter((i) => i.id);
    for (const item of items.reverse()) {
      this.$emit(item, { id: item.id, summary: item.title || item.link, ts: item.ts });
    }
    this.db.set("lastCount", items.length);
  },
};
