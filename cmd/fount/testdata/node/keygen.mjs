// node:crypto's key generation and key agreement as Node 20 gives them:
// generateKeyPair(Sync) for RSA, EC, Ed25519 and X25519 (KeyObjects or
// encoded keys), diffieHellman on X25519 (RFC 7748's vectors) and EC,
// createECDH with a fixed private key, compressed points, and the errors
// of a wrong curve, key type or point.
import crypto from "node:crypto";

const x25519Private = (hex) => crypto.createPrivateKey({ key: Buffer.from("302e020100300506032b656e04220420" + hex, "hex"), format: "der", type: "pkcs8" });
const x25519Public = (hex) => crypto.createPublicKey({ key: Buffer.from("302a300506032b656e032100" + hex, "hex"), format: "der", type: "spki" });

function failure(fn) {
  try {
    fn();
    return "ran";
  } catch (e) {
    return [e.name, e.code];
  }
}

function pair(type, options) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type, options);
  const signs = type === "x25519" ? null
    : crypto.verify(type === "ed25519" ? null : "sha256", Buffer.from("k"), publicKey, crypto.sign(type === "ed25519" ? null : "sha256", Buffer.from("k"), privateKey));
  const d = publicKey.asymmetricKeyDetails;
  return [publicKey.type, privateKey.type, privateKey.asymmetricKeyType, d.modulusLength, d.publicExponent === undefined ? null : String(d.publicExponent), d.namedCurve, signs];
}

export default {
  name: "node-keygen",
  version: "0.0.1",
  async run() {
    const out = {};
    out.rsa = pair("rsa", { modulusLength: 1024 });
    out.ec = pair("ec", { namedCurve: "P-256" });
    out.ec384 = pair("ec", { namedCurve: "secp384r1" });
    out.ed25519 = pair("ed25519");
    out.x25519 = pair("x25519");
    const pem = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1",
      publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
    out.pem = [pem.publicKey.split("\n")[0], pem.privateKey.split("\n")[0], crypto.createPrivateKey(pem.privateKey).asymmetricKeyType];
    const der = crypto.generateKeyPairSync("x25519", { publicKeyEncoding: { type: "spki", format: "der" } });
    out.x25519Der = [Buffer.isBuffer(der.publicKey), der.publicKey.length];
    out.async = await new Promise((resolve) => crypto.generateKeyPair("ed25519", (err, pub, priv) => resolve([err, pub.type, priv.type])));

    // RFC 7748, section 6.1.
    const alice = x25519Private("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    const bob = x25519Public("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    out.x25519Secret = crypto.diffieHellman({ privateKey: alice, publicKey: bob }).toString("hex");
    out.x25519Public = crypto.createPublicKey(alice).export({ type: "spki", format: "der" }).subarray(-32).toString("hex");
    const a = crypto.generateKeyPairSync("ec", { namedCurve: "secp384r1" });
    const b = crypto.generateKeyPairSync("ec", { namedCurve: "secp384r1" });
    const ab = crypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey });
    out.ecSecret = [ab.length, ab.equals(crypto.diffieHellman({ privateKey: b.privateKey, publicKey: a.publicKey }))];
    out.mixed = failure(() => crypto.diffieHellman({ privateKey: alice, publicKey: b.publicKey }));

    const ecdh = crypto.createECDH("prime256v1");
    ecdh.setPrivateKey("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721", "hex");
    const peer = crypto.createECDH("prime256v1");
    peer.setPrivateKey(Buffer.alloc(32, 7));
    out.ecdh = [ecdh.getPublicKey("hex"), ecdh.getPublicKey("hex", "compressed"), ecdh.getPrivateKey("hex"),
      ecdh.computeSecret(peer.getPublicKey()).toString("hex"), ecdh.computeSecret(peer.getPublicKey(null, "compressed"), null, "base64")];
    const fresh = crypto.createECDH("secp521r1");
    const key = fresh.generateKeys();
    const other = crypto.createECDH("secp521r1");
    other.generateKeys();
    out.ecdhFresh = [key.length, fresh.computeSecret(other.getPublicKey()).equals(other.computeSecret(key))];
    out.badCurve = failure(() => crypto.createECDH("nope"));
    out.badType = failure(() => crypto.generateKeyPairSync("foo", {}));
    out.badPoint = failure(() => ecdh.computeSecret(Buffer.from("04deadbeef", "hex")));
    out.noKeys = failure(() => crypto.createECDH("prime256v1").getPublicKey());
    out.exports = [typeof crypto.ECDH, typeof crypto.generateKeyPair, typeof crypto.diffieHellman];

    // Classic Diffie-Hellman: a named group, and a prime given with fixed
    // private keys, and the errors of bad public keys and groups.
    const prime = crypto.getDiffieHellman("modp1").getPrime();
    const dhA = crypto.createDiffieHellman(prime, 2);
    dhA.setPrivateKey(Buffer.alloc(20, 3));
    dhA.generateKeys();
    const dhB = crypto.createDiffieHellman(prime, Buffer.from([2]));
    dhB.setPrivateKey(Buffer.alloc(20, 7));
    const bPublic = dhB.generateKeys("hex");
    const g1 = crypto.getDiffieHellman("modp14"), g2 = crypto.createDiffieHellmanGroup("modp14");
    g1.generateKeys();
    g2.generateKeys();
    out.dh = [prime.length, dhA.getPublicKey("hex"), bPublic, dhA.computeSecret(bPublic, "hex", "hex"), dhA.computeSecret(dhB.getPublicKey()).length,
      dhA.getGenerator("hex"), g1.getPrime().equals(crypto.getDiffieHellman("modp14").getPrime()), g1.getPublicKey().length > 200,
      g1.computeSecret(g2.getPublicKey()).equals(g2.computeSecret(g1.getPublicKey())), g1.verifyError, typeof g1.setPrivateKey,
      failure(() => dhA.computeSecret(Buffer.from([1]))), failure(() => dhA.computeSecret(prime)), failure(() => crypto.getDiffieHellman("nope")),
      failure(() => crypto.createDiffieHellman(Buffer.from([23]), 5).generateKeys())];
    this.$emit(out);
  },
};
