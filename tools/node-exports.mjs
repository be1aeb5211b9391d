// Prints, as JSON, the names each of Node's public built-in modules
// exports: the list internal/bundle/node/node20-exports.json holds, from which the
// bundler gives an ES module importing a built-in every name Node's has
// (internal/bundle/builtins.go, builtinFace). Run it with Node 20:
//
//	node tools/node-exports.mjs > internal/bundle/node/node20-exports.json
import { builtinModules, createRequire } from "node:module";

const require = createRequire(import.meta.url);
const out = {};
for (const name of builtinModules.filter((m) => !m.startsWith("_")).sort()) {
  // Named imports of a CommonJS-shaped built-in are its own keys.
  out[name] = Object.keys(require("node:" + name)).filter((k) => k !== "default").sort();
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
