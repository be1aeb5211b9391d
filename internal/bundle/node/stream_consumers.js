// node:stream/consumers for fount: a stream's (or any async iterable's)
// whole content.
import { Buffer } from "buffer";

async function chunks(stream) {
  const out = [];
  for await (const c of stream) out.push(typeof c === "string" ? Buffer.from(c) : Buffer.from(c.buffer ? new Uint8Array(c.buffer, c.byteOffset, c.byteLength) : c));
  return Buffer.concat(out);
}
export const buffer = (s) => chunks(s);
export const text = async (s) => (await chunks(s)).toString("utf8");
export const json = async (s) => JSON.parse(await text(s));
export const arrayBuffer = async (s) => {
  const b = await chunks(s);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
export default { buffer, text, json, arrayBuffer };
