package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/fount-dev/fount/internal/server"
)

// stepWithAddedProps is an action whose additionalProps adds a prop, with
// options, when its mode asks for one and its secret is the one stored
// (so a kept secret must reach the methods as its value).
const stepWithAddedProps = `export default { name: "Shaped", version: "1", type: "action",
	props: {
		mode: { type: "string", options: ["plain", "sized"], reloadProps: true },
		token: { type: "string", secret: true },
	},
	async additionalProps() {
		return this.mode === "sized" && this.token === "t0ken" ? { size: { type: "integer", async options() { return [1, 2, 3].map((n) => n * (this.token === "t0ken" ? 10 : 1)) } } } : {};
	},
	run() { return { mode: this.mode, size: this.size ?? null, token: this.token === "t0ken" } } }`

// TestStepPropsConfiguredOnTheirOwn: a deployed step's props are
// reloaded with what additionalProps adds, an added prop's options are
// listed (its method sees the kept secret), and the props are saved
// without the step's code: a new version, whose executions use them.
func TestStepPropsConfiguredOnTheirOwn(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name": "shaped", "trigger": map[string]any{"type": "manual"},
		"steps": []any{
			map[string]any{"name": "first", "code": `export default defineComponent({ async run() { return 7 } })`},
			action("shape", stepWithAddedProps, map[string]any{"mode": "plain", "token": "t0ken"}),
		},
	})
	id := wf["id"].(string)
	base := "/v1/workflows/" + id + "/steps/shape"

	st, body := s.do("POST", base+"/props", map[string]any{"configured_props": map[string]any{"mode": "sized", "token": "[redacted]"}})
	if st != 200 || !strings.Contains(jsonOf(body), `"name":"size"`) {
		t.Fatalf("the step's props with mode sized: %d %v", st, body)
	}
	st, body = s.do("POST", base+"/configure", map[string]any{"prop_name": "size", "configured_props": map[string]any{"mode": "sized", "token": "[redacted]"}})
	if st != 200 || jsonOf(data(body)["options"]) != `[10,20,30]` {
		t.Fatalf("the added prop's options (the kept secret seen): %d %v", st, body)
	}

	st, body = s.do("PUT", base+"/props", map[string]any{"props": map[string]any{"mode": "sized", "size": "{{steps.first.$return_value}}", "token": "[redacted]"}})
	if st != 200 {
		t.Fatalf("save the step's props: %d %v", st, body)
	}
	saved := data(body)
	if saved["version"].(float64) != wf["version"].(float64)+1 || strings.Contains(jsonOf(saved), "t0ken") {
		t.Errorf("after saving: version %v (was %v), secret hidden: %s", saved["version"], wf["version"], jsonOf(saved))
	}
	x := s.execution(s.runWorkflow(id, nil))
	if got := jsonOf(x["steps"].([]any)[1].(map[string]any)["$return_value"]); got != `{"mode":"sized","size":7,"token":true}` {
		t.Errorf("the execution after saving returned %s: %s", got, jsonOf(x))
	}

	bad := []struct {
		name, path string
		body       map[string]any
		status     int
		says       string
	}{
		{"a prop the mode does not add", base + "/props", map[string]any{"props": map[string]any{"mode": "plain", "size": 2, "token": "x"}}, 400, "size"},
		{"an expression reading a later step", "/v1/workflows/" + id + "/steps/first/props", map[string]any{"props": map[string]any{"x": "{{steps.shape.$return_value}}"}}, 400, "shape"},
		{"no such step", "/v1/workflows/" + id + "/steps/nosuch/props", map[string]any{"props": map[string]any{}}, 404, "step"},
		{"no props", base + "/props", map[string]any{}, 400, "props"},
	}
	for _, tt := range bad {
		if st, body := s.do("PUT", tt.path, tt.body); st != tt.status || !strings.Contains(jsonOf(body), tt.says) {
			t.Errorf("%s: %d %v, want %d naming %s", tt.name, st, body, tt.status, tt.says)
		}
	}
	other := s.newUser("step-other", "free")
	if st, _ := other.do("PUT", base+"/props", map[string]any{"props": map[string]any{"mode": "plain", "token": "x"}}); st != 404 {
		t.Errorf("another user's save: %d, want 404", st)
	}
	_, body = s.do("GET", "/v1/workflows/"+id, nil)
	if got := data(body)["version"]; got != saved["version"] {
		t.Errorf("refused saves changed the version to %v", got)
	}
}

// TestDashboardEditsAStepsProps: a workflow's step page is the form a
// source has: choosing a reloadProps value brings the prop additionalProps
// adds, its options load (its method sees the kept secret), and saving
// keeps the code, makes a new version, and the next execution uses it.
func TestDashboardEditsAStepsProps(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	wf := s.deployWorkflow(map[string]any{
		"name": "shaped", "trigger": map[string]any{"type": "manual"},
		"steps": []any{action("shape", stepWithAddedProps, map[string]any{"mode": "plain", "token": "t0ken"})},
	})
	id := wf["id"].(string)
	ctx := newBrowser(t)
	shots := newScreenshots(t)
	steps(t, ctx, s, "edit the step's props", append(signInAt(s, "#/workflows/"+id),
		chromedp.WaitVisible(chromedp.CSS(`a.edit-step`)),
		chromedp.Click(chromedp.CSS(`a.edit-step`)),
		chromedp.WaitVisible(chromedp.ID("prop-mode")),
		choose("prop-mode", "sized"),
		chromedp.WaitVisible(chromedp.ID("prop-size")),
		chromedp.Click(chromedp.CSS(`#prop-size ~ .row .load-options`)),
		chromedp.WaitVisible(chromedp.ID("prop-size-options")),
		waitJS(`document.getElementById('prop-size-options').options.length === 4`),
		choose("prop-size-options", "20"),
		// The method returned every option at once: no "More options".
		waitJS(`document.querySelector('#prop-size ~ .row button:not(.load-options)').offsetParent === null`),
		shots.take("step-props"),
		chromedp.Click(chromedp.ID("save-step")),
		waitJS(`document.getElementById('flash').textContent.includes('Saved the props of shape')`),
	)...)
	if bad := value(t, ctx, s, "labels", chromedp.Evaluate[string](unlabelledControls)); bad != "" {
		t.Errorf("form controls without a label: %s", bad)
	}
	x := s.execution(s.runWorkflow(id, nil))
	if got := jsonOf(x["steps"].([]any)[0].(map[string]any)["$return_value"]); got != `{"mode":"sized","size":20,"token":true}` {
		t.Errorf("the execution after the dashboard's save returned %s", got)
	}
}
