// node:crypto for fount: hashes, HMACs and random bytes computed by the
// host (the crypto import: Go's implementations), and the Web Crypto
// global. Ciphers, signatures and key generation are not provided.
import { Buffer } from "buffer";

const host = globalThis.crypto[Symbol.for("fount.crypto")];
const ALGS = { md5: "md5", sha1: "sha1", "sha-1": "sha1", sha256: "sha256", "sha-256": "sha256", sha384: "sha384",
  "sha-384": "sha384", sha512: "sha512", "sha-512": "sha512" };

function algOf(name) {
  const alg = ALGS[String(name).toLowerCase()];
  if (!alg) {
    const e = new Error("Digest method not supported");
    e.code = "ERR_CRYPTO_INVALID_DIGEST";
    throw e;
  }
  return alg;
}

function toBuffer(data, enc) {
  if (Buffer.isBuffer(data)) return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (typeof data === "string") return Buffer.from(data, enc || "utf8");
  throw new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView.');
}

class Digest {
  #op;
  #alg;
  #key;
  #chunks = [];
  #done = false;
  constructor(op, alg, key) {
    this.#op = op;
    this.#alg = algOf(alg);
    this.#key = key;
  }
  update(data, enc) {
    if (this.#done) throw Object.assign(new Error("Digest already called"), { code: "ERR_CRYPTO_HASH_FINALIZED" });
    this.#chunks.push(toBuffer(data, enc));
    return this;
  }
  digest(enc) {
    if (this.#done) throw Object.assign(new Error("Digest already called"), { code: "ERR_CRYPTO_HASH_FINALIZED" });
    this.#done = true;
    const req = { op: this.#op, alg: this.#alg, data: Buffer.concat(this.#chunks).toString("base64") };
    if (this.#key) req.key = this.#key.toString("base64");
    const out = Buffer.from(host(req));
    return enc && enc !== "buffer" ? out.toString(enc) : out;
  }
  copy() {
    const c = new Digest(this.#op, this.#alg, this.#key);
    for (const chunk of this.#chunks) c.update(chunk);
    return c;
  }
}

export function createHash(alg) {
  return new Digest("digest", alg);
}

export function createHmac(alg, key) {
  return new Digest("hmac", alg, toBuffer(key && key.export ? key.export() : key));
}

export function randomBytes(size, cb) {
  if (!Number.isInteger(size) || size < 0 || size > 2 ** 31 - 1) throw new RangeError('The value of "size" is out of range.');
  const parts = [];
  for (let left = size; left > 0; left -= 65536) parts.push(Buffer.from(host({ op: "random", size: Math.min(left, 65536) })));
  const out = Buffer.concat(parts, size);
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, out));
    return undefined;
  }
  return out;
}

export function randomInt(min, max, cb) {
  if (max === undefined || typeof max === "function") [min, max, cb] = [0, min, max];
  const range = max - min;
  if (!(range > 0) || range > 2 ** 48) throw new RangeError('The value of "max" is out of range.');
  const limit = 2 ** 48 - (2 ** 48 % range);
  let n;
  do n = randomBytes(6).readUIntBE(0, 6);
  while (n >= limit);
  const v = min + (n % range);
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, v));
    return undefined;
  }
  return v;
}

export const randomUUID = () => globalThis.crypto.randomUUID();
export const getRandomValues = (arr) => globalThis.crypto.getRandomValues(arr);
export const webcrypto = globalThis.crypto;
export const subtle = globalThis.crypto.subtle;

// timingSafeEqual compares without an early exit.
export function timingSafeEqual(a, b) {
  const x = toBuffer(a), y = toBuffer(b);
  if (x.length !== y.length) {
    const e = new RangeError("Input buffers must have the same byte length");
    e.code = "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH";
    throw e;
  }
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

export const getHashes = () => ["md5", "sha1", "sha256", "sha384", "sha512"];

export default { createHash, createHmac, randomBytes, randomInt, randomUUID, getRandomValues, webcrypto, subtle,
  timingSafeEqual, getHashes };
