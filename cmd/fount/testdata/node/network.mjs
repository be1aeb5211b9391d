// The errors of a request that cannot connect (nothing listens on port 2
// of loopback), as fetch and node:http give them: SDKs and components
// branch on their codes.
import http from "node:http";

export default {
  name: "node-network-errors",
  version: "0.1.0",
  async run() {
    const out = {};
    try {
      await fetch("http://127.0.0.1:2/x");
    } catch (e) {
      out.fetch = [e.name, e.message, e.cause instanceof Error, e.cause && e.cause.code, e.cause && e.cause.errno, e.cause && e.cause.syscall,
        e.cause && e.cause.address, e.cause && e.cause.port, e.cause && e.cause.message.split(" (")[0]];
    }
    out.http = await new Promise((resolve) => {
      const req = http.get("http://127.0.0.1:2/x", () => resolve("answered"));
      req.on("error", (e) => resolve([e instanceof Error, e.code, e.errno, e.syscall, e.address, e.port, e.message.split(" (")[0]]));
    });
    this.$emit(out);
  },
};
