// ssh2's lib/protocol/crypto/poly1305.js for fount. The original is
// Poly1305 compiled to WebAssembly by emscripten, which ssh2 instantiates
// when it loads; the guest has no WebAssembly, so every connection would
// fail before its key exchange. This module offers the same surface
// (a factory promising _malloc, cwrap("poly1305_auth") and HEAPU8) with
// Poly1305 (RFC 8439) in JavaScript over BigInt. ssh2 uses it only for
// the chacha20-poly1305 cipher.
"use strict";

const P = (1n << 130n) - 5n;
const CLAMP = 0x0ffffffc0ffffffc0ffffffc0fffffffn;
const MASK128 = (1n << 128n) - 1n;

// littleEndian reads n bytes from b at start as an unsigned number.
function littleEndian(b, start, n) {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[start + i]);
  return v;
}

// tag is the Poly1305 tag of msg under the 32-byte key.
function tag(msg, key) {
  const r = littleEndian(key, 0, 16) & CLAMP;
  const s = littleEndian(key, 16, 16);
  let acc = 0n;
  for (let i = 0; i < msg.length; i += 16) {
    const n = Math.min(16, msg.length - i);
    acc = ((acc + (littleEndian(msg, i, n) | (1n << BigInt(8 * n)))) * r) % P;
  }
  acc = (acc + s) & MASK128;
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(acc & 0xffn);
    acc >>= 8n;
  }
  return out;
}

module.exports = function createPoly1305() {
  const HEAPU8 = new Uint8Array(64);
  let next = 0;
  const mod = {
    HEAPU8,
    _malloc(size) {
      if (next + size > HEAPU8.length) throw new RangeError("poly1305: out of memory");
      const at = next;
      next += size;
      return at;
    },
    cwrap(name) {
      if (name !== "poly1305_auth") throw new Error("poly1305: no function " + name);
      return (out, m1, m1Len, m2, m2Len, key) => {
        const msg = new Uint8Array(m1Len + m2Len);
        msg.set(m1.subarray(0, m1Len), 0);
        msg.set(m2.subarray(0, m2Len), m1Len);
        HEAPU8.set(tag(msg, key), out);
      };
    },
  };
  return Promise.resolve(mod);
};
