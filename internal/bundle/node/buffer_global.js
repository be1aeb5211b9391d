// What esbuild injects where bundled code uses the Buffer global.
export { Buffer } from "buffer";
