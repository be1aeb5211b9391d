// node:stream/promises for fount: pipeline and finished as promises.
import stream from "stream";

function isOptions(v) {
  return v !== null && typeof v === "object" && typeof v.pipe !== "function" && typeof v.on !== "function" && !(Symbol.asyncIterator in v);
}
export function pipeline(...streams) {
  if (isOptions(streams[streams.length - 1])) streams.pop();
  return new Promise((resolve, reject) => stream.pipeline(...streams, (err) => (err ? reject(err) : resolve())));
}
export function finished(s, options) {
  return new Promise((resolve, reject) => stream.finished(s, options || {}, (err) => (err ? reject(err) : resolve())));
}
export default { pipeline, finished };
