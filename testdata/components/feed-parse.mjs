// Parses `id|title|ts` lines, newest first.
export function parseItems(text) {
  return String(text || "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, title, ts] = line.split("|");
      return { id, title, ts: Number(ts) };
    })
    .sort((a, b) => b.ts - a.ts);
}
