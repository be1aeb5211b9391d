// node:zlib as Node 20 gives it: each format round-trips, what Node
// compressed decompresses, unzip tells gzip from zlib, bad data fails
// with zlib's codes, the callback, promisified and stream forms work, and
// crc32. (Compressed bytes themselves differ between zlib builds, so
// they are compared by what they decompress to.)
import zlib from "node:zlib";
import { promisify } from "node:util";
import { pipeline } from "node:stream/promises";
import { Readable, Writable } from "node:stream";

const text = "hello zlib, hello zlib, hello zlib";
const fromNode = {
  gzip: "H4sIAAAAAAAAA8tIzcnJV6jKyUzSUcjAygYAafOPCSIAAAA=",
  deflate: "eJzLSM3JyVeoyslM0lHIwMoGANdnDEg=",
  deflateRaw: "y0jNyclXqMrJTNJRyMDKBgA=",
};

function failure(fn) {
  try {
    fn();
    return "ran";
  } catch (e) {
    return [e.code, e.errno, e.message];
  }
}

export default {
  name: "node-zlib",
  version: "0.1.0",
  async run() {
    const out = {};
    const input = Buffer.from(text);
    out.roundTrips = [
      zlib.gunzipSync(zlib.gzipSync(input)).toString(),
      zlib.inflateSync(zlib.deflateSync(input, { level: 9 })).toString(),
      zlib.inflateRawSync(zlib.deflateRawSync(input)).toString(),
      zlib.unzipSync(zlib.gzipSync(input)).toString() + "|" + zlib.unzipSync(zlib.deflateSync(input)).toString(),
      zlib.gzipSync(input)[0] === 0x1f && zlib.gzipSync(input)[1] === 0x8b,
      zlib.gzipSync("").length > 0,
    ];
    out.fromNode = [
      zlib.gunzipSync(Buffer.from(fromNode.gzip, "base64")).toString(),
      zlib.inflateSync(Buffer.from(fromNode.deflate, "base64")).toString(),
      zlib.inflateRawSync(Buffer.from(fromNode.deflateRaw, "base64")).toString(),
    ];
    out.errors = [
      failure(() => zlib.gunzipSync(Buffer.from("not gzip at all"))),
      failure(() => zlib.inflateSync(Buffer.from("not zlib at all"))),
      failure(() => zlib.gunzipSync(Buffer.from(fromNode.gzip, "base64").subarray(0, 20))),
    ];
    out.callback = await new Promise((resolve) => zlib.deflate(input, (err, buf) => zlib.inflate(buf, (err2, back) => resolve([err, err2, back.toString()]))));
    out.promisified = (await promisify(zlib.gunzip)(await promisify(zlib.gzip)(input))).toString();
    const parts = [];
    await pipeline(Readable.from([Buffer.from("hello "), Buffer.from("stream")]), zlib.createGzip(), zlib.createGunzip(),
      new Writable({ write(chunk, enc, cb) { parts.push(chunk); cb(); } }));
    out.stream = Buffer.concat(parts).toString();
    out.crc32 = [zlib.crc32("hello"), zlib.crc32(Buffer.from("world"), 12345)];
    out.constants = [zlib.constants.Z_BEST_COMPRESSION, zlib.constants.Z_SYNC_FLUSH, zlib.codes.Z_DATA_ERROR];
    this.$emit(out);
  },
};
