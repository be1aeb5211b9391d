// node:stream/web for fount: the WHATWG streams of web-streams-polyfill
// (the same the globals are). TextEncoderStream, TextDecoderStream and
// the compression streams are not there.
export {
  ReadableStream, WritableStream, TransformStream, ByteLengthQueuingStrategy, CountQueuingStrategy,
  ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableByteStreamController,
  ReadableStreamDefaultController, WritableStreamDefaultWriter, WritableStreamDefaultController, TransformStreamDefaultController,
} from "./vendor/web-streams-polyfill-4.3.0/dist/ponyfill.mjs";
import * as streams from "./vendor/web-streams-polyfill-4.3.0/dist/ponyfill.mjs";
export default streams;
