// The Node baseline of fount's warm sandbox call: the run() of
// bench/goja's component, called in one warm vm context, with the event
// coming in as JSON and the emit going out as JSON, as fount's host does.
//
//   node warm.js [calls]
//
// It prints {"p50_ns": n, "calls": n}.
"use strict";
const vm = require("vm");

const context = vm.createContext({});
vm.runInContext(
  `var emitted = 0;
   var component = {
     async run(event) { this.$emit({ n: event.n, limit: this.limit }, { id: String(event.n), summary: "one event" }) },
   };
   var self = { limit: 10, $emit: function (e, meta) { emitted += JSON.stringify(e).length + JSON.stringify(meta).length > 0 ? 1 : 0 } };
   function invoke(eventJSON) { return component.run.call(self, JSON.parse(eventJSON)) }`,
  context,
);
const invoke = context.invoke;
const calls = Number(process.argv[2] || 20000);
const ds = [];
for (let i = 0; i < calls; i++) {
  const start = process.hrtime.bigint();
  invoke('{"n":1}');
  ds.push(Number(process.hrtime.bigint() - start));
}
if (context.emitted !== calls) throw new Error(context.emitted + " emits for " + calls + " calls");
ds.sort((a, b) => a - b);
console.log(JSON.stringify({ p50_ns: ds[Math.floor(ds.length / 2)], calls }));
