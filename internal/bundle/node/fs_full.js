// node:fs for code that names fs's streams: fs.js, and the module that
// makes the streams (which registers itself with fs.js).
import "./fs_streams.js";
export * from "./fs.js";
export { default } from "./fs.js";
