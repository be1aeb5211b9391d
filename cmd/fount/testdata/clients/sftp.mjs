// ssh2-sftp-client against a real OpenSSH server: a key exchange
// (curve25519 with AES-GCM, ECDH P-256 with AES-CTR and an HMAC, classic
// Diffie-Hellman on a group and by group exchange), a
// host key checked by its fingerprint, public-key login, and SFTP's put,
// list, stat, get, append, rename, mkdir, rmdir, delete and a missing
// file's error; and ssh2's Poly1305, which fount replaces.
import Client from "ssh2-sftp-client";
import crypto from "node:crypto";
import createPoly1305 from "ssh2/lib/protocol/crypto/poly1305.js";

// poly1305Tag is the tag ssh2's Poly1305 (WebAssembly in Node, fount's
// JavaScript replacement in fount) gives for m1 then m2 under key.
async function poly1305Tag(key, m1, m2) {
  const mod = await createPoly1305();
  const out = mod._malloc(16);
  mod.cwrap("poly1305_auth", null, ["number", "array", "number", "array", "number", "array"])(out, m1, m1.length, m2, m2.length, key);
  return Buffer.from(mod.HEAPU8.subarray(out, out + 16)).toString("hex");
}

export default {
  name: "clients-sftp",
  version: "0.1.0",
  async run(event) {
    const sftp = new Client();
    const out = {};
    let hostKey = null;
    await sftp.connect({
      host: "127.0.0.1",
      port: event.port,
      username: event.username,
      privateKey: event.key,
      hostVerifier: (key) => {
        hostKey = "SHA256:" + crypto.createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
        return hostKey === event.fingerprint;
      },
    });
    out.hostKeyChecked = hostKey === event.fingerprint;
    // The same server serves fount's run and Node's: each starts afresh.
    const dir = event.dir + "/work";
    if (await sftp.exists(dir)) await sftp.rmdir(dir, true);
    await sftp.mkdir(dir);
    out.put = (await sftp.put(Buffer.from("hello over sftp\n"), dir + "/hello.txt")).replace(dir, "DIR");
    await sftp.append(Buffer.from("and more\n"), dir + "/hello.txt");
    out.get = (await sftp.get(dir + "/hello.txt")).toString();
    out.stat = (({ size, isFile, isDirectory }) => ({ size, isFile, isDirectory }))(await sftp.stat(dir + "/hello.txt"));
    out.mkdir = (await sftp.mkdir(dir + "/sub/deeper", true)).replace(dir, "DIR");
    await sftp.rename(dir + "/hello.txt", dir + "/sub/renamed.txt");
    out.list = (await sftp.list(dir + "/sub")).map((f) => [f.type, f.name, f.type === "d" ? "dir" : f.size]).sort();
    out.exists = [await sftp.exists(dir + "/sub/renamed.txt"), await sftp.exists(dir + "/hello.txt")];
    const big = crypto.createHash("sha256").update("seed").digest().toString("hex").repeat(4096);
    await sftp.put(Buffer.from(big), dir + "/big.txt");
    const back = await sftp.get(dir + "/big.txt");
    out.big = [back.length, back.toString() === big];
    try {
      await sftp.get(dir + "/missing.txt");
    } catch (e) {
      out.missing = [e.code, e.message.replace(dir, "DIR")];
    }
    // A second connection on other algorithms: ECDH on P-256, AES in CTR
    // mode (a stream cipher) with an HMAC.
    const other = new Client();
    await other.connect({ host: "127.0.0.1", port: event.port, username: event.username, privateKey: event.key,
      algorithms: { kex: ["ecdh-sha2-nistp256"], cipher: ["aes256-ctr"], hmac: ["hmac-sha2-256-etm@openssh.com"] } });
    out.otherAlgorithms = [(await other.list(dir)).map((f) => f.name).sort(), (await other.get(dir + "/big.txt")).length];
    await other.end();
    // And classic Diffie-Hellman: a MODP group, and a group the server
    // chooses (group exchange).
    for (const kex of ["diffie-hellman-group14-sha256", "diffie-hellman-group-exchange-sha256"]) {
      const classic = new Client();
      await classic.connect({ host: "127.0.0.1", port: event.port, username: event.username, privateKey: event.key, algorithms: { kex: [kex] } });
      out[kex] = (await classic.list(dir)).length;
      await classic.end();
    }
    out.delete = (await sftp.delete(dir + "/big.txt")).replace(dir, "DIR");
    out.end = await sftp.end();
    // RFC 8439, section 2.5.2, the message split in two as ssh2 does.
    const msg = Buffer.from("Cryptographic Forum Research Group");
    out.poly1305 = await poly1305Tag(Buffer.from("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b", "hex"),
      msg.subarray(0, 4), msg.subarray(4));
    this.$emit(out);
  },
};
