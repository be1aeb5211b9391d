// fs's file descriptors and streams on /tmp, as upload helpers (form-data)
// and CSV or log writers use them: fount must give what Node 20 gives.
import fs from "fs";
import { pipeline } from "stream/promises";

export default {
  name: "node-fs-streams",
  version: "0.1.0",
  async run() {
    const out = {};
    const dir = "/tmp/fount-fs-streams";
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir);
    const fd = fs.openSync(dir + "/fd.txt", "w+");
    out.fd = [fs.writeSync(fd, "hello "), fs.writeSync(fd, Buffer.from("world")), fs.fstatSync(fd).size];
    const back = Buffer.alloc(5);
    out.fdRead = [fs.readSync(fd, back, 0, 5, 6), back.toString()];
    fs.closeSync(fd);
    let badFd = null;
    try { fs.fstatSync(fd); } catch (e) { badFd = e.code; }
    out.badFd = badFd;

    const events = [];
    const ws = fs.createWriteStream(dir + "/w.txt");
    ws.on("open", () => events.push("w:open"));
    ws.write("line 1\n");
    ws.write(Buffer.from("line 2\n"));
    await new Promise((resolve) => ws.end("line 3\n", resolve));
    out.written = [ws.bytesWritten, fs.readFileSync(dir + "/w.txt", "utf8"), ws instanceof fs.WriteStream];

    const rs = fs.createReadStream(dir + "/w.txt", { encoding: "utf8", start: 7, end: 13 });
    rs.on("open", () => events.push("r:open"));
    let text = "";
    for await (const chunk of rs) text += chunk;
    out.read = [text, rs.bytesRead, rs instanceof fs.ReadStream, rs instanceof fs.WriteStream];

    await pipeline(fs.createReadStream(dir + "/w.txt"), fs.createWriteStream(dir + "/copy.txt"));
    out.copied = fs.readFileSync(dir + "/copy.txt", "utf8") === fs.readFileSync(dir + "/w.txt", "utf8");
    let missing = null;
    await new Promise((resolve) => fs.createReadStream(dir + "/nope").on("error", (e) => { missing = e.code; resolve(); }));
    out.missing = missing;
    out.events = events;
    fs.rmSync(dir, { recursive: true, force: true });
    this.$emit(out);
  },
};
