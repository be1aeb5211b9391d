const ENTITIES = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'" };
const decode = (s) => s.replace(/&(lt|gt|amp|quot|apos);/g, (m) => ENTITIES[m]);

export function* tokenize(xml) {
  const re = /<\?[^>]*\?>|<!--[\s\S]*?-->|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
  let m;
  while ((m = re.exec(xml)) !== null) {
    if (m[5] !== undefined) { yield { type: "text", text: decode(m[5]) }; continue; }
    if (m[2] === undefined) continue;
    if (m[1]) { yield { type: "close", name: m[2] }; continue; }
    const attrs = {};
    for (const a of m[3].matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs[a[1]] = decode(a[2] ?? a[3]);
    yield { type: "open", name: m[2], attrs, selfClosing: m[4] === "/" };
  }
}
