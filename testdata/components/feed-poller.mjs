// A polling source shaped like an RSS reader: on each timer tick it reads
// the newest items, and emits those it has not seen (dedupe: unique). The
// items come from the `feed` prop here so that tests need no network.
import { parseItems } from "./feed-parse.mjs";

export default {
  key: "rss-new-item-in-feed",
  name: "New Item in Feed",
  description: "Emit new items from an RSS-style feed",
  version: "1.2.0",
  type: "source",
  dedupe: "unique",
  props: {
    db: "$.service.db",
    timer: {
      type: "$.interface.timer",
      default: { intervalSeconds: 60 * 15 },
    },
    feed: {
      type: "string",
      label: "Feed content",
      description: "Items, one per line, as `id|title|epoch ms`",
    },
    maxItems: {
      type: "integer",
      label: "Max items per poll",
      min: 1,
      max: 100,
      default: 20,
      optional: true,
    },
  },
  hooks: {
    async deploy() {
      // Emit a few recent items on deploy, as published sources do.
      const items = parseItems(this.feed).slice(0, 3);
      for (const item of items) this.emitItem(item);
      this.db.set("lastPoll", 0);
    },
  },
  methods: {
    emitItem(item) {
      this.$emit(item, { id: item.id, summary: item.title, ts: item.ts });
    },
  },
  async run() {
    const items = parseItems(this.feed).slice(0, this.maxItems);
    for (const item of items) this.emitItem(item);
    this.db.set("lastPoll", items.length);
    console.log(`polled ${items.length} items`);
  },
};
