package main

import (
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// storeStep counts its runs in the data store its prop names, and says
// what the store holds.
const storeStep = `export default defineComponent({
	props: { store: { type: "data_store" } },
	async run() {
		const n = ((await this.store.get("count")) || 0) + 1;
		await this.store.set("count", n);
		await this.store.set("scratch", { n }, { ttl: 3600 });
		await this.store.delete("scratch");
		return { n, has: await this.store.has("greeting"), greeting: await this.store.get("greeting"),
			keys: await this.store.keys(), entries: (await this.store.entries()).length };
	},
})`

// TestDataStores: a data store made with the CLI is shared by an
// account's workflows and sources through data_store props; the REST
// API and the CLI read and write its keys, keys expire, and its bounds
// refuse a write with an error that says so, to a step as to a client.
// Another account can neither configure it nor read it.
func TestDataStores(t *testing.T) {
	e := newCLIEnvOn(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, DataStoreKeys: 4})
	s := e.srv
	out := e.mustFount("data-stores", "create", "cache")
	if !strings.Contains(out, "created data store cache (ds_") {
		t.Fatalf("create: %s", out)
	}
	e.mustFount("data-stores", "set", "cache", "greeting", `"hello"`)
	if got := strings.TrimSpace(e.mustFount("data-stores", "get", "cache", "greeting")); got != `"hello"` {
		t.Errorf("get greeting: %s", got)
	}
	if code, _, stderr := e.fount("data-stores", "set", "cache", "bad", "not json"); code != exitUsage || !strings.Contains(stderr, "not JSON") {
		t.Errorf("a value that is not JSON: %d %s", code, stderr)
	}

	wf := s.deployWorkflow(map[string]any{"name": "Counter", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("count", storeStep, map[string]any{"store": "cache"})}})
	for want := 1.0; want <= 2; want++ {
		x := s.waitStatus(s.runWorkflow(wf["id"].(string), nil), "success")
		v := stepValue(x, 0)
		if v["n"] != want || v["has"] != true || v["greeting"] != "hello" || jsonOf(v["keys"]) != `["count","greeting"]` || v["entries"] != 2.0 {
			t.Errorf("run %v saw %s", want, jsonOf(v))
		}
	}
	// A source of the same account shares it.
	src := s.deploySource(`export default { name: "reader", version: "1", props: { data: { type: "data_store" } },
		async run() { this.$emit({ count: await this.data.get("count") }) } }`, map[string]any{"data": "cache"})
	s.run(src["id"].(string), nil)
	if ev := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any); ev["count"] != 2.0 {
		t.Errorf("the source read %v", ev)
	}

	_, body := s.do("GET", "/v1/users/me/data_stores", nil)
	ds := body["data"].([]any)[0].(map[string]any)
	id := ds["id"].(string)
	if ds["keys"] != 2.0 || ds["max_keys"] != 4.0 {
		t.Errorf("the store: %v", ds)
	}
	if st, body := s.do("PUT", "/v1/data_stores/"+id+"/records/a%2Fb%20c", map[string]any{"value": []int{1, 2}, "ttl_seconds": 1}); st != 200 || data(body)["key"] != "a/b c" {
		t.Errorf("put a/b c: %d %v", st, body)
	}
	wait.Until(t, "the key with a ttl of 1 s to expire", eventsDeadline, func() bool {
		st, _ := s.do("GET", "/v1/data_stores/"+id+"/records/a%2Fb%20c", nil)
		return st == 404
	})
	// The bound of 4 keys: the step's set throws, the API refuses.
	for _, k := range []string{"x", "y"} {
		if st, body := s.do("PUT", "/v1/data_stores/"+id+"/records/"+k, map[string]any{"value": 1}); st != 200 {
			t.Fatalf("put %s: %d %v", k, st, body)
		}
	}
	if st, body := s.do("PUT", "/v1/data_stores/"+id+"/records/z", map[string]any{"value": 1}); st != 400 || !strings.Contains(jsonOf(body), "is full") {
		t.Errorf("a fifth key: %d %v", st, body)
	}
	x := s.waitStatus(s.runWorkflow(wf["id"].(string), nil), "error") // its scratch key is one too many
	if msg := jsonOf(x["steps"].([]any)[0].(map[string]any)["error"]); !strings.Contains(msg, "is full") {
		t.Errorf("the step's error: %s", msg)
	}
	if out := e.mustFount("data-stores", "keys", "cache"); !strings.Contains(out, "greeting") || !strings.Contains(out, `"hello"`) {
		t.Errorf("keys: %s", out)
	}
	e.mustFount("data-stores", "del", "cache", "x")
	e.mustFount("data-stores", "clear", "cache")
	if st, body := s.do("GET", "/v1/data_stores/"+id+"/records", nil); st != 200 || len(data(body)["records"].([]any)) != 0 {
		t.Errorf("after clear: %d %v", st, body)
	}

	bob := s.newUser("bob", "")
	if st, _ := bob.do("GET", "/v1/data_stores/"+id+"/records", nil); st != 404 {
		t.Errorf("another account reads the store: %d", st)
	}
	st, body := bob.do("POST", "/v1/workflows", map[string]any{"name": "Thief", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("count", storeStep, map[string]any{"store": id})}})
	if st != 400 || !strings.Contains(jsonOf(body), "does not have") {
		t.Errorf("another account configures the store: %d %v", st, body)
	}
	e.mustFount("data-stores", "delete", "cache")
	if out := e.mustFount("data-stores", "list"); strings.Contains(out, "cache") {
		t.Errorf("list after delete: %s", out)
	}
}
