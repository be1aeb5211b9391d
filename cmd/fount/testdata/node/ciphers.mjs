// node:crypto's ciphers and key derivation as Node 20 gives them: AES in
// CBC (padded and not), CTR, ECB and GCM (with additional data and a
// tag), ChaCha20-Poly1305, the errors of a wrong key, IV, tag or padding,
// and pbkdf2, hkdf and scrypt.
import crypto from "node:crypto";

const key = (n) => Buffer.from(Array.from({ length: n }, (_, i) => i));
const iv = (n) => Buffer.from(Array.from({ length: n }, (_, i) => 255 - i));

function seal(cipher, k, v, text, aad) {
  const c = crypto.createCipheriv(cipher, k, v);
  if (aad) c.setAAD(Buffer.from(aad));
  const enc = c.update(text, "utf8", "hex") + c.final("hex");
  return aad || cipher.endsWith("gcm") || cipher.startsWith("chacha") ? [enc, c.getAuthTag().toString("hex")] : [enc];
}

function open(cipher, k, v, [enc, tag], aad) {
  const d = crypto.createDecipheriv(cipher, k, v);
  if (aad) d.setAAD(Buffer.from(aad));
  if (tag) d.setAuthTag(Buffer.from(tag, "hex"));
  return Buffer.concat([d.update(Buffer.from(enc, "hex")), d.final()]).toString("utf8");
}

function failure(fn) {
  try {
    fn();
    return "ran";
  } catch (e) {
    return [e.code, e.message];
  }
}

export default {
  name: "node-ciphers",
  version: "0.1.0",
  async run() {
    const text = "attack at dawn, and bring cake";
    const out = {};
    for (const [cipher, k, v, aad] of [["aes-256-cbc", 32, 16], ["aes-128-ctr", 16, 16], ["aes-192-ecb", 24, 0],
      ["aes-256-gcm", 32, 12, "header"], ["aes-128-gcm", 16, 16], ["chacha20-poly1305", 32, 12, "meta"]]) {
      const sealed = seal(cipher, key(k), v ? iv(v) : null, text, aad);
      out[cipher] = [sealed, open(cipher, key(k), v ? iv(v) : null, sealed, aad)];
    }
    const raw = crypto.createCipheriv("aes-128-cbc", key(16), iv(16)).setAutoPadding(false);
    out.noPadding = [Buffer.concat([raw.update(key(32)), raw.final()]).toString("hex")];
    // update gives what it can at once: CTR all of it, CBC and ECB whole
    // blocks (decrypting with padding, all but the last block).
    const chunks = [text.slice(0, 5), text.slice(5, 25), text.slice(25), "", "0123456789abcdef0123"];
    for (const [cipher, v] of [["aes-128-ctr", 16], ["aes-256-cbc", 16], ["aes-192-ecb", 0]]) {
      const k = key(cipher.includes("128") ? 16 : cipher.includes("192") ? 24 : 32);
      const c = crypto.createCipheriv(cipher, k, v ? iv(v) : null);
      const parts = chunks.map((t) => c.update(t, "utf8"));
      parts.push(c.final());
      const sealed = Buffer.concat(parts);
      const d = crypto.createDecipheriv(cipher, k, v ? iv(v) : null);
      const opened = [1, 16, 17, 3].reduce(([acc, at], n) => [[...acc, d.update(sealed.subarray(at, at + n))], at + n], [[], 0]);
      const rest = d.update(sealed.subarray(37));
      const last = d.final();
      out["stream " + cipher] = [parts.map((p) => p.length), sealed.toString("hex"), opened[0].map((p) => p.length), rest.length, last.length,
        Buffer.concat([...opened[0], rest, last]).toString()];
    }
    out.errors = {
      keyAtCreation: failure(() => crypto.createCipheriv("aes-128-ctr", key(24), iv(16))),
      ivAtCreation: failure(() => crypto.createDecipheriv("aes-256-cbc", key(32), iv(12))),
      keyLength: failure(() => crypto.createCipheriv("aes-256-cbc", key(16), iv(16)).final()),
      iv: failure(() => crypto.createCipheriv("aes-128-cbc", key(16), iv(8)).final()),
      blocks: failure(() => {
        const c = crypto.createCipheriv("aes-128-cbc", key(16), iv(16)).setAutoPadding(false);
        c.update("short");
        return c.final();
      }),
      badTag: failure(() => open("aes-256-gcm", key(32), iv(12), [seal("aes-256-gcm", key(32), iv(12), text)[0], "00".repeat(16)])),
      badPadding: failure(() => open("aes-128-cbc", key(16), iv(16), [seal("aes-128-cbc", key(16), iv(16), text)[0].slice(0, -32) + "00".repeat(16)])),
      unknown: failure(() => crypto.createCipheriv("rot13", key(16), iv(16))),
    };
    out.pbkdf2 = crypto.pbkdf2Sync("secret", "salt", 1000, 32, "sha256").toString("hex");
    out.pbkdf2Callback = await new Promise((resolve) => crypto.pbkdf2("secret", "salt", 10, 16, "sha512", (err, k) => resolve([err, k.toString("hex")])));
    out.hkdf = Buffer.from(crypto.hkdfSync("sha256", "input key", "salt", "info", 42)).toString("hex");
    out.scrypt = crypto.scryptSync("secret", "salt", 32, { N: 1024 }).toString("hex");
    out.ciphers = ["aes-256-gcm", "chacha20-poly1305", "aes-128-cbc"].map((c) => crypto.getCiphers().includes(c));
    this.$emit(out);
  },
};
