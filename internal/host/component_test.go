package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// componentCase runs one component operation and checks what came back and
// what the guest did through its capabilities.
type componentCase struct {
	name    string
	code    string
	modules map[string]string
	props   string
	req     sandbox.Request // Op defaults to run
	check   func(t *testing.T, out *sandbox.Outcome, err error, rec *recorder)
}

func runComponentCases(t *testing.T, tests []componentCase) {
	t.Helper()
	h := newTestHost(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			props := tt.props
			if props == "" {
				props = "{}"
			}
			s, err := h.NewSource(context.Background(), sandbox.Spec{ID: "dc_abc", Code: tt.code, Modules: tt.modules, Props: json.RawMessage(props)})
			if err != nil {
				t.Fatalf("NewSource: %v", err)
			}
			defer s.Close(context.Background())
			req := tt.req
			if req.Op == "" {
				req.Op = abi.OpRun
			}
			rec := newRecorder()
			rec.auth["github"] = json.RawMessage(`{"oauth_access_token":"tok"}`)
			out, err := s.Invoke(context.Background(), req, rec.caps())
			tt.check(t, out, err, rec)
		})
	}
}

// wantValue checks a successful call's JSON return value.
func wantValue(want string) func(*testing.T, *sandbox.Outcome, error, *recorder) {
	return func(t *testing.T, out *sandbox.Outcome, err error, _ *recorder) {
		t.Helper()
		if err != nil {
			t.Fatalf("err = %v", err)
		}
		if !jsonEqual(t, out.Value, want) {
			t.Fatalf("value = %s, want %s", out.Value, want)
		}
	}
}

// wantScriptError checks that the call failed with a JS error.
func wantScriptError(name, msgPart string) func(*testing.T, *sandbox.Outcome, error, *recorder) {
	return func(t *testing.T, _ *sandbox.Outcome, err error, _ *recorder) {
		t.Helper()
		var se *sandbox.ScriptError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want a *sandbox.ScriptError", err)
		}
		if se.Name != name || !strings.Contains(se.Message, msgPart) {
			t.Fatalf("error = %s: %s, want %s containing %q", se.Name, se.Message, name, msgPart)
		}
	}
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		return len(got) == 0 && want == ""
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("bad want JSON %q: %v", want, err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func src(body string) string {
	return `export default { name: "t", version: "1.0.0", ` + body + ` }`
}

func TestModuleFormats(t *testing.T) {
	t.Parallel()
	runComponentCases(t, []componentCase{
		{name: "ESM default export", code: src(`run(e) { return e.x * 2 }`), req: sandbox.Request{Event: json.RawMessage(`{"x":21}`)}, check: wantValue(`42`)},
		{name: "CommonJS module.exports", code: `module.exports = { name: "c", version: "1", run(e) { return "cjs:" + e.x } }`,
			req: sandbox.Request{Event: json.RawMessage(`{"x":1}`)}, check: wantValue(`"cjs:1"`)},
		{name: "CommonJS exports.default from a bundler", code: `Object.defineProperty(exports, "__esModule", {value: true}); exports.default = { name: "b", version: "1", run() { return "bundled" } }`,
			check: wantValue(`"bundled"`)},
		{name: "ESM import of a bundled module", code: `import { double } from "./lib.mjs"; import cfg from "./cfg.mjs"; ` + src(`run() { return double(cfg.n) }`),
			modules: map[string]string{"./lib.mjs": `export const double = (n) => n * 2`, "./cfg.mjs": `export default { n: 8 }`}, check: wantValue(`16`)},
		{name: "CommonJS require of a bundled module", code: `const lib = require("./lib.js"); module.exports = { name: "r", version: "1", run() { return lib.greet("fount") } }`,
			modules: map[string]string{"./lib.js": `exports.greet = (n) => "hello " + n`}, check: wantValue(`"hello fount"`)},
		{name: "process.env holds only PD_COMPONENT", code: src(`run() { return process.env }`), check: wantValue(`{"PD_COMPONENT":"dc_abc"}`)},
	})
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	tests := []struct {
		name, code, want string
	}{
		{"unbundled import", `import axios from "axios"; ` + src(`run() {}`), "only modules bundled"},
		{"no run", `export default { name: "x", version: "1" }`, "run method"},
		{"no name", `export default { version: "1", run() {} }`, "needs a name"},
		{"no version", `export default { name: "x", run() {} }`, "needs a version"},
		{"not an object", `export default 42`, "must export an object"},
		{"no default export", `export const helper = 1;`, "no default export"},
		{"exports nothing", `const helper = 1;`, "exports nothing"},
		{"bad type", src(`type: "widget", run() {}`), `"source" or "action"`},
		{"bad dedupe", src(`dedupe: "newest", run() {}`), "dedupe must be"},
		{"unknown prop type", src(`props: { x: { type: "strin" } }, run() {}`), `prop x has unknown type "strin"`},
		{"non-integer min", src(`props: { x: { type: "integer", min: 1.5 } }, run() {}`), "min must be an integer"},
		{"throws at load", `throw new RangeError("boom at load")`, "boom at load"},
		{"syntax error", `export default { name: "x", version: "1", run() { return ( } }`, `Unexpected "}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.NewSource(context.Background(), sandbox.Spec{Code: tt.code})
			var se *sandbox.ScriptError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tt.want) {
				t.Fatalf("err = %v, want a script error containing %q", err, tt.want)
			}
		})
	}
}

func TestProps(t *testing.T) {
	t.Parallel()
	const props = `props: {
		str: { type: "string", default: "dflt" },
		configured: { type: "string", default: "dflt" },
		num: { type: "integer", min: 1, max: 10, default: 3 },
		flag: { type: "boolean", default: false },
		tags: { type: "string[]" },
		nums: { type: "integer[]" },
		obj: { type: "object" },
		anything: { type: "any" },
		secretKey: { type: "string", secret: true },
		db: "$.service.db",
		http: { type: "$.interface.http", customResponse: true },
		timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
	}`
	runComponentCases(t, []componentCase{
		{name: "defaults and configured values", code: src(props + `, run() {
			return { str: this.str, configured: this.configured, num: this.num, flag: this.flag, tags: this.tags, nums: this.nums,
				obj: this.obj, anything: this.anything, secretKey: this.secretKey, endpoint: this.http.endpoint, timer: this.timer }
		}`), props: `{"configured":"set","num":7,"flag":true,"tags":["a","b"],"nums":[1,2],"obj":{"k":[1]},"anything":null,"secretKey":"s3cret",
			"http":{"endpoint_url":"http://127.0.0.1:8080/h/tok"},"timer":{"intervalSeconds":60}}`,
			check: wantValue(`{"str":"dflt","configured":"set","num":7,"flag":true,"tags":["a","b"],"nums":[1,2],"obj":{"k":[1]},"anything":null,
				"secretKey":"s3cret","endpoint":"http://127.0.0.1:8080/h/tok","timer":{"intervalSeconds":60}}`)},
		{name: "timer default when not configured", code: src(props + `, run() { return this.timer }`), check: wantValue(`{"intervalSeconds":900}`)},
		{name: "methods are bound to this", code: src(`props: { who: { type: "string" } }, methods: { greet(p) { return p + " " + this.who }, twice() { return [this.greet("hi"), this.greet("yo")] } },
			run() { const f = this.twice; return f() }`), props: `{"who":"ada"}`, check: wantValue(`["hi ada","yo ada"]`)},
		{name: "app prop with methods, propDefinitions and $auth", code: `const github = { type: "app", app: "github",
				propDefinitions: { repo: { type: "string", label: "Repository", options() { return ["a/b"] } } },
				methods: { token() { return this.$auth.oauth_access_token }, hdr() { return { Authorization: "Bearer " + this.token() } } } };
			` + src(`props: { github, repo: { propDefinition: [github, "repo"] } },
			run() { return { app: this.github.app, auth: this.github.$auth, hdr: this.github.hdr(), repo: this.repo, defs: Object.keys(this.github.propDefinitions) } }`),
			props: `{"repo":"fount/fount"}`,
			check: wantValue(`{"app":"github","auth":{"oauth_access_token":"tok"},"hdr":{"Authorization":"Bearer tok"},"repo":"fount/fount","defs":["repo"]}`)},
		{name: "db round trip", code: src(props + `, run() {
				const before = this.db.get("cursor"); this.db.set("cursor", { page: 2, ids: [1, "x"] }); this.db.set("n", 0);
				return { before: before === undefined ? "undefined" : before, after: this.db.get("cursor"), n: this.db.get("n") } }`),
			check: func(t *testing.T, out *sandbox.Outcome, err error, rec *recorder) {
				wantValue(`{"before":"undefined","after":{"page":2,"ids":[1,"x"]},"n":0}`)(t, out, err, rec)
				if string(rec.db["cursor"]) != `{"page":2,"ids":[1,"x"]}` {
					t.Errorf("stored %q", rec.db["cursor"])
				}
			}},
		{name: "db set of a non-serializable value", code: src(props + `, run() { this.db.set("f", () => 1) }`), check: wantScriptError("TypeError", "not JSON-serializable")},
		{name: "db set of a cycle", code: src(props + `, run() { const o = {}; o.o = o; this.db.set("c", o) }`), check: wantScriptError("TypeError", "not JSON-serializable")},
	})
}

func TestEmit(t *testing.T) {
	t.Parallel()
	runComponentCases(t, []componentCase{
		{name: "every emit option", code: src(`run() {
				this.$emit({ a: 1 }, { id: "e1", name: "orders", summary: "New order", ts: 1700000000000 });
				this.$emit("plain");
				this.$emit({ b: 2 }, { id: 42 });
				this.$emit(undefined, { summary: "no data" });
				this.$emit({ later: true }, { id: "d", delivery_ts: 1800000000000 });
			}`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil {
					t.Fatal(err)
				}
				if len(rec.emits) != 5 {
					t.Fatalf("got %d emits, want 5", len(rec.emits))
				}
				e := rec.emits[0]
				if string(e.Event) != `{"a":1}` || e.IDString() != "e1" || e.Name != "orders" || e.Summary != "New order" || e.TS == nil || *e.TS != 1700000000000 {
					t.Errorf("emit 0 = %+v", e)
				}
				if string(rec.emits[1].Event) != `"plain"` || rec.emits[1].ID != nil {
					t.Errorf("emit 1 = %+v", rec.emits[1])
				}
				if rec.emits[2].IDString() != "42" {
					t.Errorf("numeric id = %q", rec.emits[2].IDString())
				}
				if rec.emits[3].Event != nil || rec.emits[3].Summary != "no data" {
					t.Errorf("emit 3 = %+v", rec.emits[3])
				}
				if rec.emits[4].DeliveryTS == nil || *rec.emits[4].DeliveryTS != 1800000000000 {
					t.Errorf("emit 4 = %+v", rec.emits[4])
				}
			}},
		{name: "ts and delivery_ts as Dates", code: src(`run() {
				this.$emit({ a: 1 }, { id: "d", ts: new Date(1700000000123), delivery_ts: new Date("2027-01-01T00:00:00Z") });
				this.$emit({ b: 2 }, { ts: { getTime() { return 5 } } });
			}`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err == nil || !strings.Contains(err.Error(), "$emit: invalid request") {
					t.Errorf("an object that only looks like a Date: %v, want it refused by the host", err)
				}
				if len(rec.emits) != 1 {
					t.Fatalf("got %d emits, want the first", len(rec.emits))
				}
				e := rec.emits[0]
				if e.TS == nil || *e.TS != 1700000000123 || e.DeliveryTS == nil || *e.DeliveryTS != 1798761600000 {
					t.Errorf("emit = %+v, want the Dates' times", e)
				}
			}},
		{name: "an invalid Date is refused", code: src(`run() { this.$emit({}, { ts: new Date("nope") }) }`), check: wantScriptError("TypeError", "$emit: meta.ts is an invalid Date")},
		{name: "an object id is refused", code: src(`run() { this.$emit({}, { id: { x: 1 } }) }`), check: wantScriptError("Error", "$emit: invalid request")},
		{name: "a non-serializable event is refused", code: src(`run() { this.$emit({ n: 10n }) }`), check: wantScriptError("TypeError", "not JSON-serializable")},
	})
}

// TestDirAndSQLProps: a dir prop is the call's /tmp, a sql prop is
// {query, params} whether its value or default is text or an object.
func TestDirAndSQLProps(t *testing.T) {
	t.Parallel()
	props := `props: { files: { type: "dir", accessMode: "write", sync: true }, q: { type: "sql", auth: { app: "postgresql" } },
		d: { type: "sql", default: "select 2" } }, run() { return [this.files, this.q, this.d] }`
	runComponentCases(t, []componentCase{
		{name: "stored form", code: src(props), props: `{"q":{"query":"select $1","params":[7]}}`, check: wantValue(`["/tmp",{"query":"select $1","params":[7]},{"query":"select 2","params":[]}]`)},
		{name: "text", code: src(props), props: `{"q":"select 1"}`, check: wantValue(`["/tmp",{"query":"select 1","params":[]},{"query":"select 2","params":[]}]`)},
	})
}

func TestHooksAndLifecycle(t *testing.T) {
	t.Parallel()
	hooks := `hooks: {
		async deploy() { this.db.set("deployed", true); this.$emit("deploy") },
		activate() { return "activated with " + this.who },
		deactivate() { throw new Error("cannot deactivate now") },
	}, props: { who: { type: "string" }, db: "$.service.db" }, run() {}`
	runComponentCases(t, []componentCase{
		{name: "deploy uses db and emit", code: src(hooks), req: sandbox.Request{Op: abi.OpHook, Hook: "deploy"},
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || string(rec.db["deployed"]) != "true" || len(rec.emits) != 1 {
					t.Fatalf("err=%v db=%v emits=%d", err, rec.db, len(rec.emits))
				}
			}},
		{name: "activate sees props", code: src(hooks), props: `{"who":"ops"}`, req: sandbox.Request{Op: abi.OpHook, Hook: "activate"}, check: wantValue(`"activated with ops"`)},
		{name: "a throwing hook", code: src(hooks), req: sandbox.Request{Op: abi.OpHook, Hook: "deactivate"}, check: wantScriptError("Error", "cannot deactivate now")},
		{name: "a missing hook is a no-op", code: src(`run() {}`), req: sandbox.Request{Op: abi.OpHook, Hook: "deploy"}, check: wantValue(``)},
		{name: "an unknown hook", code: src(`run() {}`), req: sandbox.Request{Op: abi.OpHook, Hook: "explode"}, check: wantScriptError("TypeError", "unknown hook")},
	})
}

func TestRespond(t *testing.T) {
	t.Parallel()
	custom := `props: { http: { type: "$.interface.http", customResponse: true }, plain: { type: "$.interface.http" } }, `
	runComponentCases(t, []componentCase{
		{name: "string body with headers", code: src(custom + `run() { this.http.respond({ status: 201, headers: { "X-Id": 7 }, body: "made" }) }`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || len(rec.responses) != 1 {
					t.Fatalf("err=%v responses=%v", err, rec.responses)
				}
				r := rec.responses[0]
				if r.Status != 201 || r.Headers["X-Id"] != "7" || r.Body != "made" {
					t.Errorf("response = %+v", r)
				}
			}},
		{name: "object body becomes JSON", code: src(custom + `run() { this.http.respond({ status: 200, body: { ok: true } }) }`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || rec.responses[0].Body != `{"ok":true}` || rec.responses[0].Headers["content-type"] != "application/json" {
					t.Fatalf("err=%v response=%+v", err, rec.responses)
				}
			}},
		{name: "buffer body is base64", code: src(custom + `run() { this.http.respond({ status: 200, body: new Uint8Array([0, 255, 10]) }) }`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || rec.responses[0].Body != "AP8K" || rec.responses[0].BodyEncoding != "base64" {
					t.Fatalf("err=%v response=%+v", err, rec.responses)
				}
			}},
		{name: "respond without customResponse", code: src(custom + `run() { this.plain.respond({ status: 200 }) }`), check: wantScriptError("Error", "customResponse: true")},
		{name: "status below 100", code: src(custom + `run() { this.http.respond({ status: 99 }) }`), check: wantScriptError("RangeError", "100 to 599")},
		{name: "status above 599", code: src(custom + `run() { this.http.respond({ status: 600 }) }`), check: wantScriptError("RangeError", "100 to 599")},
		{name: "respond twice", code: src(custom + `run() { this.http.respond({ status: 200 }); this.http.respond({ status: 200 }) }`), check: wantScriptError("Error", "not allowed in this state")},
	})
}

func TestActions(t *testing.T) {
	t.Parallel()
	action := func(body string) string {
		return `export default { name: "a", version: "0.1.0", type: "action", props: { n: { type: "integer", default: 2 } }, ` + body + ` }`
	}
	runComponentCases(t, []componentCase{
		{name: "return value and exports", code: action(`async run({ $ }) { $.export("$summary", "did it"); $.export("count", this.n); return { done: true } }`),
			check: func(t *testing.T, out *sandbox.Outcome, err error, rec *recorder) {
				wantValue(`{"done":true}`)(t, out, err, rec)
				if string(out.Exports["$summary"]) != `"did it"` || string(out.Exports["count"]) != `2` {
					t.Errorf("exports = %v", out.Exports)
				}
			}},
		{name: "flow exit", code: action(`run({ $ }) { $.export("before", 1); return $.flow.exit("nothing to do"); }`),
			check: func(t *testing.T, out *sandbox.Outcome, err error, _ *recorder) {
				if err != nil || out.Exit == nil || *out.Exit != "nothing to do" || string(out.Exports["before"]) != "1" {
					t.Fatalf("err=%v out=%+v", err, out)
				}
			}},
		{name: "respond and send.emit", code: action(`run({ $ }) { $.respond({ status: 202, body: "queued" }); $.send.emit({ raw_event: { k: "v" } }) }`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || len(rec.responses) != 1 || rec.responses[0].Status != 202 || len(rec.emits) != 1 || string(rec.emits[0].Event) != `{"k":"v"}` {
					t.Fatalf("err=%v responses=%+v emits=%+v", err, rec.responses, rec.emits)
				}
			}},
		{name: "steps are passed through", code: action(`run({ steps }) { return steps.trigger.event.id }`), req: sandbox.Request{Event: json.RawMessage(`{"steps":{"trigger":{"event":{"id":"e9"}}}}`)},
			check: wantValue(`"e9"`)},
		{name: "unsupported destinations say so", code: action(`run({ $ }) { $.send.email({}) }`), check: wantScriptError("Error", "not supported by fount")},
	})
}

func TestErrorsAndAsync(t *testing.T) {
	t.Parallel()
	runComponentCases(t, []componentCase{
		{name: "thrown error has name, message and stack", code: "export default { name: \"e\", version: \"1\",\n  run() {\n    throw new TypeError(\"bad input: \" + 1)\n  } }",
			check: func(t *testing.T, _ *sandbox.Outcome, err error, _ *recorder) {
				var se *sandbox.ScriptError
				if !errors.As(err, &se) || se.Name != "TypeError" || se.Message != "bad input: 1" || !strings.Contains(se.Stack, "component.mjs:3") {
					t.Fatalf("err = %#v", err)
				}
			}},
		{name: "thrown string", code: src(`run() { throw "plain" }`), check: wantScriptError("Error", "plain")},
		{name: "rejected promise", code: src(`async run() { await null; return Promise.reject(new RangeError("late")) }`), check: wantScriptError("RangeError", "late")},
		{name: "await chains drain", code: src(`async run() { let s = ""; for (const c of "abc") s += await Promise.resolve(c); return s }`), check: wantValue(`"abc"`)},
		{name: "setTimeout resolves within the budget", code: src(`async run() { const t0 = Date.now(); await new Promise(r => setTimeout(r, 30)); return Date.now() - t0 >= 25 }`), check: wantValue(`true`)},
		{name: "timers fire in order and clearTimeout works", code: src(`async run() { const seen = [];
				setTimeout(() => seen.push("b"), 20); setTimeout(() => seen.push("a"), 5); const c = setTimeout(() => seen.push("never"), 10); clearTimeout(c);
				await new Promise(r => setTimeout(r, 40)); return seen }`), check: wantValue(`["a","b"]`)},
		{name: "timers pending at the end are dropped", code: src(`run() { setTimeout(() => {}, 10000); return "done" }`),
			check: func(t *testing.T, out *sandbox.Outcome, err error, rec *recorder) {
				wantValue(`"done"`)(t, out, err, rec)
				if out.DroppedTimers != 1 {
					t.Errorf("dropped = %d, want 1", out.DroppedTimers)
				}
			}},
		{name: "a promise that never settles", code: src(`run() { return new Promise(() => {}) }`), check: wantScriptError("Error", "never settles")},
		{name: "a non-serializable return value", code: src(`run() { const o = {}; o.self = o; return o }`), check: wantScriptError("TypeError", "not JSON-serializable")},
		{name: "console output with levels and time", code: src(`run() { console.log("a", 1, { b: 2 }); console.info("i"); console.warn("w"); console.error(new Error("e")); console.debug("d") }`),
			check: func(t *testing.T, _ *sandbox.Outcome, err error, rec *recorder) {
				if err != nil || len(rec.logs) != 5 {
					t.Fatalf("err=%v logs=%+v", err, rec.logs)
				}
				want := []struct{ level, text string }{{"info", `a 1 {"b":2}`}, {"info", "i"}, {"warn", "w"}, {"error", "Error: e"}, {"debug", "d"}}
				for i, w := range want {
					if rec.logs[i].Level != w.level || !strings.HasPrefix(rec.logs[i].Text, w.text) || time.Since(rec.logs[i].Time) > time.Minute {
						t.Errorf("log %d = %+v, want %s %q", i, rec.logs[i], w.level, w.text)
					}
				}
			}},
		{name: "fetch is denied without egress", code: src(`async run() { await fetch("http://example.com/") }`), check: wantScriptError("Error", "not allowed for this source")},
		// A run() that returns at once settles without promise jobs; a
		// microtask it queued still runs, and its throw still fails the call.
		{name: "a throwing microtask fails a sync run", code: src(`run() { queueMicrotask(() => { throw new Error("boom") }); return 1 }`), check: wantScriptError("Error", "boom")},
		{name: "a throwing nextTick fails a sync run", code: src(`run() { process.nextTick(() => { throw new Error("tick") }); return 1 }`), check: wantScriptError("Error", "tick")},
		{name: "a throwing microtask fails an async run", code: src(`async run() { queueMicrotask(() => { throw new Error("boom") }); return 1 }`), check: wantScriptError("Error", "boom")},
		{name: "a throwing microtask fails a hook", code: src(`hooks: { deploy() { queueMicrotask(() => { throw new Error("hook") }) } }, run() {}`),
			req: sandbox.Request{Op: abi.OpHook, Hook: "deploy"}, check: wantScriptError("Error", "hook")},
		{name: "a thenable is adopted", code: src(`run() { return { then(ok) { ok(42) } } }`), check: wantValue(`42`)},
		{name: "a promise's own then is not used", code: src(`run() { const p = Promise.resolve(5); p.then = () => {}; return p }`), check: wantValue(`5`)},
		{name: "a thrown value whose message cannot be read", code: src(`run() { throw { get message() { throw new Error("no") } } }`), check: wantScriptError("Error", "cannot be read")},
	})
}

func TestOptionsAndAdditionalProps(t *testing.T) {
	t.Parallel()
	const app = `const svc = { type: "app", app: "svc", propDefinitions: { region: { type: "string", async options({ page }) { return ["eu-" + page, "us-" + page] } } } };`
	runComponentCases(t, []componentCase{
		{name: "async options with paging context", code: src(`props: { ch: { type: "string", async options({ page, prevContext }) {
				return { options: [{ label: "L" + page, value: "v" + page }], context: { nextPageToken: prevContext + "+" } } } } }, run() {}`),
			req: sandbox.Request{Op: abi.OpOptions, Prop: "ch", Page: 2, PrevContext: "tok"}, check: wantValue(`{"options":[{"label":"L2","value":"v2"}],"context":{"nextPageToken":"tok+"}}`)},
		{name: "static options", code: src(`props: { c: { type: "string", options: ["x", "y"] } }, run() {}`), req: sandbox.Request{Op: abi.OpOptions, Prop: "c"}, check: wantValue(`["x","y"]`)},
		{name: "options from a propDefinition", code: app + src(`props: { svc, region: { propDefinition: [svc, "region"] } }, run() {}`),
			req: sandbox.Request{Op: abi.OpOptions, Prop: "region", Page: 1}, check: wantValue(`["eu-1","us-1"]`)},
		{name: "options of an unknown prop", code: src(`run() {}`), req: sandbox.Request{Op: abi.OpOptions, Prop: "nope"}, check: wantScriptError("TypeError", "has no prop")},
		{name: "additionalProps", code: src(`props: { mode: { type: "string", reloadProps: true } }, async additionalProps() {
				return this.mode === "adv" ? { depth: { type: "integer", label: "Depth", min: 1 } } : {} }, run() {}`),
			props: `{"mode":"adv"}`, req: sandbox.Request{Op: abi.OpAdditionalProps}, check: wantValue(`[{"name":"depth","type":"integer","label":"Depth","min":1}]`)},
	})
}

// TestInstancesAreIndependent: instances restored from one snapshot share
// nothing — neither module state nor Math.random's sequence.
func TestInstancesAreIndependent(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, `let n = 0; export default { name: "i", version: "1", run() { n++; return [n, Math.random()] } }`, `{}`)
	ctx := context.Background()
	a, err := h.fromSnapshot(ctx, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close(ctx)
	b, err := h.fromSnapshot(ctx, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close(ctx)
	call := abi.Call{Op: abi.OpRun}
	ra, err := h.invokeOnce(ctx, a, call, h.cfg.Limits, sandbox.Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	ra2, _ := h.invokeOnce(ctx, a, call, h.cfg.Limits, sandbox.Capabilities{})
	rb, _ := h.invokeOnce(ctx, b, call, h.cfg.Limits, sandbox.Capabilities{})
	var va, va2, vb []float64
	for _, p := range []struct {
		raw json.RawMessage
		out *[]float64
	}{{ra, &va}, {ra2, &va2}, {rb, &vb}} {
		if err := json.Unmarshal(p.raw, p.out); err != nil {
			t.Fatal(err)
		}
	}
	if va[0] != 1 || va2[0] != 2 || vb[0] != 1 {
		t.Errorf("counters a=%v a2=%v b=%v: want 1, 2 and 1", va[0], va2[0], vb[0])
	}
	if va[1] == vb[1] {
		t.Errorf("two instances from one snapshot drew the same Math.random() %v", va[1])
	}
}

// TestSourcesAreIsolated: two sources of the same code never see each
// other's globals.
func TestSourcesAreIsolated(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	code := `export default { name: "g", version: "1", props: { tag: { type: "string" } }, run() { const prev = globalThis.seen; globalThis.seen = this.tag; return prev ?? null } }`
	a := deploy(t, h, code, `{"tag":"a"}`)
	b := deploy(t, h, code, `{"tag":"b"}`)
	ctx := context.Background()
	if out, _ := a.Run(ctx, nil, sandbox.Capabilities{}); string(out.Value) != "null" {
		t.Fatalf("a first = %s", out.Value)
	}
	if out, _ := b.Run(ctx, nil, sandbox.Capabilities{}); string(out.Value) != "null" {
		t.Fatalf("b saw a's global: %s", out.Value)
	}
	if out, _ := a.Run(ctx, nil, sandbox.Capabilities{}); string(out.Value) != `"a"` {
		t.Fatalf("a second = %s", out.Value)
	}
}

func TestEviction(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, src(`run() { return 1 }`), `{}`)
	if s.WarmInstances() != 1 {
		t.Fatalf("warm = %d after deploy, want 1", s.WarmInstances())
	}
	if n := s.evictIdle(time.Now().Add(-time.Hour)); n != 0 || s.WarmInstances() != 1 {
		t.Fatalf("evicted %d recently used instances", n)
	}
	if n := h.EvictIdle(time.Now().Add(h.cfg.IdleTimeout + time.Second)); n < 1 || s.WarmInstances() != 0 {
		t.Fatalf("EvictIdle closed %d, warm now %d", n, s.WarmInstances())
	}
	if out, err := s.Run(context.Background(), nil, sandbox.Capabilities{}); err != nil || string(out.Value) != "1" {
		t.Fatalf("run after eviction: %v", err)
	}
	if s.WarmInstances() != 1 {
		t.Fatalf("warm = %d after a run, want 1", s.WarmInstances())
	}
}

// TestNumberFormatting: ties round away from zero as the spec requires,
// although wasm has no directed rounding modes (guest/src/compat/
// fenv_directed.c). Expected values are the spec's, as Node.js prints them.
func TestNumberFormatting(t *testing.T) {
	t.Parallel()
	exprs := `[(2.5).toFixed(0), (0.5).toFixed(0), (-2.5).toFixed(0), (-0.5).toFixed(0), (1.25).toFixed(1), (9.5).toFixed(0),
		(99.5).toFixed(0), (1.005).toFixed(2), (8.345).toFixed(2), (1.45).toFixed(1), (2.5).toPrecision(1), (1.25).toExponential(1),
		(9.5).toExponential(0), (-9.5).toExponential(0), (0.125).toPrecision(2), (123.456).toFixed(10), (1e21).toFixed(2), (5e-7).toFixed(6)]`
	runComponentCases(t, []componentCase{{
		name:  "toFixed, toPrecision and toExponential",
		code:  src(`run() { return ` + exprs + ` }`),
		check: wantValue(`["3","1","-3","-1","1.3","10","100","1.00","8.35","1.4","3","1.3e+0","1e+1","-1e+1","0.13","123.4560000000","1e+21","0.000000"]`),
	}})
}
