package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
	"github.com/fount-dev/fount/internal/server"
)

// npmFixtures is the folder of the real-world-shaped packages and the
// component that imports them.
const npmFixtures = "testdata/npm"

// publishFixtures publishes every package under testdata/npm/packages,
// each folder named <name>@<version>, to reg.
func publishFixtures(t testing.TB, reg *npmtest.Registry) {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(npmFixtures, "packages"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		root := filepath.Join(npmFixtures, "packages", d.Name())
		files := map[string]string{}
		err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var pj struct{ Name, Version string }
		if err := json.Unmarshal([]byte(files["package.json"]), &pj); err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		reg.Publish(npmtest.Package{Name: pj.Name, Version: pj.Version, Files: files})
	}
}

// npmEvent is the event the fixture component runs on.
const npmEvent = `{"name":"ada","when":"2024-02-28T23:30:00Z","items":[1,2,3,4,5],` +
	`"xml":"<order id=\"7\"><item sku=\"a&amp;b\">2</item><item sku=\"c\">3</item><note>fast &lt;please&gt;</note></order>"}`

// npmWant is what the component emits for npmEvent: Node 20 gives the
// same (TestNpmImportsRunAsInNode checks it when node is installed).
const npmWant = `{"chunks":[[1,2],[3,4],[5]],"id":"21495524-a02f-5695-82e2-b117addc0b1e","next_day":"2024-02-29 23:30",` +
	`"order":{"order":{"@id":"7","item":[{"#text":"2","@sku":"a&b"},{"#text":"3","@sku":"c"}],"note":"fast <please>"}},` +
	`"valid":true,"version":"1.11.10"}`

func startNpmServer(t *testing.T) (*testServer, *npmtest.Registry) {
	reg := npmtest.New(t)
	publishFixtures(t, reg)
	return startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()}), reg
}

func lockOf(t *testing.T, c map[string]any) string {
	t.Helper()
	var out []string
	pkgs, _ := c["packages"].([]any)
	for _, p := range pkgs {
		m := p.(map[string]any)
		if !strings.HasPrefix(m["integrity"].(string), "sha512-") {
			t.Errorf("package %v has no sha512 integrity", m)
		}
		out = append(out, m["name"].(string)+"@"+m["version"].(string))
	}
	return strings.Join(out, " ")
}

func TestNpmImportsResolveAtDeploy(t *testing.T) {
	t.Parallel()
	s, reg := startNpmServer(t)
	code, err := os.ReadFile(filepath.Join(npmFixtures, "component.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": string(code)})
	if st != 200 {
		t.Fatalf("save: %d %v", st, body)
	}
	comp := data(body)
	const wantLock = "daytime@1.11.10 lodashlet@4.17.21 sha1-lite@1.0.2 uuidlet@9.0.1 xml-lite@4.2.0"
	if got := lockOf(t, comp); got != wantLock {
		t.Errorf("lock = %q, want %q (sha1-lite ^1.0.0 must not get 2.0.0)", got, wantLock)
	}
	if comp["code"] != string(code) {
		t.Error("the component's code is not the code as given")
	}

	src := s.deploySource(string(code), nil)
	var ev map[string]any
	json.Unmarshal([]byte(npmEvent), &ev)
	s.run(src["id"].(string), ev)
	if got := canonicalJSON(t, s.events(src["id"].(string), "", 1)[0]["event"]); got != npmWant {
		t.Errorf("emitted\n%s\nwant\n%s", got, npmWant)
	}

	// The same code again keeps its versions, even with a newer one out;
	// update_packages takes the newer one.
	reg.Publish(npmtest.Package{Name: "daytime", Version: "1.11.11", Files: map[string]string{
		"index.js": `module.exports = () => ({ add() { return this; }, format() { return "1.11.11"; } }); module.exports.version = "1.11.11";`}})
	st, body = s.do("POST", "/v1/components", map[string]any{"component_code": string(code)})
	if st != 200 || data(body)["id"] != comp["id"] || lockOf(t, data(body)) != wantLock {
		t.Errorf("saved again: %d %v, want the same component %v", st, body, comp["id"])
	}
	st, body = s.do("POST", "/v1/components", map[string]any{"component_code": string(code), "update_packages": true})
	if st != 200 || !strings.Contains(lockOf(t, data(body)), "daytime@1.11.11") || data(body)["id"] == comp["id"] {
		t.Errorf("with update_packages: %d %v, want a new component with daytime@1.11.11", st, body)
	}
}

func TestNpmImportsRunAsInNode(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the comparison of fount's results with Node 20's needs it (apt-get install nodejs)")
	}
	dir := t.TempDir()
	dirs, err := os.ReadDir(filepath.Join(npmFixtures, "packages"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.Name() == "sha1-lite@2.0.0" { // node_modules holds what fount resolved
			continue
		}
		name := d.Name()[:strings.LastIndex(d.Name(), "@")]
		if err := os.CopyFS(filepath.Join(dir, "node_modules", name), os.DirFS(filepath.Join(npmFixtures, "packages", d.Name()))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"component.mjs", "node-harness.mjs"} {
		b, err := os.ReadFile(filepath.Join(npmFixtures, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	if got := nodeEmits(t, node, dir, npmEvent); got != npmWant {
		t.Errorf("Node 20 emitted\n%s\nfount emits\n%s", got, npmWant)
	}
}

func TestNpmImportErrors(t *testing.T) {
	t.Parallel()
	s, reg := startNpmServer(t)
	reg.Publish(npmtest.Package{Name: "tampered", Version: "1.0.0", Files: map[string]string{"index.js": "module.exports = 1"}})
	reg.Tamper("tampered", "1.0.0")
	reg.Publish(npmtest.Package{Name: "broken-sdk", Version: "3.1.0", Files: map[string]string{
		"index.js": "module.exports = require('./client');", "client.js": "export const = ;"}})
	cases := []struct{ name, code, want string }{
		{"a package that does not bundle", `import c from "broken-sdk"; export default { name: "b", version: "1", run() { return c } }`, `"broken-sdk@3.1.0": it does not bundle: npm:broken-sdk@3.1.0/client.js:1:`},
		{"not found", `import x from "no-such-package"; export default { run() {} }`, `"no-such-package": no such package`},
		{"no matching version", `import x from "daytime@^2"; export default { run() {} }`, `no version matches "^2" (latest is 1.11.10)`},
		{"integrity mismatch", `import x from "tampered"; export default { run() {} }`, `"tampered@1.0.0": integrity mismatch`},
		{"built-in fount lacks", `import w from "node:path/win32"; export default { run() {} }`, `"path/win32" is a Node built-in module that fount does not provide`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": c.code})
			e, _ := body["error"].(map[string]any)
			if st != 400 || e["param"] != "component_code" || !strings.Contains(e["message"].(string), c.want) {
				t.Errorf("deploy: %d %v, want 400 naming %q", st, body, c.want)
			}
		})
	}
	_, body := s.do("GET", "/v1/users/me/sources", nil)
	if n := len(body["data"].([]any)); n != 0 {
		t.Errorf("%d sources stored after failed deploys", n)
	}
}

// TestNpmBundlingCannotCrashTheServer: esbuild's parser has no depth
// limit, so code or a package nested deeply enough would overflow the
// stack of whatever process runs it; the server bundles in a worker.
func TestNpmBundlingCannotCrashTheServer(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	publishFixtures(t, reg)
	reg.Publish(npmtest.Package{Name: "deep", Version: "1.0.0", Files: map[string]string{
		"index.js": "module.exports = " + strings.Repeat("!", 300_000) + "1;"}})
	s := startProductionServerWith(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()})
	for _, c := range []struct{ name, code, want string }{
		{"nested code", `import x from "daytime"; export default ` + strings.Repeat("!", 300_000) + "1", "nested too deeply"},
		{"nested package", `import deep from "deep"; export default { name: "d", version: "1.0.0", run() { return deep } }`, "could not be bundled"},
	} {
		st, body := s.do("POST", "/v1/components", map[string]any{"component_code": c.code})
		if e, _ := body["error"].(map[string]any); st != 400 || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
			t.Errorf("%s: %d %v, want 400 saying %q", c.name, st, body, c.want)
		}
	}
	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": `import d from "daytime";
		export default { name: "d", version: "1.0.0", run() { return d.version } }`})
	if st != 200 || lockOf(t, data(body)) != "daytime@1.11.10" {
		t.Errorf("after the hostile deploys: %d %v", st, body)
	}
}

func TestNpmImportsInWorkflowSteps(t *testing.T) {
	t.Parallel()
	s, _ := startNpmServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "npm steps", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		step("pick", `import get from "lodashlet/get.js";
			export default defineComponent({ async run({ steps }) { return get(steps.trigger.event, "a.b[1]"); } })`, nil),
	}})
	steps := wf["steps"].([]any)
	if got := lockOf(t, steps[0].(map[string]any)); got != "lodashlet@4.17.21" {
		t.Errorf("step lock = %q", got)
	}
	id := s.runWorkflow(wf["id"].(string), map[string]any{"a": map[string]any{"b": []any{"x", "y"}}})
	s.executions(wf["id"].(string), 1)
	_, body := s.do("GET", "/v1/executions/"+id, nil)
	ex := data(body)
	exSteps, _ := ex["steps"].([]any)
	if ex["status"] != "success" || len(exSteps) != 1 || exSteps[0].(map[string]any)["$return_value"] != "y" {
		t.Errorf("execution %v", ex)
	}
}

// canonicalJSON encodes v with sorted keys and no HTML escaping.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestDeployBundlesLocalNodeModules: `fount deploy` bundles packages
// installed in node_modules next to the component, so a server with no
// reachable registry runs it; --update-packages reaches the server.
func TestDeployBundlesLocalNodeModules(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "node_modules", "daytime"), os.DirFS(filepath.Join(npmFixtures, "packages", "daytime@1.11.10"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "day.mjs")
	os.WriteFile(file, []byte(`import daytime from "daytime";
export default { name: "day", version: "0.1.0", async run(event) { this.$emit({ day: daytime(event.when).format("YYYY-MM-DD") }) } };`), 0o644)
	id := strings.TrimSpace(e.mustFount("deploy", file, "--quiet", "--update-packages"))
	e.srv.run(id, map[string]any{"when": "2030-01-02T03:04:05Z"})
	if got := canonicalJSON(t, e.srv.events(id, "", 1)[0]["event"]); got != `{"day":"2030-01-02"}` {
		t.Errorf("event = %s", got)
	}
	// Without node_modules the import is left to the server, whose
	// registry (none reachable here) the error names.
	os.RemoveAll(filepath.Join(dir, "node_modules"))
	code, _, stderr := e.fount("deploy", file)
	if code == exitOK || !strings.Contains(stderr, `npm package "daytime"`) || !strings.Contains(stderr, "unreachable") {
		t.Errorf("deploy without node_modules: exit %d, %s", code, stderr)
	}
}

// TestDeployRegistryKey: `fount deploy KEY` deploys a published component,
// as `pd deploy http-new-requests` does; an unknown key says what it is not.
func TestDeployRegistryKey(t *testing.T) {
	e := newCLIEnv(t)
	id := strings.TrimSpace(e.mustFount("deploy", "http-new-requests", "--quiet"))
	if src := e.srv.listedSource(id); src == nil || endpointOf(src, "http") == "" {
		t.Errorf("deployed %v", src)
	}
	code, _, stderr := e.fount("deploy", "no-such-key")
	if code == exitOK || !strings.Contains(stderr, "neither a file nor a published component's key") {
		t.Errorf("unknown key: exit %d, %s", code, stderr)
	}
}

// nodeEmits runs dir's component.mjs in Node with event, through
// node-harness.mjs (copied there), and returns what it emitted, as
// canonical JSON.
func nodeEmits(t *testing.T, node, dir, event string) string {
	t.Helper()
	harness, err := os.ReadFile(filepath.Join(npmFixtures, "node-harness.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node-harness.mjs"), harness, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "node-harness.mjs", event)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var emitted []any
	if err := json.Unmarshal(out, &emitted); err != nil || len(emitted) != 1 {
		t.Fatalf("node printed %q", out)
	}
	return canonicalJSON(t, emitted[0])
}

// apiReceiver is the HTTP API the axios-shaped component calls.
func apiReceiver(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/items":
			var in map[string]any
			json.NewDecoder(r.Body).Decode(&in)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"id": 1, "name": in["name"], "key": r.Header.Get("X-Api-Key"), "type": r.Header.Get("Content-Type")})
		case r.Method == http.MethodGet && r.URL.Path == "/items":
			json.NewEncoder(w).Encode(map[string]any{"items": []string{"ada"}, "q": r.URL.Query().Get("q")})
		case r.Method == http.MethodGet && r.URL.Path == "/search":
			var in map[string]any
			err := json.NewDecoder(r.Body).Decode(&in)
			json.NewEncoder(w).Encode(map[string]any{"body": in, "read": err == nil})
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"nope"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestNpmHTTPClientAsInNode: a component using an axios-shaped package over
// node:http (streams, zlib constants, EventEmitter, util) calls a loopback
// API, with private egress allowed, and emits what it emits in Node 20.
func TestNpmHTTPClientAsInNode(t *testing.T) {
	t.Parallel()
	api := apiReceiver(t)
	reg := npmtest.New(t)
	publishFixtures(t, reg)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL(), AllowPrivateEgress: true})
	code, err := os.ReadFile(filepath.Join(npmFixtures, "axios-component.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	src := s.deploySource(string(code), nil)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // its port refuses connections now
	event := map[string]any{"base": api.URL, "closed": closed.URL}
	s.run(src["id"].(string), event)
	got := canonicalJSON(t, s.events(src["id"].(string), "", 1)[0]["event"])
	const want = `{"created":[201,{"id":1,"key":"k1","name":"ada","type":"application/json"}],"failed":["AxiosError",404,{"error":"nope"}],` +
		`"listed":{"items":["ada"],"q":"a b"},"refused":["AxiosError","ECONNREFUSED"],"searched":["http",{"body":{"q":"ada"},"read":true}],` +
		`"seen":["post /items","get /items","get /missing","get /search","get /x"]}`
	if got != want {
		t.Errorf("fount emitted\n%s\nwant\n%s", got, want)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node is not installed: the comparison with Node 20 is skipped (apt-get install nodejs)")
		return
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "node_modules", "axioslite"), os.DirFS(filepath.Join(npmFixtures, "packages", "axioslite@1.6.0"))); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "component.mjs"), code, 0o644)
	if got := nodeEmits(t, node, dir, canonicalJSON(t, event)); got != want {
		t.Errorf("Node 20 emitted\n%s\nwant\n%s", got, want)
	}
}

// TestNpmHTTPClientEgress: node:http goes through the egress policy: a
// server that refuses private destinations refuses the loopback API, and
// the API is never reached.
func TestNpmHTTPClientEgress(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{}, 8)
	api := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit <- struct{}{} }))
	t.Cleanup(api.Close)
	reg := npmtest.New(t)
	publishFixtures(t, reg)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()})
	code, _ := os.ReadFile(filepath.Join(npmFixtures, "axios-component.mjs"))
	src := s.deploySource(string(code), nil)
	s.run(src["id"].(string), map[string]any{"base": api.URL})
	if msg := fmt.Sprint(s.events(src["id"].(string), "$errors", 1)[0]["event"]); !strings.Contains(msg, "not allowed") || !strings.Contains(msg, "EACCES") && !strings.Contains(msg, "AxiosError") {
		t.Errorf("$errors event: %s", msg)
	}
	select {
	case <-hit:
		t.Error("the loopback API was reached")
	default:
	}
}

// TestStacksNameTheAuthorsFiles: a run's error names the author's file and
// line, through the source map of `fount deploy`'s bundle, and a package's
// file through the server bundle's map.
func TestStacksNameTheAuthorsFiles(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.mjs"), []byte(`import { check } from "./lib/check.mjs";
export default {
  name: "stacky", version: "0.1.0",
  run(event) {
    return check(event.n);
  },
};
`), 0o644)
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "lib", "check.mjs"), []byte(`// Checks n.
export function check(n) {
  if (n > 1) {
    throw new RangeError("n is too big: " + n);
  }
  return n;
}
`), 0o644)
	id := strings.TrimSpace(e.mustFount("deploy", filepath.Join(dir, "main.mjs"), "--quiet"))
	e.srv.run(id, map[string]any{"n": 5})
	stack := fmt.Sprint(e.srv.events(id, "$errors", 1)[0]["event"].(map[string]any)["error"].(map[string]any)["stack"])
	if !strings.Contains(stack, "lib/check.mjs:4") || !strings.Contains(stack, "main.mjs:5") {
		t.Errorf("stack %q, want lib/check.mjs:4 and main.mjs:5", stack)
	}

	reg := npmtest.New(t)
	publishFixtures(t, reg)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()})
	src := s.deploySource(`import sha1 from "sha1-lite@2";
export default { name: "broken", version: "1", run() {
  return sha1();
} };`, nil)
	s.run(src["id"].(string), nil)
	stack = fmt.Sprint(s.events(src["id"].(string), "$errors", 1)[0]["event"].(map[string]any)["error"].(map[string]any)["stack"])
	if !strings.Contains(stack, "npm:sha1-lite@2.0.0/index.js:1") || !strings.Contains(stack, "component.mjs:3") {
		t.Errorf("stack %q, want the package's file and the component's line", stack)
	}
}

// TestStepStacksNameTheAuthorsFiles: a workflow step deployed from a
// workflow file names its author's file in its error's stack.
func TestStepStacksNameTheAuthorsFiles(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte("name: stacky flow\ntrigger:\n  type: manual\nsteps:\n  - name: boom\n    code: ./boom.mjs\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "boom.mjs"), []byte(`import { fail } from "./fail.mjs";
export default defineComponent({
  async run() {
    fail();
  },
});
`), 0o644)
	os.WriteFile(filepath.Join(dir, "fail.mjs"), []byte("export function fail() {\n  throw new Error(\"boom\");\n}\n"), 0o644)
	e.mustFount("deploy", filepath.Join(dir, "flow.yaml"))
	_, body := e.srv.do("GET", "/v1/users/me/workflows", nil)
	wf := body["data"].([]any)[0].(map[string]any)["id"].(string)
	x := e.srv.execution(e.srv.runWorkflow(wf, nil))
	stack := fmt.Sprint(x["steps"].([]any)[0].(map[string]any)["error"].(map[string]any)["stack"])
	if !strings.Contains(stack, "fail.mjs:2") || !strings.Contains(stack, "boom.mjs:4") {
		t.Errorf("stack %q, want fail.mjs:2 and boom.mjs:4", stack)
	}
}

// TestStacksOfMinifiedBundles: a component whose packages make a bundle
// large enough to be minified still names its author's lines, and the
// package's file, in its error's stack.
func TestStacksOfMinifiedBundles(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	var big strings.Builder
	big.WriteString("exports.fail = function failLoudly(why) {\n  throw new TypeError(\"the SDK failed: \" + why);\n};\n")
	for i := 0; big.Len() < 4<<20; i++ {
		fmt.Fprintf(&big, "exports.operation%d = function fetchOperationNumber%d(argumentOfTheOperation) {\n  return argumentOfTheOperation + %d;\n};\n", i, i, i)
	}
	reg.Publish(npmtest.Package{Name: "hugesdk", Version: "1.0.0", Files: map[string]string{"index.js": big.String()}})
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()})
	src := s.deploySource(`import * as sdk from "hugesdk";
export default { name: "huge", version: "1", run(event) {
  if (event.mine) {
    throw new RangeError("mine: " + sdk.operation7(1));
  }
  return sdk.fail("no");
} };`, nil)
	id := src["id"].(string)
	s.run(id, map[string]any{"mine": true})
	s.run(id, map[string]any{"mine": false})
	var stacks []string
	for _, ev := range s.events(id, "$errors", 2) {
		stacks = append(stacks, fmt.Sprint(ev["event"].(map[string]any)["error"].(map[string]any)["stack"]))
	}
	joined := strings.Join(stacks, "\n---\n")
	if !strings.Contains(joined, "component.mjs:4") || !strings.Contains(joined, "component.mjs:6") ||
		!strings.Contains(joined, "npm:hugesdk@1.0.0/index.js:2") {
		t.Errorf("stacks %q, want component.mjs:4, component.mjs:6 and npm:hugesdk@1.0.0/index.js:2", joined)
	}
}
