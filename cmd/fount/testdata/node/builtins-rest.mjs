// The rest of Node's built-in modules: each loads, and what fount gives
// of it answers as Node 20's does. (What it cannot give, processes,
// threads, UDP and new contexts, is refused: TestUnavailableBuiltinsSayWhy.)
import child_process from "node:child_process";
import worker_threads from "node:worker_threads";
import cluster from "node:cluster";
import dgram from "node:dgram";
import vm from "node:vm";
import module from "node:module";
import nodeConsole from "node:console";
import sys from "node:sys";
import types from "node:util/types";
import dc from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import domain from "node:domain";
import inspector from "node:inspector";
import trace_events from "node:trace_events";
import v8 from "node:v8";
import constants from "node:constants";
import { text, json } from "node:stream/consumers";
import readline from "node:readline";
import stream, { Readable } from "node:stream";
import EventEmitter from "node:events";
import http from "node:http";
import buffer from "node:buffer";
import { ReadableStream as WebReadable } from "node:stream/web";

export default {
  name: "node-builtins-rest",
  version: "0.1.0",
  async run() {
    const out = {};
    out.childProcess = [typeof child_process.spawn, typeof child_process.execSync];
    out.threads = [worker_threads.isMainThread, worker_threads.threadId, worker_threads.parentPort, cluster.isPrimary, cluster.isWorker];
    out.dgram = typeof dgram.createSocket;
    const ctx = vm.createContext({ count: 1, o: new Proxy({}, { get: (t, k) => (k === Symbol.toPrimitive ? undefined : ctx.o) }) });
    vm.runInContext("count += 1", ctx);
    let strictPath = "ran";
    try { vm.runInContext("(function () { 'use strict'; o.a.b; if ([o.a.b].length !== 1) throw Error(); })()", ctx); } catch (e) { strictPath = e.name; }
    let notContext = null;
    try { vm.runInContext("1", {}); } catch (e) { notContext = e.code; }
    out.vm = [vm.runInThisContext("6 * 7"), new vm.Script("'a' + 'b'").runInThisContext(), vm.isContext({}), vm.isContext(ctx), ctx.count,
      vm.runInNewContext("a + b", { a: 1, b: 2 }), new vm.Script("a * 2").runInNewContext({ a: 21 }), strictPath, notContext,
      vm.compileFunction("return x + y", ["x", "y"])(2, 3)];
    out.module = [module.builtinModules.includes("fs"), module.isBuiltin("node:net"), module.isBuiltin("left-pad"), typeof module.createRequire];
    out.console = [typeof nodeConsole.log, sys.format("%s=%d", "x", 4), types.isDate(new Date()), types.isRegExp(/x/)];
    const ch = dc.channel("fount:test");
    const got = [];
    const sub = (m, name) => got.push([m, name]);
    out.channelBefore = ch.hasSubscribers;
    ch.subscribe(sub);
    ch.publish({ n: 1 });
    ch.unsubscribe(sub);
    ch.publish({ n: 2 });
    out.channel = got;
    performance.mark("a");
    performance.mark("b");
    const m = performance.measure("ab", "a", "b");
    out.perf = [typeof performance.now(), m.name, m.duration >= 0, performance.getEntriesByType("mark").length];
    const als = new AsyncLocalStorage();
    out.als = [als.run({ id: 7 }, () => als.getStore().id), als.getStore(), new AsyncResource("x").runInAsyncScope((a) => a + 1, null, 1)];
    out.domain = domain.create().run(() => "ran");
    out.inspector = [inspector.url(), typeof inspector.Session];
    out.trace = trace_events.createTracing({ categories: ["node"] }).categories;
    out.v8 = typeof v8.getHeapStatistics().heap_size_limit;
    out.constants = [constants.O_RDONLY, constants.R_OK];
    out.consumers = [await text(Readable.from(["a", "b"])), await json(Readable.from(['{"x":', "1}"]))];
    const lines = [];
    const rl = readline.createInterface({ input: Readable.from(["one\ntw", "o\r\nthree"]), crlfDelay: Infinity });
    for await (const line of rl) lines.push(line);
    out.readline = lines;
    const upper = new TransformStream({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) });
    const reader = new ReadableStream({ start(c) { c.enqueue("a"); c.enqueue("b"); c.close(); } }).pipeThrough(upper).getReader();
    const chunks = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    out.webStreams = [chunks, WebReadable === ReadableStream, typeof WritableStream];
    const target = { n: 1 };
    out.globals = [new WeakRef(target).deref() === target, typeof new FinalizationRegistry(() => {}).register, typeof performance.now(), performance.now() >= 0];
    // Stream's statics are EventEmitter's, as in Node (@redis/client
    // extends stream.EventEmitter).
    out.streamStatics = [stream.EventEmitter === EventEmitter, typeof stream.once, typeof class extends stream.EventEmitter {}];
    // What frameworks take from the HTTP server at load (express), and
    // buffer's module object.
    const res = Object.create(http.ServerResponse.prototype);
    const code = (f) => { try { f(); return "ran"; } catch (e) { return e.code; } };
    out.httpServer = [typeof res.setHeader, Object.create(http.IncomingMessage.prototype) instanceof stream.Readable,
      res instanceof http.OutgoingMessage, code(() => http.validateHeaderName("bad name")), code(() => http.validateHeaderValue("x", undefined)),
      code(() => http.validateHeaderName("X-Ok"))];
    out.bufferModule = [buffer.constants.MAX_LENGTH > 0, typeof buffer.kStringMaxLength];
    this.$emit(out);
  },
};
