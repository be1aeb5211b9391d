// node:buffer for fount: buffer@6.0.3, which lacks the base64url encoding
// that Node 20 has (JWTs and the SDKs that sign them use it): it is added
// here, over base64, in this bundle's copy of the polyfill only.
import polyfill from "./vendor/buffer-6.0.3/index.js";

const { Buffer } = polyfill;
const isBase64url = (enc) => typeof enc === "string" && enc.toLowerCase() === "base64url";
// Decoding base64 already takes the URL-safe alphabet and no padding.
const asBase64 = (enc) => (isBase64url(enc) ? "base64" : enc);

const isEncoding = Buffer.isEncoding;
Buffer.isEncoding = (enc) => isBase64url(enc) || isEncoding(enc);
const byteLength = Buffer.byteLength;
Buffer.byteLength = (string, enc) => byteLength(string, asBase64(enc));
const write = Buffer.prototype.write;
Buffer.prototype.write = function (string, offset, length, enc) {
  if (typeof offset === "string") return write.call(this, string, asBase64(offset));
  if (typeof length === "string") return write.call(this, string, offset, asBase64(length));
  return write.call(this, string, offset, length, asBase64(enc));
};
const toString = Buffer.prototype.toString;
Buffer.prototype.toString = function (enc, start, end) {
  if (!isBase64url(enc)) return toString.apply(this, arguments);
  return toString.call(this, "base64", start, end).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

// Node's Buffer has per-encoding slice and write methods (utf8Slice,
// hexWrite...) that it documents nowhere but that libraries call for
// speed (ssh2 reads keys with them).
for (const [name, enc] of [["ascii", "ascii"], ["base64", "base64"], ["base64url", "base64url"], ["hex", "hex"],
  ["latin1", "latin1"], ["ucs2", "ucs2"], ["utf8", "utf8"]]) {
  Object.defineProperty(Buffer.prototype, name + "Slice", { configurable: true, writable: true,
    value(start = 0, end = this.length) { return this.toString(enc, start, end); } });
  Object.defineProperty(Buffer.prototype, name + "Write", { configurable: true, writable: true,
    value(string, offset = 0, length = this.length - offset) { return this.write(string, offset, length, enc); } });
}

export { Buffer };
export const { SlowBuffer, INSPECT_MAX_BYTES, kMaxLength } = polyfill;
export const constants = { MAX_LENGTH: polyfill.kMaxLength, MAX_STRING_LENGTH: (1 << 29) - 24 };
export const kStringMaxLength = constants.MAX_STRING_LENGTH;
// The default export is Node's module object: the polyfill's, with what
// Node's has besides (@azure/core-util reads buffer.constants).
polyfill.constants = constants;
polyfill.kStringMaxLength = kStringMaxLength;
export default polyfill;
