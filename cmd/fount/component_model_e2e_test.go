package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
	"github.com/fount-dev/fount/internal/server"
)

// TestPropDefinitionInputsReachOptions: the third element of a
// propDefinition maps the configured props to values its options method
// receives with the page, as on Pipedream, so options that depend on
// another prop's value get it.
func TestPropDefinitionInputsReachOptions(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := `const slack = { type: "app", app: "slack", propDefinitions: {
		channel: { type: "string", label: "Channel", async options({ page, teamId }) { return ["team " + teamId + " page " + page]; } } } };
	export default { name: "picker", version: "1", props: { slack, team: { type: "string" },
		channel: { propDefinition: [slack, "channel", (c) => ({ teamId: c.team })] } }, run() {} }`
	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": code})
	if st != 200 {
		t.Fatalf("save: %d %v", st, body)
	}
	st, body = s.do("POST", "/v1/components/"+data(body)["id"].(string)+"/configure",
		map[string]any{"prop_name": "channel", "configured_props": map[string]any{"team": "T42"}, "page": 2})
	if got := fmt.Sprint(data(body)["options"]); st != 200 || !strings.Contains(got, "team T42 page 2") {
		t.Errorf("configure: %d %v, want the options of team T42", st, body)
	}
}

// TestOldLibrariesFindNode: a library that tests __filename and
// __dirname to know it runs in Node (htmlparser does, and falls back on
// the global this, which a bundle does not have) takes its Node path.
func TestOldLibrariesFindNode(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "oldparser", Version: "1.7.7", Files: map[string]string{
		"lib/parser.js": "(function () {\nfunction runningInNode() { return typeof exports == 'object' && typeof __filename == 'string' && typeof __dirname == 'string'; }\n" +
			"if (!runningInNode()) { this.Old = {}; exports = this.Old; }\nexports.parse = function (s) { return s.split(','); };\n})();",
		"package.json": `{"name":"oldparser","version":"1.7.7","main":"./lib/parser"}`}})
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL()})
	src := s.deploySource(`import p from "oldparser"; export default { name: "old", version: "1", run() { this.$emit({ parsed: p.parse("a,b") }) } }`, nil)
	s.run(src["id"].(string), map[string]any{})
	if got := fmt.Sprint(s.events(src["id"].(string), "", 1)[0]["event"]); got != "map[parsed:[a b]]" {
		t.Errorf("emitted %s", got)
	}
}

// TestAddedPropsOfActionsAndSteps: the props an action's
// additionalProps() adds take values when it runs on its own
// (POST /v1/actions/run) and as a workflow step, as a source's do.
func TestAddedPropsOfActionsAndSteps(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := `export default { name: "adds", version: "1", type: "action",
		props: { kind: { type: "string", reloadProps: true } },
		async additionalProps() { return this.kind === "channel" ? { channel: { type: "string", label: "Channel" } } : {}; },
		async run() { return [this.kind, this.channel] } }`
	st, body := s.do("POST", "/v1/actions/run", map[string]any{"code": code, "props": map[string]any{"kind": "channel", "channel": "#general"}})
	if st != 200 || fmt.Sprint(data(body)["$return_value"]) != "[channel #general]" {
		t.Errorf("run the action: %d %v", st, body)
	}
	if st, body := s.do("POST", "/v1/actions/run", map[string]any{"code": code, "props": map[string]any{"kind": "none", "channel": "#general"}}); st != 400 || !strings.Contains(fmt.Sprint(body), "channel") {
		t.Errorf("a value for a prop not added: %d %v, want 400 naming channel", st, body)
	}
	wf := s.deployWorkflow(map[string]any{"name": "added", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		action("post", code, map[string]any{"kind": "channel", "channel": "#ops"})}})
	id := s.runWorkflow(wf["id"].(string), map[string]any{})
	s.executions(wf["id"].(string), 1)
	_, body = s.do("GET", "/v1/executions/"+id, nil)
	steps, _ := data(body)["steps"].([]any)
	if len(steps) != 1 || fmt.Sprint(steps[0].(map[string]any)["$return_value"]) != "[channel #ops]" {
		t.Errorf("the step ran with %v", data(body))
	}
}

// TestAppHookIsAnEndpoint: a source with Pipedream's $.interface.apphook
// deploys, and its prop is an HTTP endpoint that the app's webhooks can
// be pointed at: each request runs the source.
func TestAppHookIsAnEndpoint(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "hooked", version: "1", props: {
		github: { type: "app", app: "github" },
		hook: { type: "$.interface.apphook", appProp: "github", eventNames: ["push"] } },
		run(e) { this.$emit({ body: e.body, endpoint: typeof this.hook.endpoint }) } }`, nil)
	url := endpointOf(src, "hook")
	if st, _ := postBody(t, url, `{"ref":"main"}`); st != 200 {
		t.Fatalf("post to the apphook's endpoint: %d", st)
	}
	if got := fmt.Sprint(s.events(src["id"].(string), "", 1)[0]["event"]); got != "map[body:map[ref:main] endpoint:string]" {
		t.Errorf("emitted %s", got)
	}
}

// TestInterfacePropsFromAdditionalProps: a source's additionalProps() may
// add an HTTP interface or a timer, as Pipedream's may (a source that
// takes webhooks or polls, by a prop): the added endpoint takes requests
// and gives the component its URL, and the added timer fires, also after
// a restart. A step's additionalProps() may not add one.
func TestInterfacePropsFromAdditionalProps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{DataDir: dir, BootstrapKey: ownerKey})
	code := `export default { name: "either", version: "1",
		props: { mode: { type: "string", options: ["webhook", "poll"], reloadProps: true } },
		async additionalProps() {
			return this.mode === "webhook" ? { http: { type: "$.interface.http" } }
				: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } };
		},
		run(e) { this.$emit({ endpoint: this.http ? this.http.endpoint === this.http.endpoint_url && this.http.endpoint.includes("/h/") : null,
			timer: this.timer || null, body: e.body || null }); } }`
	hook := s.deploySource(code, map[string]any{"mode": "webhook"})
	resp, err := http.Post(endpointOf(hook, "http"), "application/json", strings.NewReader(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := canonicalJSON(t, s.events(hook["id"].(string), "", 1)[0]["event"]); got != `{"body":{"n":1},"endpoint":true,"timer":null}` {
		t.Errorf("the added endpoint's run emitted %s", got)
	}
	poll := s.deploySource(code, map[string]any{"mode": "poll"})
	id := poll["id"].(string)
	if got := canonicalJSON(t, s.events(id, "", 1)[0]["event"]); got != `{"body":null,"endpoint":null,"timer":{"cron":null,"interval_seconds":1}}` {
		t.Errorf("the added timer's run emitted %s", got)
	}
	s.stop()
	s2 := startServer(t, server.Config{DataDir: dir})
	s2.key = ownerKey
	_, body := s2.do("GET", "/v1/sources/"+id+"/event_summaries?limit=100", nil)
	before := len(body["data"].([]any))
	s2.events(id, "", before+2) // the added timer fires after the restart too

	st, body := s2.do("POST", "/v1/actions/run", map[string]any{"code": `export default { name: "a", version: "1", type: "action",
		async additionalProps() { return { http: { type: "$.interface.http" } }; }, run() { return 1 } }`})
	if st == 200 || !strings.Contains(fmt.Sprint(body), "$.interface.http") {
		t.Errorf("an action's added interface: %d %v, want it refused by name", st, body)
	}
}
