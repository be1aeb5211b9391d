// Runs component.mjs's run() in Node with the event in argv[2], and prints
// what it emitted, for comparison with what fount stored.
import def from "./component.mjs";

const emitted = [];
const self = { $emit: (event) => emitted.push(event) };
await def.run.call(self, JSON.parse(process.argv[2]));
process.stdout.write(JSON.stringify(emitted));
