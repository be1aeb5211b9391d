// The Node baseline of fount's load benchmark: a hand-written host that
// runs the same component in a fresh vm context per request and appends
// each emitted event to a log with grouped fsync, answering a request
// once its event is on disk. It is what a careful team would write
// instead of fount, with none of fount's isolation or API.
//
//   node host.js <data-dir>
//
// It prints "listening on http://127.0.0.1:PORT"; POST /h/<any> runs the
// component with the request, GET /stats answers {"stored": n,
// "latencies_us": [...]}, each latency from the request's "sent" (unix
// ns) to its fsync.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const vm = require("vm");

const component = `export default { name: "Load", version: "1", props: { http: "$.interface.http" },
  run(e) { this.$emit({ sent: e.body.sent }) } }`;
const script = new vm.Script(component.replace("export default", "globalThis.__component ="));

const fd = fs.openSync(path.join(process.argv[2], "events.log"), "a");
let pending = []; // {line, res, sent}
let syncing = false;
let stored = 0;
const latencies = [];
const nowNs = () => (performance.timeOrigin + performance.now()) * 1e6;

// commit writes and fsyncs everything pending; requests that arrive
// meanwhile form the next group.
function commit() {
  if (syncing || pending.length === 0) return;
  syncing = true;
  const group = pending;
  pending = [];
  fs.write(fd, group.map((p) => p.line).join(""), (err) => {
    if (err) throw err;
    fs.fdatasync(fd, (err) => {
      if (err) throw err;
      const now = nowNs();
      for (const p of group) {
        latencies.push(Math.round((now - p.sent) / 1000));
        p.res.writeHead(200, { "content-type": "application/json" }).end('{"success":true}');
      }
      stored += group.length;
      syncing = false;
      commit();
    });
  });
}

let seq = 0;
function run(req, body, res) {
  const event = { method: req.method, path: req.url, headers: req.headers, body: JSON.parse(body) };
  const emitted = [];
  const context = vm.createContext({});
  script.runInContext(context);
  const self = { http: { endpoint: null }, $emit: (e, meta) => emitted.push({ event: e, meta }) };
  context.__component.run.call(self, event);
  for (const e of emitted) {
    pending.push({ line: JSON.stringify({ id: ++seq, ts: Date.now(), event: e.event }) + "\n", res, sent: event.body.sent });
  }
  commit();
}

http
  .createServer((req, res) => {
    if (req.method === "GET" && req.url === "/stats") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ stored, latencies_us: latencies }));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        run(req, Buffer.concat(chunks).toString(), res);
      } catch (e) {
        res.writeHead(500).end(String(e));
      }
    });
  })
  .listen(0, "127.0.0.1", function () {
    console.log("listening on http://127.0.0.1:" + this.address().port);
  });
