// node:zlib for fount: the constants, so that HTTP clients that set up
// decompression (axios) load; compressing or decompressing throws. fount's
// http and fetch already hand back decompressed bodies.
export const constants = { Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_DEFAULT_COMPRESSION: -1, Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9,
  BROTLI_OPERATION_FLUSH: 1, BROTLI_OPERATION_FINISH: 2, BROTLI_OPERATION_PROCESS: 0 };
function unsupported(name) {
  return function () {
    throw new Error("zlib." + name + " is not provided by fount (responses of fetch and http arrive decompressed)");
  };
}
const names = ["createGzip", "createGunzip", "createDeflate", "createInflate", "createDeflateRaw", "createInflateRaw",
  "createUnzip", "createBrotliCompress", "createBrotliDecompress", "gzip", "gunzip", "deflate", "inflate", "unzip",
  "gzipSync", "gunzipSync", "deflateSync", "inflateSync", "unzipSync", "brotliCompress", "brotliDecompress",
  "brotliCompressSync", "brotliDecompressSync", "deflateRawSync", "inflateRawSync"];
const zlib = { constants };
for (const n of names) zlib[n] = unsupported(n);
export const { createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw, createInflateRaw, createUnzip,
  createBrotliCompress, createBrotliDecompress, gzip, gunzip, deflate, inflate, unzip, gzipSync, gunzipSync, deflateSync,
  inflateSync, unzipSync, brotliCompress, brotliDecompress, brotliCompressSync, brotliDecompressSync, deflateRawSync,
  inflateRawSync } = zlib;
export default zlib;
