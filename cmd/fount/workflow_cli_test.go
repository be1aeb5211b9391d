package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const greeterFile = "../../testdata/workflows/greeter/workflow.yaml"

// TestCLIWorkflowDeployRunExecutionsEvents: `fount deploy workflow.yaml`
// creates the workflow, a second deploy updates it by name, and list,
// get --endpoint, run, executions and events show it.
func TestCLIWorkflowDeployRunExecutionsEvents(t *testing.T) {
	e := newCLIEnv(t)
	out := e.mustFount("deploy", greeterFile)
	if !strings.Contains(out, "deployed workflow greeter (p_") || !strings.Contains(out, "http endpoint: http://") {
		t.Fatalf("deploy: %s", out)
	}
	if out := e.mustFount("deploy", greeterFile); !strings.Contains(out, "updated workflow greeter (p_") {
		t.Errorf("a second deploy: %s", out)
	}
	// One row, one workflow id: rows begin with the id (an endpoint's
	// random token may hold "p_" too).
	if out := e.mustFount("list", "workflows"); !strings.Contains(out, "greeter") || len(regexp.MustCompile(`(?m)^p_`).FindAllString(out, -1)) != 1 {
		t.Errorf("list workflows: %s", out)
	}
	url := strings.TrimSpace(e.mustFount("get", "greeter", "--endpoint"))
	postBody(t, url, `{"name":"ada","times":2}`)
	events := e.srv.workflowEvents(workflowID(t, e), "", 1)
	if got := jsonOf(events[0]["event"]); got != `{"raw_event":{"greeting":"hello ada, hello ada"}}` {
		t.Errorf("event = %s", got)
	}
	out = e.mustFount("executions", "greeter")
	for _, want := range []string{"success", "parse", "parsed a request for ada", "greet", "greeted ada", "announce"} {
		if !strings.Contains(out, want) {
			t.Errorf("executions lack %q:\n%s", want, out)
		}
	}
	if out := e.mustFount("events", "greeter"); !strings.Contains(out, `"greeting":"hello ada, hello ada"`) {
		t.Errorf("events: %s", out)
	}
	follow, stop := e.background("executions", "greeter", "--follow")
	waitFor(t, follow, "greeted ada")
	if out := e.mustFount("run", "greeter", "--event", `{"body":{"name":"bo"}}`); !strings.Contains(out, "queued execution ex_") {
		t.Errorf("run: %s", out)
	}
	waitFor(t, follow, "greeted bo")
	if code := stop(); code != exitOK {
		t.Errorf("executions --follow exited %d", code)
	}
	e.srv.executions(workflowID(t, e), 2)
	var listed struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(e.mustFount("executions", "greeter", "--json")), &listed); err != nil || len(listed.Data) != 2 {
		t.Errorf("executions --json: %v %v", err, listed)
	}
	// Replay: a new execution with the same trigger event.
	first := listed.Data[len(listed.Data)-1]
	replayed := strings.TrimSpace(e.mustFount("executions", "replay", first["id"].(string)))
	if replayed == "" || replayed == first["id"] {
		t.Fatalf("executions replay printed %q", replayed)
	}
	again, original := e.srv.execution(replayed), e.srv.execution(first["id"].(string))
	if jsonOf(again["event"]) != jsonOf(original["event"]) || again["status"] != "success" {
		t.Errorf("replayed execution %v, of %v", again, original)
	}
	if code, _, stderr := e.fount("executions", "replay", "ex_nope-1"); code != 1 || !strings.Contains(stderr, "No execution with that id") {
		t.Errorf("replay of an unknown execution: exit %d, %s", code, stderr)
	}
}

func workflowID(t *testing.T, e *cliEnv) string {
	t.Helper()
	return strings.TrimSpace(e.mustFount("list", "workflows", "--quiet"))
}

// TestCLIWorkflowFileErrors: a bad workflow file exits 1 or 2 with a
// message naming the step and the problem, and deploys nothing.
func TestCLIWorkflowFileErrors(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("ok.mjs", `export default defineComponent({ run() { return 1 } })`)
	write("broken.mjs", `export default { run( {`)
	tests := []struct{ name, body, want string }{
		{"unknown field", "name: w\ntrigger: {type: manual}\nsteps:\n  - name: a\n    code: ./ok.mjs\n    colour: red\n", "field colour not found"},
		{"no step file", "name: w\ntrigger: {type: manual}\nsteps:\n  - name: a\n", "give exactly one of code"},
		{"a syntax error", "name: w\ntrigger: {type: manual}\nsteps:\n  - name: bad\n    code: ./broken.mjs\n", "step 1 (bad)"},
		{"unknown trigger", "name: w\ntrigger: {type: email}\nsteps:\n  - name: a\n    code: ./ok.mjs\n", `unknown trigger type "email"`},
		{"missing step in an expression", "name: w\ntrigger: {type: manual}\nsteps:\n  - name: a\n    code: ./ok.mjs\n  - name: b\n    action: " +
			filepath.Join(mustAbs(t, "../../testdata/workflows/greeter"), "greet.mjs") + "\n    props: {who: \"{{steps.nope.x}}\"}\n", "steps.nope"},
		{"not a workflow", "[1, 2]", "not a workflow definition"},
		{"a token variable not set", "name: w\ntrigger: {type: http, token_env: FOUNT_TEST_UNSET_TOKEN}\nsteps:\n  - name: a\n    code: ./ok.mjs\n", "names FOUNT_TEST_UNSET_TOKEN, which is not set"},
	}
	for _, tt := range tests {
		code, out, errOut := e.fount("deploy", write(strings.ReplaceAll(tt.name, " ", "-")+".yaml", tt.body))
		if code == exitOK || !strings.Contains(errOut+out, tt.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want an error with %q", tt.name, code, out, errOut, tt.want)
		}
	}
	if out := e.mustFount("list", "workflows", "--quiet"); strings.TrimSpace(out) != "" {
		t.Errorf("bad files deployed workflows: %s", out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestCLIWorkflowDev: `fount dev workflow.yaml` deploys, prints each
// execution, redeploys when a step's file changes, and deletes the
// workflow it created when it stops.
func TestCLIWorkflowDev(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	step := filepath.Join(dir, "step.mjs")
	if err := os.WriteFile(step, []byte(`export default defineComponent({ run({ $ }) { $.export("$summary", "version one") } })`), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(file, []byte("name: dev-flow\ntrigger: {type: manual}\nsteps:\n  - name: only\n    code: ./step.mjs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stop := e.background("dev", file)
	waitFor(t, out, "dev: deployed workflow dev-flow (p_")
	e.mustFount("run", "dev-flow")
	waitFor(t, out, "version one")
	if err := os.WriteFile(step, []byte(`export default defineComponent({ run({ $ }) { $.export("$summary", "version two") } })`), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "dev: redeployed workflow dev-flow")
	e.mustFount("run", "dev-flow")
	waitFor(t, out, "version two")
	if code := stop(); code != exitOK {
		t.Errorf("dev exited %d:\n%s", code, out)
	}
	if !strings.Contains(out.String(), "dev: deleted p_") {
		t.Errorf("dev did not delete its workflow:\n%s", out)
	}
	if got := e.mustFount("list", "workflows", "--quiet"); strings.TrimSpace(got) != "" {
		t.Errorf("workflows after dev: %s", got)
	}
}

// TestCLIRunAction: `fount run-action FILE --prop k=v` prints what the
// action returned, exported and logged; an action that throws exits 1.
func TestCLIRunAction(t *testing.T) {
	e := newCLIEnv(t)
	out := e.mustFount("run-action", "../../testdata/workflows/greeter/greet.mjs", "--prop", "who=ada", "--prop", "times=2")
	for _, want := range []string{"success in", "$summary: greeted ada", `$return_value: "hello ada, hello ada"`} {
		if !strings.Contains(out, want) {
			t.Errorf("run-action output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	thrower := filepath.Join(dir, "throw.mjs")
	if err := os.WriteFile(thrower, []byte(`export default { name: "t", version: "1", type: "action", run() { throw new Error("it broke") } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := e.fount("run-action", thrower)
	if code != exitError || !strings.Contains(stdout, "error: Error: it broke") {
		t.Errorf("a throwing action: exit %d\n%s", code, stdout)
	}
	if code, _, errOut := e.fount("run-action", "../../testdata/workflows/greeter/greet.mjs", "--prop", "times=2"); code == exitOK || !strings.Contains(errOut, "who") {
		t.Errorf("a missing prop: exit %d, %s", code, errOut)
	}
}

// TestCLIRunActionAppAndRequestProps: run-action's --prop and --props
// take an app prop as a connected account's id (or the API's
// {"authProvisionId": ...}) and an http_request prop as a URL (or the
// API's object), as docs/accounts.md says.
func TestCLIRunActionAppAndRequestProps(t *testing.T) {
	e := newCLIEnv(t)
	st, body := e.srv.do("POST", "/v1/accounts", map[string]any{"app": "github", "name": "gh", "oauth_access_token": "tok-123"})
	if st != 200 {
		t.Fatalf("create account: %d %v", st, body)
	}
	acct := data(body)["id"].(string)
	dir := t.TempDir()
	action := filepath.Join(dir, "app.mjs")
	if err := os.WriteFile(action, []byte(`export default { name: "uses-app", version: "1", type: "action",
		props: { github: { type: "app", app: "github" }, req: { type: "http_request", optional: true } },
		run() { return [this.github.$auth.oauth_access_token, this.req ? this.req.url : null] } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(dir, "props.json")
	if err := os.WriteFile(props, []byte(`{"github": {"authProvisionId": "`+acct+`"}, "req": "https://api.example.com/x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--prop", "github=" + acct, "--prop", "req=https://api.example.com/x"},
		{"--props", props},
	} {
		out := e.mustFount(append([]string{"run-action", action}, args...)...)
		if !strings.Contains(out, `["tok-123","https://api.example.com/x"]`) {
			t.Errorf("run-action %v:\n%s", args, out)
		}
	}
	if code, _, errOut := e.fount("run-action", action, "--prop", "github=not-an-account"); code == exitOK || !strings.Contains(errOut, "apn_") {
		t.Errorf("a bad account id: exit %d, %s", code, errOut)
	}
}

// TestCLIWorkflowTokenFromEnv: a workflow file's trigger.token_env names
// the variable that holds the bearer token, which each deploy sends; the
// endpoint then refuses requests without it. The file's throttle,
// concurrency, queue_size and retry are the workflow's.
func TestCLIWorkflowTokenFromEnv(t *testing.T) {
	const token = "tok_from_the_environment_1"
	e := newCLIEnv(t).with(map[string]string{"HOOK_TOKEN": token})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.mjs"), []byte(`export default defineComponent({ run() { return 1 } })`), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "guarded.yaml")
	if err := os.WriteFile(file, []byte("name: guarded\ntrigger: {type: http, token_env: HOOK_TOKEN}\nthrottle: {limit: 5, interval_seconds: 60}\nconcurrency: 3\nqueue_size: 40\nretry: {attempts: 2}\nsteps:\n  - name: a\n    code: ./ok.mjs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustFount("deploy", file)
	wf := e.srv.getWorkflow(workflowID(t, e))
	if got := jsonOf(wf["throttle"]); got != `{"interval_seconds":60,"limit":5}` {
		t.Errorf("the file's throttle: %s", got)
	}
	if got := jsonOf([]any{wf["concurrency"], wf["queue_size"], wf["retry"]}); got != `[3,40,{"attempts":2}]` {
		t.Errorf("the file's concurrency, queue_size and retry: %s", got)
	}
	url := strings.TrimSpace(e.mustFount("get", "guarded", "--endpoint"))
	if st, _ := postBody(t, url, `{}`); st != 401 {
		t.Errorf("without the token: %d, want 401", st)
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the token: %d, want 200", resp.StatusCode)
	}
}
