// What libraries read of process at load (got's versions.node, Slack's
// SDK's version and title, axios's check that process is Node's) and the
// punycode module (tr46, under node-fetch@2): fount must answer as Node
// 20 does, in shape where the values are the machine's.
import punycode from "punycode";
import { platform, version as namedVersion } from "node:process";

export default {
  name: "node-process",
  version: "0.1.0",
  async run() {
    const out = {};
    out.tag = Object.prototype.toString.call(process);
    out.version = /^v20\.\d+\.\d+$/.test(process.version) && process.version === namedVersion;
    out.versions = [typeof process.versions.node, process.versions.node.split(".")[0], typeof process.versions.v8, typeof process.versions.uv];
    out.identity = [typeof process.title, process.release.name, platform, typeof process.arch, typeof process.pid, Array.isArray(process.argv), Array.isArray(process.execArgv)];
    const t = process.hrtime();
    out.hrtime = [t.length, typeof t[0], typeof t[1], typeof process.hrtime.bigint(), process.hrtime(t).length];
    out.numbers = [typeof process.uptime(), typeof process.cwd(), Object.keys(process.memoryUsage()).sort(), typeof process.memoryUsage.rss()];
    out.events = [process.on("warning", () => {}) === process, typeof process.emitWarning, typeof process.nextTick, typeof process.umask()];
    out.punycode = [punycode.toASCII("mañana.com"), punycode.toUnicode("xn--maana-pta.com"), punycode.encode("mañana"),
      punycode.decode("maana-pta"), punycode.ucs2.decode("𝄞a"), punycode.ucs2.encode([0x1d11e, 97])];
    this.$emit(out);
  },
};
