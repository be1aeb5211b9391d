// Signatures and keys of node:crypto, as jsonwebtoken, Google's and
// GitHub Apps' SDKs use them: fount must give what Node 20 gives. The keys
// were made for this test (RSA as PKCS #1, EC as SEC 1, Ed25519 as
// PKCS #8 PEM); RSA PKCS #1 v1.5 and Ed25519 signatures are deterministic,
// ECDSA and PSS ones are checked by verifying them.
import crypto from "node:crypto";

const RSA = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAqp+3kP0kAQXyhQ8TvQxoNFdBp6PGuOA6NEwmxtEzxjIjnROE\nwt3e3zJOU2eB+oyEWjWL7enjoxWisT/LII+K8rHWNBeTrAY/jtENnf6KW3ahc7Sj\nQzS6kxX8kBzteOZkW3Q31u9a9UJlP1AITE2GHdazew9IQ/xAKaWvyV7EMDStL6F6\nDF/YFFUxUIM8VjgrYQONSEwROq0qJTtloOD+lSJbRSiBcPm469bQ30isT7lHLTRR\nHeDeG6pXQJXMks7K4HpIGYM5YZYShjpMPHy3CoxAbRK4kXpQqNFB7VJeDDwWTUHI\nxlnxzK+Qt3RGaRRTPr49s750VGVPvloVxKRrxwIDAQABAoIBAASbo3+SIykAMzB1\nLf8S1FlU8/DBlaD6/dm0uRMVpbkYD2oFgW0E+6j55p0yvVxDGD32BBsRa6JXZZla\nAaGV1/srh1rI8RPQ56s8F2ZE3hGP3GkY6QHZ/1jLt0k8OQzAeCDzTqDBdRhV3Fn/\nl69+JDR380kVTu6tY6+lZYS9WqsxJISWJWX/jiL7amycF/T3J+UgQOFNYqZs39Ky\nd+zMgh/DuOom4mdag8tWnEt0NAX74fgRCjfIl1V6VhLwIJs8ziy/vpxjykb2dmn+\naNmmLe5z65rSSQ78BiHLFyOZOvZec8MplQGgrZsDshDjSmZU1RBtBZSQCI37vEKI\nht0KN6kCgYEA5iVrnC5FQxpCfVNgq2ZaAmQZJN7132l9yfQu9wEqd9OY6vNllmsM\ngBAl9USVOeqk6YUyMOL9BuyT763D32tjvExnclfyFjDi7Ar//VPYbZvpbEjSoucw\nNts1+in0DuiETiAOEEIYGVARq45ktOt685xEUg9uGoyFQWOyu5kQsjkCgYEAvcqL\ns5dxulRcfh4ZhuWPvq3cCT3Vm4DF1he8aJ0b21xyRUlz/S6k1GrllyEXWACRvkrk\nB+o63XHwBsqR2vrkgQqrERRwQnpuSgcGnLdA8yV9syucnnmWAkYurUWqVB19eT0t\nFZT3n2Yk13g62JK8BPCezWu7v6KJhESd6fumDf8CgYAL+nieWV4rfutlAHjwktQu\nea1BWQVtCl2MrFPhcUMXl4DHAcIQ0SOGatC+8kHeENNigBc7qiTHPnr4p4+hSkKX\no1ZjAibMduDori3iroF+OvYsN6IW7nd483HcwmA8gmeYdVymBfqhHqS8zB17uSHe\nGg0IRFtTsGqjG6BK2U2gKQKBgAxUtpLqigcTKBdBmWL8U0SOQzeOfuxlh3ULgcBC\nROcRsJLz3MdcWnU6pMQW8E9VaiK09u/UthJhLrkiPCvAFUyVBtxLOaf4EGZa4oEY\nHu4tR2d2s+xP9gEb0jiLyC9C4z4XTXCThysiFc6yDxC3J+QiRg8Oqtoek1S2qJPl\nN7q9AoGBAJDY5+EIGuKdSQ2b+IwoHqdG+KquvB9K56RO7f6UueOhp9LgTaLBn5jJ\nbvOB9w5OXUBeSKyA6O0NR8brUxS3DSmYANI+AgpANU7Xfqg4Xln21odqE0OhS4eJ\nIOgALs1SQS2lgRbMNZrYBsM6lPlRo34Zs0RQUfKhAhwprIo8inMI\n-----END RSA PRIVATE KEY-----\n";
const EC = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEICZqN5rqH9pf/4P+634ne1hfmqjKk1qt35mMtxn2jg4OoAoGCCqGSM49\nAwEHoUQDQgAE0MIJ0o0bcYrInm2Snk3b05Uv0iBvFVgdVJUF22P1Wg5gYTrUsrrR\nUBVGZN9YE+/4vLEFGstrIXKh3v75pD2HCg==\n-----END EC PRIVATE KEY-----\n";
const ED = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINrSFefr/ZQhlEpa0xyk0qDNvawZ0bqcDLhfiaAWS11r\n-----END PRIVATE KEY-----\n";

export default {
  name: "node-crypto-sign",
  version: "0.1.0",
  async run() {
    const out = {};
    const rsa = crypto.createPrivateKey(RSA);
    const rsaPub = crypto.createPublicKey(RSA);
    out.rsaKey = [rsa.type, rsa.asymmetricKeyType, rsa.asymmetricKeyDetails.modulusLength, rsaPub.type,
      rsaPub.export({ type: "spki", format: "pem" }).split("\n")[0], crypto.createPublicKey(rsa).export({ type: "spki", format: "der" }).length];
    const jwtInput = Buffer.from('{"alg":"RS256","typ":"JWT"}').toString("base64url") + "." + Buffer.from('{"sub":"ada"}').toString("base64url");
    const signed = crypto.createSign("RSA-SHA256").update(jwtInput).sign(RSA, "base64url");
    out.rs256 = signed;
    out.rs256Verify = [crypto.createVerify("sha256").update(jwtInput).verify(rsaPub, signed, "base64url"),
      crypto.verify("sha256", Buffer.from(jwtInput + "x"), rsaPub, Buffer.from(signed, "base64url"))];
    const pss = crypto.sign("sha256", Buffer.from("pss"), { key: rsa, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    out.pss = [pss.length, crypto.verify("sha256", Buffer.from("pss"), { key: rsaPub, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, pss)];
    const ec = crypto.createPrivateKey(EC);
    out.ecKey = [ec.asymmetricKeyType, ec.asymmetricKeyDetails.namedCurve];
    const es = crypto.sign("sha256", Buffer.from("ec"), EC);
    const esRaw = crypto.sign("sha256", Buffer.from("ec"), { key: EC, dsaEncoding: "ieee-p1363" });
    out.es256 = [crypto.verify("sha256", Buffer.from("ec"), crypto.createPublicKey(EC), es), esRaw.length,
      crypto.verify("sha256", Buffer.from("ec"), { key: crypto.createPublicKey(EC), dsaEncoding: "ieee-p1363" }, esRaw),
      crypto.verify("sha256", Buffer.from("ec!"), crypto.createPublicKey(EC), es)];
    const ed = crypto.createPrivateKey(ED);
    out.ed25519 = [ed.asymmetricKeyType, crypto.sign(null, Buffer.from("ed"), ED).toString("base64"),
      crypto.verify(null, Buffer.from("ed"), crypto.createPublicKey(ED), crypto.sign(null, Buffer.from("ed"), ed))];
    const secret = crypto.createSecretKey(Buffer.from("k3y"));
    out.secret = [secret.type, secret.symmetricKeySize, crypto.createHmac("sha256", secret).update("x").digest("hex")];
    let bad = null;
    try { crypto.createPrivateKey("not a key"); } catch (e) { bad = e instanceof Error; }
    out.bad = bad;
    this.$emit(out);
  },
};
