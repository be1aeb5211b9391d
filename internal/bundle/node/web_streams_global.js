// What esbuild injects where bundled code uses the WHATWG streams
// globals Node has (ReadableStream, WritableStream, TransformStream and
// their parts): web-streams-polyfill's ponyfill, bundled only with code
// that names one of them.
export {
  ReadableStream, WritableStream, TransformStream, ByteLengthQueuingStrategy, CountQueuingStrategy,
  ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableByteStreamController,
  ReadableStreamDefaultController, WritableStreamDefaultWriter, WritableStreamDefaultController, TransformStreamDefaultController,
} from "./vendor/web-streams-polyfill-4.3.0/dist/ponyfill.mjs";
