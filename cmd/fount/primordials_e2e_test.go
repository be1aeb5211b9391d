package main

import (
	"fmt"
	"testing"

	"github.com/fount-dev/fount/internal/server"
)

// builtinBreaker replaces, before it emits or throws, the built-ins a
// runtime would use to encode and settle a call: JSON, Object's and
// Array's methods, the iterators, Promise's then, the global TypeError.
const builtinBreaker = `export default { name: "breaker", version: "1", async run(e) {
  const no = (what) => function () { throw new Error("no " + what) };
  JSON.stringify = no("stringify"); JSON.parse = no("parse");
  Object.keys = no("keys"); Object.entries = no("entries"); Object.assign = no("assign"); Object.defineProperty = no("defineProperty");
  Array.isArray = no("isArray"); Array.prototype.map = no("map"); Array.prototype.join = no("join"); Array.prototype.push = no("push");
  Array.prototype[Symbol.iterator] = no("iterator"); Map.prototype.get = no("Map get"); Map.prototype.set = no("Map set");
  Map.prototype.forEach = no("Map forEach"); Promise.prototype.then = no("then"); Function.prototype.call = no("call");
  RegExp.prototype.exec = no("exec"); String.prototype.slice = no("slice");
  globalThis.TypeError = function () { return {} }; globalThis.Error = function () { return {} };
  setTimeout(() => {}, 0);
  console.log("logged", { n: e.n });
  this.$emit({ n: e.n }, { summary: "still emitting" });
  if (e.fail) throw new RangeError("its own message");
} }`

// TestComponentsCannotBreakTheRuntime: a component that replaces the
// built-ins the runtime relies on breaks only its own code: its emits,
// its logs and its own errors still reach the server, whole, on this
// call and on the next ones of its warm instance.
func TestComponentsCannotBreakTheRuntime(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	id := s.deploySource(builtinBreaker, nil)["id"].(string)
	for i := 1; i <= 3; i++ {
		s.run(id, map[string]any{"n": i})
		ev := s.events(id, "", i)[0]
		summary := ev["metadata"].(map[string]any)["summary"]
		if got := fmt.Sprint(ev["event"]); got != fmt.Sprintf("map[n:%d]", i) || summary != "still emitting" {
			t.Errorf("run %d emitted %v (%v)", i, got, summary)
		}
	}
	s.run(id, map[string]any{"n": 9, "fail": true})
	errs := s.events(id, "$errors", 1)
	e, _ := errs[0]["event"].(map[string]any)["error"].(map[string]any)
	if e["name"] != "RangeError" || e["message"] != "its own message" {
		t.Errorf("the component's own error reached the server as %v", errs[0]["event"])
	}
}
