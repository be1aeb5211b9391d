// Calls of fs, fs/promises and fs's callbacks on /tmp: fount (whose /tmp
// is in memory, for one call) must give what Node 20 gives on a real one.
import fs from "fs";
import { promises as fsp } from "node:fs";
import fsPromises from "fs/promises";

export default {
  name: "node-fs",
  version: "0.1.0",
  async run() {
    const out = {};
    const dir = "/tmp/fount-fs-fixture";
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir + "/a/b", { recursive: true });
    fs.writeFileSync(dir + "/a/x.txt", "héllo");
    fs.appendFileSync(dir + "/a/x.txt", " world");
    out.read = fs.readFileSync(dir + "/a/x.txt", "utf8");
    out.bytes = fs.readFileSync(dir + "/a/x.txt").length;
    out.list = fs.readdirSync(dir + "/a").sort();
    const st = fs.statSync(dir + "/a/x.txt");
    out.stat = [st.isFile(), st.isDirectory(), st.size, fs.statSync(dir + "/a").isDirectory()];
    out.exists = [fs.existsSync(dir + "/a/x.txt"), fs.existsSync(dir + "/nope")];
    const codes = [];
    for (const f of [() => fs.readFileSync(dir + "/nope"), () => fs.mkdirSync(dir + "/a"), () => fs.rmdirSync(dir + "/a"),
      () => fs.readdirSync(dir + "/a/x.txt"), () => fs.unlinkSync(dir + "/a")]) {
      try { f(); codes.push("none"); } catch (e) { codes.push(e.code); }
    }
    out.errors = codes;
    await fsp.writeFile(dir + "/p.json", JSON.stringify({ k: 1 }));
    out.promises = JSON.parse(await fsPromises.readFile(dir + "/p.json", "utf8"));
    fs.renameSync(dir + "/p.json", dir + "/q.json");
    fs.copyFileSync(dir + "/q.json", dir + "/r.json");
    await new Promise((resolve) => fs.readFile(dir + "/r.json", "utf8", (err, data) => { out.callback = [err, data]; resolve(); }));
    fs.unlinkSync(dir + "/q.json");
    out.after = fs.readdirSync(dir).sort();
    fs.rmSync(dir, { recursive: true });
    out.gone = fs.existsSync(dir);
    this.$emit(out);
  },
};
