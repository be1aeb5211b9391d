// node:crypto for fount: hashes, HMACs, random bytes, signatures, keys,
// ciphers (AES in CBC, CTR, GCM and ECB, ChaCha20-Poly1305) and key
// derivation (pbkdf2, hkdf, scrypt) computed by the host (the crypto
// import: Go's implementations), and the Web Crypto global. Key
// generation and Diffie-Hellman are not provided.
import { Buffer } from "buffer";

const host = globalThis.crypto[Symbol.for("fount.crypto")];
const hostReply = globalThis.crypto[Symbol.for("fount.crypto.reply")];
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

// encoded is buf in the output encoding asked for: a string, or the
// Buffer itself for none or "buffer".
function encoded(buf, enc) {
  return enc && enc !== "buffer" ? buf.toString(enc) : buf;
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
    this.#chunks.push(Buffer.from(toBuffer(data, enc))); // a copy: callers reuse their buffers
    return this;
  }
  digest(enc) {
    if (this.#done) throw Object.assign(new Error("Digest already called"), { code: "ERR_CRYPTO_HASH_FINALIZED" });
    this.#done = true;
    const req = { op: this.#op, alg: this.#alg, data: Buffer.concat(this.#chunks).toString("base64") };
    if (this.#key) req.key = this.#key.toString("base64");
    return encoded(Buffer.from(host(req)), enc);
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

// randomFillSync fills buf (a TypedArray, DataView or ArrayBuffer) from
// offset, size bytes, with random bytes.
export function randomFillSync(buf, offset = 0, size) {
  const view = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (size === undefined) size = view.length - offset;
  if (!Number.isInteger(offset) || offset < 0 || offset > view.length) {
    throw Object.assign(new RangeError('The value of "offset" is out of range.'), { code: "ERR_OUT_OF_RANGE" });
  }
  if (!Number.isInteger(size) || size < 0 || offset + size > view.length) {
    throw Object.assign(new RangeError('The value of "size" is out of range.'), { code: "ERR_OUT_OF_RANGE" });
  }
  view.set(randomBytes(size), offset);
  return buf;
}

export function randomFill(buf, offset, size, cb) {
  if (typeof offset === "function") [cb, offset, size] = [offset, 0, undefined];
  else if (typeof size === "function") [cb, size] = [size, undefined];
  randomFillSync(buf, offset, size);
  queueMicrotask(() => cb(null, buf));
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
export const getCiphers = () => ["aes-128-cbc", "aes-128-ctr", "aes-128-ecb", "aes-128-gcm", "aes-192-cbc", "aes-192-ctr",
  "aes-192-ecb", "aes-192-gcm", "aes-256-cbc", "aes-256-ctr", "aes-256-ecb", "aes-256-gcm", "chacha20-poly1305"];

// hostFailure throws a failed op's error, as Node's: its code when the
// host gave one.
function hostFailure(reply, Type = Error) {
  const e = new Type(String(reply.error));
  if (reply.code) e.code = String(reply.code);
  throw e;
}

function keyBytes(key, enc) {
  if (key instanceof KeyObject) return Buffer.from(key.export());
  return toBuffer(key, enc);
}

function invalidState(what) {
  return Object.assign(new Error(what), { code: "ERR_CRYPTO_INVALID_STATE" });
}

// addToCounter adds n to a big-endian 128-bit counter, in place.
function addToCounter(counter, n) {
  for (let i = counter.length - 1; i >= 0 && n > 0; i--) {
    const sum = counter[i] + (n % 256);
    counter[i] = sum & 0xff;
    n = Math.floor(n / 256) + (sum >> 8);
  }
}

// Cipheriv and Decipheriv work as Node's: update gives what it can at
// once. CTR is a stream: each update is the host's encryption from the
// counter reached so far. CBC and ECB give whole blocks, keeping the rest
// (and, when decrypting with padding, the last block) for final, which
// pads or unpads. The AEADs (GCM, ChaCha20-Poly1305) gather their input
// and give all of it at final, when the tag is made or checked: update
// returns an empty output, which code that joins the two (nearly all, and
// ssh2) cannot tell from Node's.
class CipherBase {
  #op;
  #name;
  #mode;
  #key;
  #iv;
  #opts = {};
  #pending = [];
  #offset = 0; // CTR: where in its block the stream stands
  #done = false;
  #tag = null;
  constructor(op, cipher, key, iv, options = {}) {
    const name = String(cipher).toLowerCase();
    if (!getCiphers().includes(name)) {
      const e = new Error("Unknown cipher");
      e.code = "ERR_CRYPTO_UNKNOWN_CIPHER";
      throw e;
    }
    this.#op = op;
    this.#name = name;
    this.#mode = name === "chacha20-poly1305" ? "aead" : name.slice(name.lastIndexOf("-") + 1);
    if (this.#mode === "gcm") this.#mode = "aead";
    this.#key = keyBytes(key);
    this.#iv = iv === null || iv === undefined ? Buffer.alloc(0) : Buffer.from(toBuffer(iv));
    // Node checks the key and IV here, as OpenSSL's init does.
    const keyLength = name === "chacha20-poly1305" ? 32 : Number(name.split("-")[1]) / 8;
    if (this.#key.length !== keyLength) throw Object.assign(new RangeError("Invalid key length"), { code: "ERR_CRYPTO_INVALID_KEYLEN" });
    const ivLength = { cbc: 16, ctr: 16, ecb: 0 }[this.#mode];
    if ((ivLength !== undefined && this.#iv.length !== ivLength) || (this.#mode === "aead" && this.#iv.length === 0)) {
      throw Object.assign(new TypeError("Invalid initialization vector"), { code: "ERR_CRYPTO_INVALID_IV" });
    }
    if (options.authTagLength !== undefined) this.#opts.tag_length = Number(options.authTagLength);
  }
  // #host runs the cipher over data with iv, padding or not.
  #host(data, iv, pad) {
    const req = Object.assign({ op: this.#op, cipher: this.#name, key: this.#key.toString("base64"),
      iv: iv.toString("base64"), data: data.toString("base64") }, this.#opts);
    if (!pad) req.no_padding = true;
    const reply = hostReply(req);
    if (reply.error !== undefined) hostFailure(reply);
    if (reply.tag) this.#tag = Buffer.from(reply.tag, "base64");
    return Buffer.from(reply.bytes || "", "base64");
  }
  #padding() {
    return !this.#opts.no_padding;
  }
  // #blocks runs CBC or ECB over the whole blocks of data, chaining the
  // IV to the last ciphertext block.
  #blocks(data) {
    if (data.length === 0) return Buffer.alloc(0);
    const out = this.#host(data, this.#iv, false);
    if (this.#mode === "cbc") this.#iv = Buffer.from((this.#op === "encrypt" ? out : data).subarray(-16));
    return out;
  }
  #update(data) {
    if (this.#mode === "aead") {
      this.#pending.push(data);
      return Buffer.alloc(0);
    }
    if (this.#mode === "ctr") {
      if (data.length === 0) return Buffer.alloc(0);
      const out = this.#host(Buffer.concat([Buffer.alloc(this.#offset), data]), this.#iv, false).subarray(this.#offset);
      const advanced = this.#offset + data.length;
      addToCounter(this.#iv, Math.floor(advanced / 16));
      this.#offset = advanced % 16;
      return out;
    }
    const all = Buffer.concat([...this.#pending, data]);
    let whole = all.length - (all.length % 16);
    // Decrypting with padding, the last block waits for final to unpad.
    if (this.#op === "decrypt" && this.#padding() && whole === all.length) whole -= 16;
    whole = Math.max(whole, 0);
    this.#pending = [all.subarray(whole)];
    return this.#blocks(all.subarray(0, whole));
  }
  update(data, inputEncoding, outputEncoding) {
    if (this.#done) throw invalidState("Unsupported state");
    // A copy: callers reuse their buffers.
    return encoded(this.#update(Buffer.from(toBuffer(data, inputEncoding))), outputEncoding);
  }
  final(outputEncoding) {
    if (this.#done) throw invalidState("Unsupported state");
    this.#done = true;
    let out = Buffer.alloc(0);
    if (this.#mode === "aead") out = this.#host(Buffer.concat(this.#pending), this.#iv, true);
    else if (this.#mode === "ctr") this.#host(Buffer.alloc(0), this.#iv, false); // checks the key and IV as Node's final would have
    else out = this.#host(Buffer.concat(this.#pending), this.#iv, this.#padding());
    this.#pending = [];
    return encoded(out, outputEncoding);
  }
  setAutoPadding(on = true) {
    if (on) delete this.#opts.no_padding;
    else this.#opts.no_padding = true;
    return this;
  }
  setAAD(aad) {
    this.#opts.aad = toBuffer(aad).toString("base64");
    return this;
  }
  getAuthTag() {
    if (this.#op !== "encrypt" || this.#tag === null) throw invalidState("Invalid state for operation getAuthTag");
    return this.#tag;
  }
  setAuthTag(tag) {
    if (this.#op !== "decrypt" || this.#done) throw invalidState("Invalid state for operation setAuthTag");
    this.#opts.tag = toBuffer(tag).toString("base64");
    return this;
  }
}
export class Cipheriv extends CipherBase {
  constructor(cipher, key, iv, options) {
    super("encrypt", cipher, key, iv, options);
  }
}
export class Decipheriv extends CipherBase {
  constructor(cipher, key, iv, options) {
    super("decrypt", cipher, key, iv, options);
  }
}
export const createCipheriv = (cipher, key, iv, options) => new Cipheriv(cipher, key, iv, options);
export const createDecipheriv = (cipher, key, iv, options) => new Decipheriv(cipher, key, iv, options);

// derive runs a key derivation on the host: a Buffer of keylen bytes.
function derive(req) {
  const reply = hostReply(req);
  if (reply.error !== undefined) hostFailure(reply);
  return Buffer.from(reply.bytes || "", "base64");
}
function later(fn, cb) {
  let out, err = null;
  try {
    out = fn();
  } catch (e) {
    err = e;
  }
  setImmediate(() => (err ? cb(err) : cb(null, out)));
}
export function pbkdf2Sync(password, salt, iterations, keylen, digest) {
  return derive({ op: "pbkdf2", alg: algOf(digest), key: toBuffer(password).toString("base64"), salt: toBuffer(salt).toString("base64"),
    iterations: Number(iterations), length: Number(keylen) });
}
export function pbkdf2(password, salt, iterations, keylen, digest, cb) {
  later(() => pbkdf2Sync(password, salt, iterations, keylen, digest), cb);
}
export function hkdfSync(digest, ikm, salt, info, keylen) {
  const out = derive({ op: "hkdf", alg: algOf(digest), key: keyBytes(ikm).toString("base64"), salt: toBuffer(salt).toString("base64"),
    info: toBuffer(info).toString("base64"), length: Number(keylen) });
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}
export function hkdf(digest, ikm, salt, info, keylen, cb) {
  later(() => hkdfSync(digest, ikm, salt, info, keylen), cb);
}
export function scryptSync(password, salt, keylen, options = {}) {
  const N = options.N || options.cost || 16384, r = options.r || options.blockSize || 8, p = options.p || options.parallelization || 1;
  return derive({ op: "scrypt", key: toBuffer(password).toString("base64"), salt: toBuffer(salt).toString("base64"), n: N, r, p,
    length: Number(keylen) });
}
export function scrypt(password, salt, keylen, options, cb) {
  if (typeof options === "function") [cb, options] = [options, {}];
  later(() => scryptSync(password, salt, keylen, options), cb);
}
export const getCurves = () => ["prime256v1", "secp384r1", "secp521r1"];

// ---- keys and signatures ----------------------------------------------

export const constants = { RSA_PKCS1_PADDING: 1, RSA_PKCS1_PSS_PADDING: 6, RSA_PSS_SALTLEN_DIGEST: -1,
  RSA_PSS_SALTLEN_MAX_SIGN: -2, RSA_PSS_SALTLEN_AUTO: -2 };

function keyError(message, code) {
  const e = new Error(message);
  e.code = code || "ERR_OSSL_UNSUPPORTED";
  return e;
}

// ask sends a keyed op to the host; a key it cannot use throws as
// Node's OpenSSL errors do.
function ask(req) {
  const reply = hostReply(req);
  if (reply.error) throw keyError("error:1E08010C:DECODER routines::unsupported (" + reply.error + ")");
  return reply;
}

export class KeyObject {
  #info;
  #secret;
  constructor(type, info, secret) {
    this.#info = info;
    this.#secret = secret;
    this.type = type;
  }
  get asymmetricKeyType() {
    return this.#info ? this.#info.asymmetric_key_type : undefined;
  }
  get asymmetricKeyDetails() {
    if (!this.#info) return undefined;
    const d = {};
    if (this.#info.modulus_length) Object.assign(d, { modulusLength: this.#info.modulus_length, publicExponent: 65537n });
    if (this.#info.named_curve) d.namedCurve = this.#info.named_curve;
    return d;
  }
  get symmetricKeySize() {
    return this.#secret ? this.#secret.length : undefined;
  }
  export(options = {}) {
    if (this.type === "secret") return options.format === "jwk" ? { kty: "oct", k: this.#secret.toString("base64url") } : Buffer.from(this.#secret);
    const pem = this.type === "private" ? this.#info.private_pem : this.#info.public_pem;
    const format = options.format || "pem";
    const type = options.type || (this.type === "private" ? "pkcs8" : "spki");
    if ((this.type === "private" && type !== "pkcs8") || (this.type === "public" && type !== "spki")) {
      throw keyError("fount exports private keys as pkcs8 and public keys as spki, not " + type, "ERR_CRYPTO_INCOMPATIBLE_KEY_OPTIONS");
    }
    if (format === "pem") return pem;
    if (format === "der") return Buffer.from(pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
    throw keyError("fount exports keys as pem or der, not " + format, "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE");
  }
  equals(other) {
    if (!(other instanceof KeyObject) || other.type !== this.type) return false;
    if (this.type === "secret") return timingSafeEqual(this.#secret, other.#secret);
    return this.export() === other.export();
  }
  // keyBytes is what the host is sent of the key.
  static keyBytes(k) {
    return k.type === "secret" ? k.#secret : Buffer.from(k.type === "private" ? k.#info.private_pem : k.#info.public_pem);
  }
}

// keyInput reads what Node's key arguments may be: a KeyObject, PEM or
// DER (string or bytes), or {key, format, type, passphrase}.
function keyInput(key) {
  if (key instanceof KeyObject) return key;
  let material = key;
  if (key && typeof key === "object" && !Buffer.isBuffer(key) && !ArrayBuffer.isView(key) && "key" in key) {
    if (key.passphrase !== undefined) throw keyError("encrypted private keys are not supported: give the key unencrypted", "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM");
    if (key.key instanceof KeyObject) return key.key;
    material = key.key;
  }
  return toBuffer(material, "utf8");
}

function describe(key) {
  const input = keyInput(key);
  if (input instanceof KeyObject) return input;
  const info = ask({ op: "key", key: input.toString("base64") }).key;
  return new KeyObject(info.type, info);
}

export function createPrivateKey(key) {
  const k = describe(key);
  if (k.type !== "private") throw keyError("error:1E08010C:DECODER routines::unsupported (not a private key)");
  return k;
}

export function createPublicKey(key) {
  const k = describe(key);
  if (k.type === "secret") throw keyError("a secret key has no public key", "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE");
  if (k.type === "public") return k;
  const info = ask({ op: "key", key: KeyObject.keyBytes(k).toString("base64") }).key;
  return new KeyObject("public", Object.assign({}, info, { type: "public", private_pem: undefined }));
}

export function createSecretKey(key, enc) {
  return new KeyObject("secret", null, Buffer.from(toBuffer(key, enc)));
}

function hashOf(alg) {
  if (alg === null || alg === undefined) return "";
  // Node takes "sha256", "RSA-SHA256", "SHA256", "sha256WithRSAEncryption".
  const m = /(sha-?(1|256|384|512)|md5)/i.exec(String(alg));
  if (!m) throw keyError("Invalid digest: " + alg, "ERR_CRYPTO_INVALID_DIGEST");
  return algOf(m[1] ? "sha" + m[2] : "md5");
}

function signRequest(op, alg, data, key) {
  const options = key && typeof key === "object" && !(key instanceof KeyObject) && !Buffer.isBuffer(key) && !ArrayBuffer.isView(key) ? key : {};
  const k = keyInput(key);
  const req = { op, alg: hashOf(alg), data: toBuffer(data).toString("base64"),
    key: (k instanceof KeyObject ? KeyObject.keyBytes(k) : k).toString("base64") };
  if (options.padding === constants.RSA_PKCS1_PSS_PADDING) {
    req.padding = "pss";
    req.salt_length = options.saltLength === undefined ? -2 : options.saltLength;
  }
  if (options.dsaEncoding === "ieee-p1363") req.dsa_encoding = "ieee-p1363";
  return req;
}

export function sign(alg, data, key, cb) {
  const out = Buffer.from(ask(signRequest("sign", alg, data, key)).bytes, "base64");
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, out));
    return undefined;
  }
  return out;
}

export function verify(alg, data, key, signature, cb) {
  const req = signRequest("verify", alg, data, key);
  req.signature = toBuffer(signature).toString("base64");
  const ok = ask(req).valid === true;
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, ok));
    return undefined;
  }
  return ok;
}

class Signer {
  #alg;
  #chunks = [];
  constructor(alg) {
    this.#alg = alg;
    hashOf(alg);
  }
  update(data, enc) {
    this.#chunks.push(Buffer.from(toBuffer(data, enc))); // a copy: callers reuse their buffers
    return this;
  }
  write(data, enc) {
    this.update(data, enc);
    return true;
  }
  end(data, enc) {
    if (data !== undefined) this.update(data, enc);
    return this;
  }
  sign(key, enc) {
    return encoded(sign(this.#alg, Buffer.concat(this.#chunks), key), enc);
  }
  verify(key, signature, enc) {
    return verify(this.#alg, Buffer.concat(this.#chunks), key, typeof signature === "string" ? Buffer.from(signature, enc || "utf8") : signature);
  }
}

export const createSign = (alg) => new Signer(alg);
export const createVerify = (alg) => new Signer(alg);
export const Sign = Signer;
export const Verify = Signer;

// ---- key generation and agreement -----------------------------------

// Node's curve names and their aliases (JWK's and the NIST names).
const curveNames = { "prime256v1": "prime256v1", "p-256": "prime256v1", "secp256r1": "prime256v1",
  "secp384r1": "secp384r1", "p-384": "secp384r1", "secp521r1": "secp521r1", "p-521": "secp521r1" };

function namedCurve(name) {
  const c = curveNames[String(name).toLowerCase()];
  if (!c) throw Object.assign(new TypeError("Invalid EC curve name"), { code: "ERR_CRYPTO_INVALID_CURVE" });
  return c;
}

function publicHalf(info) {
  return new KeyObject("public", Object.assign({}, info, { type: "public", private_pem: undefined }));
}

function encodedKey(k, encoding) {
  return encoding ? k.export(encoding) : k;
}

export function generateKeyPairSync(type, options = {}) {
  const req = { op: "generate", key_type: String(type) };
  if (type === "rsa") {
    if (options.publicExponent !== undefined && Number(options.publicExponent) !== 65537) {
      throw keyError("fount makes RSA keys with the public exponent 65537 only", "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM");
    }
    req.modulus_length = Number(options.modulusLength);
  } else if (type === "ec") {
    req.named_curve = namedCurve(options.namedCurve);
  } else if (type !== "ed25519" && type !== "x25519") {
    throw Object.assign(new TypeError("The argument 'type' must be a supported key type. Received '" + type + "'"),
      { code: "ERR_INVALID_ARG_VALUE" });
  }
  const reply = hostReply(req);
  if (reply.error !== undefined) hostFailure(reply, RangeError);
  const privateKey = new KeyObject("private", reply.key);
  return { publicKey: encodedKey(publicHalf(reply.key), options.publicKeyEncoding),
    privateKey: encodedKey(privateKey, options.privateKeyEncoding) };
}

export function generateKeyPair(type, options, cb) {
  if (typeof options === "function") [cb, options] = [options, {}];
  later(() => generateKeyPairSync(type, options), (err, pair) => (err ? cb(err) : cb(null, pair.publicKey, pair.privateKey)));
}

// diffieHellman is the secret two keys share: EC keys on one curve, or
// X25519 keys.
export function diffieHellman({ privateKey, publicKey } = {}) {
  if (!(privateKey instanceof KeyObject) || !(publicKey instanceof KeyObject)) {
    throw Object.assign(new TypeError("The \"options.privateKey\" and \"options.publicKey\" properties must be KeyObjects"),
      { code: "ERR_INVALID_ARG_TYPE" });
  }
  const reply = hostReply({ op: "dh", key: KeyObject.keyBytes(privateKey).toString("base64"),
    peer: KeyObject.keyBytes(publicKey).toString("base64") });
  if (reply.error !== undefined) hostFailure(reply);
  return Buffer.from(reply.bytes || "", "base64");
}

// compressPoint is an uncompressed point's compressed form (0x02 or 0x03
// by y's parity, then x).
function compressPoint(point) {
  const size = (point.length - 1) / 2;
  const out = Buffer.alloc(size + 1);
  out[0] = point[point.length - 1] & 1 ? 3 : 2;
  point.copy(out, 1, 1, 1 + size);
  return out;
}

export class ECDH {
  #curve;
  #private = null;
  #public = null;
  constructor(curve) {
    this.#curve = namedCurve(curve);
  }
  #keys(key) {
    const req = { op: "ecdh", named_curve: this.#curve };
    if (key) req.key = key.toString("base64");
    const reply = hostReply(req);
    if (reply.error !== undefined) hostFailure(reply);
    this.#private = Buffer.from(reply.private, "base64");
    this.#public = Buffer.from(reply.public, "base64");
  }
  generateKeys(enc, format) {
    this.#keys(null);
    return this.getPublicKey(enc, format);
  }
  setPrivateKey(key, enc) {
    this.#keys(toBuffer(key, enc));
  }
  getPrivateKey(enc) {
    if (!this.#private) throw Object.assign(new Error("Failed to get ECDH private key"), { code: "ERR_CRYPTO_OPERATION_FAILED" });
    return encoded(Buffer.from(this.#private), enc);
  }
  getPublicKey(enc, format) {
    if (!this.#public) throw Object.assign(new Error("Failed to get ECDH public key"), { code: "ERR_CRYPTO_OPERATION_FAILED" });
    return encoded(format === "compressed" ? compressPoint(this.#public) : Buffer.from(this.#public), enc);
  }
  computeSecret(other, inputEncoding, outputEncoding) {
    if (!this.#private) throw Object.assign(new Error("Failed to compute ECDH key"), { code: "ERR_CRYPTO_OPERATION_FAILED" });
    const reply = hostReply({ op: "ecdh", named_curve: this.#curve, key: this.#private.toString("base64"),
      peer: toBuffer(other, inputEncoding).toString("base64") });
    if (reply.error !== undefined) hostFailure(reply);
    return encoded(Buffer.from(reply.bytes, "base64"), outputEncoding);
  }
}
export const createECDH = (curve) => new ECDH(curve);

// ---- classic Diffie-Hellman ---------------------------------------------

// DiffieHellman holds a MODP group (or a prime and generator) and its
// keys; the host does the arithmetic (the modp op).
export class DiffieHellman {
  #group;
  #prime;
  #generator;
  #private = null;
  #public = null;
  constructor(prime, primeEncoding, generator, generatorEncoding, group) {
    this.#group = group || "";
    if (!group) {
      if (typeof prime === "number") {
        throw Object.assign(new Error("fount cannot generate Diffie-Hellman primes: give a prime, or use getDiffieHellman(group)"),
          { code: "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM" });
      }
      if (typeof primeEncoding !== "string") [generator, generatorEncoding] = [primeEncoding, generator];
      this.#prime = Buffer.from(toBuffer(prime, primeEncoding));
      this.#generator = generator === undefined ? Buffer.from([2]) : typeof generator === "number" ? numberBytes(generator)
        : Buffer.from(toBuffer(generator, generatorEncoding));
    }
    this.verifyError = 0;
  }
  #ask(extra) {
    const req = Object.assign({ op: "modp" }, this.#group ? { group: this.#group } : { prime: this.#prime.toString("base64"),
      generator: this.#generator.toString("base64") }, extra);
    const reply = hostReply(req);
    if (reply.error !== undefined) hostFailure(reply, reply.code === "ERR_CRYPTO_INVALID_KEYLEN" ? RangeError : Error);
    return reply;
  }
  generateKeys(enc) {
    const reply = this.#ask(this.#private ? { key: this.#private.toString("base64") } : {});
    this.#private = Buffer.from(reply.private, "base64");
    this.#public = Buffer.from(reply.public, "base64");
    return encoded(Buffer.from(this.#public), enc);
  }
  computeSecret(other, inputEncoding, outputEncoding) {
    if (!this.#private) throw Object.assign(new Error("Failed to compute the Diffie-Hellman secret: no private key"), { code: "ERR_CRYPTO_OPERATION_FAILED" });
    const reply = this.#ask({ key: this.#private.toString("base64"), peer: toBuffer(other, inputEncoding).toString("base64") });
    return encoded(Buffer.from(reply.bytes, "base64"), outputEncoding);
  }
  getPrime(enc) {
    return encoded(Buffer.from(this.#prime || groupPrime(this.#group)), enc);
  }
  getGenerator(enc) {
    return encoded(Buffer.from(this.#generator || Buffer.from([2])), enc);
  }
  getPublicKey(enc) {
    if (!this.#public) throw Object.assign(new Error("No public key - did you forget to generate one?"), { code: "ERR_CRYPTO_INVALID_STATE" });
    return encoded(Buffer.from(this.#public), enc);
  }
  getPrivateKey(enc) {
    if (!this.#private) throw Object.assign(new Error("No private key - did you forget to generate one?"), { code: "ERR_CRYPTO_INVALID_STATE" });
    return encoded(Buffer.from(this.#private), enc);
  }
  setPublicKey(key, enc) {
    this.#public = Buffer.from(toBuffer(key, enc));
    return this;
  }
  setPrivateKey(key, enc) {
    this.#private = Buffer.from(toBuffer(key, enc));
    this.#public = null;
    return this;
  }
}

function numberBytes(n) {
  const bytes = [];
  for (let v = Number(n); v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes.length ? bytes : [0]);
}

const dhGroupNames = ["modp1", "modp2", "modp5", "modp14", "modp15", "modp16", "modp17", "modp18"];
const groupPrimes = new Map();
// groupPrime is a named group's prime, which the host holds: it answers
// it with any modp op on the group.
function groupPrime(name) {
  if (!groupPrimes.has(name)) {
    const reply = hostReply({ op: "modp", group: name, key: Buffer.from([2]).toString("base64") });
    if (reply.error !== undefined) hostFailure(reply);
    groupPrimes.set(name, Buffer.from(reply.prime || "", "base64"));
  }
  return groupPrimes.get(name);
}

// DiffieHellmanGroup is a DiffieHellman on one of the named groups, whose
// keys cannot be set.
export class DiffieHellmanGroup extends DiffieHellman {
  constructor(name) {
    if (!dhGroupNames.includes(String(name))) throw Object.assign(new Error("Unknown DH group"), { code: "ERR_CRYPTO_UNKNOWN_DH_GROUP" });
    super(undefined, undefined, undefined, undefined, String(name));
    this.setPublicKey = undefined;
    this.setPrivateKey = undefined;
  }
}

export const createDiffieHellman = (prime, primeEncoding, generator, generatorEncoding) =>
  new DiffieHellman(prime, primeEncoding, generator, generatorEncoding);
export const getDiffieHellman = (name) => new DiffieHellmanGroup(name);
export const createDiffieHellmanGroup = getDiffieHellman;

export default { createHash, createHmac, randomBytes, randomFill, randomFillSync, randomInt, randomUUID, getRandomValues, webcrypto, subtle,
  timingSafeEqual, getHashes, getCiphers, getCurves, constants, Cipheriv, Decipheriv, createCipheriv, createDecipheriv,
  pbkdf2, pbkdf2Sync, hkdf, hkdfSync, scrypt, scryptSync, KeyObject, createPrivateKey, createPublicKey, createSecretKey, sign, verify,
  createSign, createVerify, Sign, Verify, generateKeyPair, generateKeyPairSync, diffieHellman, ECDH, createECDH,
  DiffieHellman, DiffieHellmanGroup, createDiffieHellman, getDiffieHellman, createDiffieHellmanGroup };
