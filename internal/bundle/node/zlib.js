// node:zlib for fount: deflate, inflate, gzip, gunzip, their raw forms
// and unzip, done by the host (the compress import: Go's compress
// packages) on whole buffers. The sync, callback and promisified forms
// are Node's; the streams (createGzip...) gather their input and give the
// result when they end. One operation produces at most 3 MiB (past it,
// ERR_BUFFER_TOO_LARGE). Brotli is not there. fount's http and fetch
// already hand back decompressed bodies.
import { Transform } from "stream";
import { Buffer } from "buffer";

const hostCompress = globalThis.process[Symbol.for("fount.compress")];

export const constants = { Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3, Z_MEM_ERROR: -4, Z_BUF_ERROR: -5,
  Z_VERSION_ERROR: -6, Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1,
  Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3, Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, ZLIB_VERNUM: 4865,
  DEFLATE: 1, INFLATE: 2, GZIP: 3, GUNZIP: 4, DEFLATERAW: 5, INFLATERAW: 6, UNZIP: 7, BROTLI_DECODE: 8, BROTLI_ENCODE: 9,
  Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15, Z_DEFAULT_WINDOWBITS: 15, Z_MIN_CHUNK: 64, Z_MAX_CHUNK: Infinity,
  Z_DEFAULT_CHUNK: 16384, Z_MIN_MEMLEVEL: 1, Z_MAX_MEMLEVEL: 9, Z_DEFAULT_MEMLEVEL: 8, Z_MIN_LEVEL: -1, Z_MAX_LEVEL: 9,
  Z_DEFAULT_LEVEL: -1, BROTLI_OPERATION_PROCESS: 0, BROTLI_OPERATION_FLUSH: 1, BROTLI_OPERATION_FINISH: 2,
  BROTLI_OPERATION_EMIT_METADATA: 3 };
export const codes = { Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
  Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6 };

function bytesOf(buffer) {
  if (typeof buffer === "string") return Buffer.from(buffer);
  if (buffer instanceof ArrayBuffer) return new Uint8Array(buffer);
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const err = new TypeError('The "buffer" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer.');
  err.code = "ERR_INVALID_ARG_TYPE";
  throw err;
}

function run(op, buffer, options) {
  const level = options && options.level !== undefined && ["deflate", "gzip", "deflateRaw"].includes(op) ? options.level : undefined;
  return Buffer.from(hostCompress(op, bytesOf(buffer), level));
}

function sync(op) {
  return (buffer, options) => run(op, buffer, options);
}

function callback(op) {
  return (buffer, options, cb) => {
    if (typeof options === "function") [cb, options] = [options, {}];
    let out, err = null;
    try {
      out = run(op, buffer, options);
    } catch (e) {
      err = e;
    }
    setImmediate(() => (err ? cb(err) : cb(null, out)));
  };
}

export const deflateSync = sync("deflate"), inflateSync = sync("inflate"), gzipSync = sync("gzip"),
  gunzipSync = sync("gunzip"), deflateRawSync = sync("deflateRaw"), inflateRawSync = sync("inflateRaw"),
  unzipSync = sync("unzip");
export const deflate = callback("deflate"), inflate = callback("inflate"), gzip = callback("gzip"),
  gunzip = callback("gunzip"), deflateRaw = callback("deflateRaw"), inflateRaw = callback("inflateRaw"),
  unzip = callback("unzip");

// ZlibHandle stands for Node's native zlib handle, which some libraries
// reach through a stream's _handle to compress packet by packet (ssh2
// takes its constructor at load). fount's zlib works on whole buffers,
// so the handle exists but refuses work, saying why.
class ZlibHandle {
  constructor(mode) {
    this.mode = mode;
  }
  #unavailable() {
    const e = new Error("zlib's native handle is not available in fount: its zlib works on whole buffers (zlib.inflateSync, streams that give their output at the end)");
    e.code = "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM";
    throw e;
  }
  init() {
    this.#unavailable();
  }
  write() {
    this.#unavailable();
  }
  writeSync() {
    this.#unavailable();
  }
  params() {
    this.#unavailable();
  }
  reset() {}
  close() {}
}

const handleModes = { deflate: constants.DEFLATE, inflate: constants.INFLATE, gzip: constants.GZIP, gunzip: constants.GUNZIP,
  deflateRaw: constants.DEFLATERAW, inflateRaw: constants.INFLATERAW, unzip: constants.UNZIP };

// Zlib is the stream of one operation: what is written is gathered, and
// the result comes out when the stream ends.
class Zlib extends Transform {
  constructor(op, options = {}) {
    super(options);
    this._handle = new ZlibHandle(handleModes[op]);
    this._op = op;
    this._options = options;
    this._chunks = [];
    this.bytesWritten = 0;
  }
  _transform(chunk, encoding, cb) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding);
    this._chunks.push(b);
    this.bytesWritten += b.length;
    cb();
  }
  _flush(cb) {
    let out;
    try {
      out = run(this._op, Buffer.concat(this._chunks), this._options);
    } catch (err) {
      return cb(err);
    }
    this._chunks = [];
    if (out.length > 0) this.push(out);
    cb();
  }
  flush(kind, cb) {
    if (typeof kind === "function") cb = kind;
    if (typeof cb === "function") setImmediate(cb);
  }
  params(level, strategy, cb) {
    this._options = Object.assign({}, this._options, { level });
    if (typeof cb === "function") setImmediate(cb);
  }
  close(cb) {
    if (typeof cb === "function") this.once("close", cb);
    this._handle = null;
    this.destroy();
  }
  reset() {
    this._chunks = [];
  }
}

export class Deflate extends Zlib {
  constructor(options) {
    super("deflate", options);
  }
}
export class Inflate extends Zlib {
  constructor(options) {
    super("inflate", options);
  }
}
export class Gzip extends Zlib {
  constructor(options) {
    super("gzip", options);
  }
}
export class Gunzip extends Zlib {
  constructor(options) {
    super("gunzip", options);
  }
}
export class DeflateRaw extends Zlib {
  constructor(options) {
    super("deflateRaw", options);
  }
}
export class InflateRaw extends Zlib {
  constructor(options) {
    super("inflateRaw", options);
  }
}
export class Unzip extends Zlib {
  constructor(options) {
    super("unzip", options);
  }
}
export const createDeflate = (o) => new Deflate(o), createInflate = (o) => new Inflate(o), createGzip = (o) => new Gzip(o),
  createGunzip = (o) => new Gunzip(o), createDeflateRaw = (o) => new DeflateRaw(o), createInflateRaw = (o) => new InflateRaw(o),
  createUnzip = (o) => new Unzip(o);

function noBrotli(name) {
  return function () {
    const err = new Error("zlib." + name + ": fount has no Brotli");
    err.code = "ENOSYS";
    throw err;
  };
}
export const createBrotliCompress = noBrotli("createBrotliCompress"), createBrotliDecompress = noBrotli("createBrotliDecompress"),
  brotliCompress = noBrotli("brotliCompress"), brotliDecompress = noBrotli("brotliDecompress"),
  brotliCompressSync = noBrotli("brotliCompressSync"), brotliDecompressSync = noBrotli("brotliDecompressSync");
export class BrotliCompress {
  constructor() {
    noBrotli("BrotliCompress")();
  }
}
export class BrotliDecompress {
  constructor() {
    noBrotli("BrotliDecompress")();
  }
}

// crc32 is zlib's CRC-32, as Node 20's zlib.crc32 gives it.
let crcTable = null;
export function crc32(data, value = 0) {
  if (crcTable === null) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  const bytes = bytesOf(data);
  let crc = ~value;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

export default { constants, codes, deflateSync, inflateSync, gzipSync, gunzipSync, deflateRawSync, inflateRawSync, unzipSync,
  deflate, inflate, gzip, gunzip, deflateRaw, inflateRaw, unzip, Deflate, Inflate, Gzip, Gunzip, DeflateRaw, InflateRaw, Unzip,
  createDeflate, createInflate, createGzip, createGunzip, createDeflateRaw, createInflateRaw, createUnzip,
  createBrotliCompress, createBrotliDecompress, brotliCompress, brotliDecompress, brotliCompressSync, brotliDecompressSync,
  BrotliCompress, BrotliDecompress, crc32 };
