package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fount-dev/fount/internal/server"
)

// shoutAction is an action whose prop says what it returns.
const shoutAction = `export default { name: "Shout", version: "1", type: "action",
	props: { word: { type: "string" } }, async run() { return this.word + "!" } }`

// stepAt is a CSS selector of a control in the new workflow form's i-th
// step (from 1).
func stepAt(i int, control string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`.step-list > li:nth-child(%d) %s`, i, control))
}

// TestDashboardBuildsAWorkflow: the new workflow form builds a workflow
// from its fields (a trigger of each kind it offers, steps added,
// reordered and removed) that runs as built; a refusal of the server is
// shown naming the field; a pasted JSON definition still deploys.
func TestDashboardBuildsAWorkflow(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	src := s.deploySource(`export default { name: "Orders", version: "1", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }`, nil)
	ctx := newBrowser(t)
	shots := newScreenshots(t)
	steps(t, ctx, s, "build an HTTP workflow", append(signInAt(s, "#/workflows/new"),
		chromedp.WaitVisible(chromedp.ID("wf-name")),
		// No name: the server's refusal names the field.
		chromedp.Click(chromedp.ID("deploy-workflow")),
		waitJS(`document.getElementById('flash').textContent.includes('(name)')`),
		chromedp.SetValue(chromedp.ID("wf-name"), "built in the browser"),
		choose("wf-trigger", "HTTP request: an endpoint of its own"),
		chromedp.Click(chromedp.ID("wf-respond")),
		chromedp.SetValue(stepAt(1, `input[id^=step-name]`), "double"),
		chromedp.SetValue(stepAt(1, `textarea[id^=step-code]`), `export default defineComponent({ async run({ steps }) { return steps.trigger.event.body.n * 2 } })`),
		chromedp.Click(chromedp.ID("add-step")),
		chromedp.SetValue(stepAt(2, `input[id^=step-name]`), "answer"),
		chromedp.SetValue(stepAt(2, `textarea[id^=step-code]`), `export default defineComponent({ async run({ steps, $ }) {
			await $.respond({ status: 200, body: String(steps.double.$return_value + steps.first.$return_value) + steps.shout.$return_value }) } })`),
		// A third step, moved to the front; a fourth, removed.
		chromedp.Click(chromedp.ID("add-step")),
		chromedp.SetValue(stepAt(3, `input[id^=step-name]`), "first"),
		chromedp.SetValue(stepAt(3, `textarea[id^=step-code]`), `export default defineComponent({ async run() { return 1 } })`),
		chromedp.Click(stepAt(3, `.step-up`)),
		chromedp.Click(stepAt(2, `.step-up`)),
		chromedp.Click(chromedp.ID("add-step")),
		waitJS(`document.querySelectorAll('.step-list > li').length === 4`),
		chromedp.Click(stepAt(4, `.step-remove`)),
		waitJS(`document.querySelectorAll('.step-list > li').length === 3`),
		// An action with its props, moved before the answer.
		chromedp.Click(chromedp.ID("add-step")),
		chromedp.SetValue(stepAt(4, `input[id^=step-name]`), "shout"),
		chooseAt(stepAt(4, `select[id^=step-kind]`), "Action: a component with props"),
		chromedp.WaitVisible(stepAt(4, `input[id^=step-key]`)),
		chromedp.SetValue(stepAt(4, `textarea[id^=step-code]`), shoutAction),
		chromedp.SetValue(stepAt(4, `textarea[id^=step-props]`), `{"word": "{{steps.double.$return_value}}"}`),
		chromedp.Click(stepAt(4, `.step-up`)),
		shots.take("workflow-builder"),
	)...)
	if bad := value(t, ctx, s, "labels", chromedp.Evaluate[string](unlabelledControls)); bad != "" {
		t.Errorf("form controls without a label: %s", bad)
	}
	id := deployFromForm(t, ctx, s)
	wf := s.getWorkflow(id)
	var names []string
	for _, st := range wf["steps"].([]any) {
		step := st.(map[string]any)
		names = append(names, step["name"].(string))
		if step["name"] == "shout" && (step["kind"] != "action" || jsonOf(step["props"]) != `{"word":"{{steps.double.$return_value}}"}`) {
			t.Errorf("the action step deployed as %v", step)
		}
	}
	if strings.Join(names, ",") != "first,double,shout,answer" {
		t.Errorf("deployed steps %v, want first, double, shout, answer in that order", names)
	}
	trigger := wf["trigger"].(map[string]any)
	if trigger["type"] != "http" || trigger["respond"] != true {
		t.Fatalf("deployed trigger %v", trigger)
	}
	if st, body := postBody(t, trigger["endpoint_url"].(string), `{"n":20}`); st != 200 || body != "4140!" {
		t.Errorf("the built workflow answered %d %q, want 200 \"4140!\"", st, body)
	}

	steps(t, ctx, s, "build a timer workflow", chromedp.Navigate(s.base+"/#/workflows/new"),
		chromedp.WaitVisible(chromedp.ID("wf-name")),
		chromedp.SetValue(chromedp.ID("wf-name"), "weekday mornings"),
		choose("wf-trigger", "Timer: an interval or a cron schedule"),
		chromedp.WaitVisible(chromedp.ID("wf-cron")),
		chromedp.SetValue(chromedp.ID("wf-cron"), "0 9 * * 1-5"),
		chromedp.SetValue(chromedp.ID("wf-timezone"), "Europe/Paris"),
	)
	timer := s.getWorkflow(deployFromForm(t, ctx, s))["trigger"].(map[string]any)
	if got := jsonOf(timer["timer"]); timer["type"] != "timer" || !strings.Contains(got, `"cron":"0 9 * * 1-5"`) || !strings.Contains(got, `"timezone":"Europe/Paris"`) {
		t.Errorf("deployed timer trigger %v", timer)
	}

	steps(t, ctx, s, "build a workflow on a source's events", chromedp.Navigate(s.base+"/#/workflows/new"),
		chromedp.WaitVisible(chromedp.ID("wf-name")),
		chromedp.SetValue(chromedp.ID("wf-name"), "on orders"),
		choose("wf-trigger", "Events of a source or a workflow"),
		choose("wf-emitter", fmt.Sprintf("%s (%s)", src["name"], src["id"])),
	)
	onOrders := s.getWorkflow(deployFromForm(t, ctx, s))["trigger"].(map[string]any)
	if onOrders["type"] != "source" || onOrders["emitter_id"] != src["id"] {
		t.Errorf("deployed source trigger %v", onOrders)
	}

	steps(t, ctx, s, "deploy a pasted definition", chromedp.Navigate(s.base+"/#/workflows/new"),
		chromedp.WaitVisible(chromedp.ID("wf-name")),
		chromedp.Click(chromedp.CSS(`details > summary`)),
		chromedp.SetValue(chromedp.ID("workflow-definition"), `{"name": "pasted", "trigger": {"type": "manual"},
			"steps": [{"name": "only", "code": "export default defineComponent({ async run() { return 7 } })"}]}`),
	)
	if got := s.getWorkflow(deployFromForm(t, ctx, s)); got["name"] != "pasted" || got["trigger"].(map[string]any)["type"] != "manual" {
		t.Errorf("the pasted definition deployed %v", got)
	}
}

// deployFromForm submits the new workflow form and returns the id of
// the workflow whose page it then opens.
func deployFromForm(t *testing.T, ctx context.Context, s *testServer) string {
	t.Helper()
	steps(t, ctx, s, "deploy", chromedp.Click(chromedp.ID("deploy-workflow")),
		waitJS(`location.hash.startsWith('#/workflows/p_')`))
	hash := value(t, ctx, s, "the workflow's page", chromedp.Evaluate[string](`location.hash`))
	id, _, _ := strings.Cut(strings.TrimPrefix(hash, "#/workflows/"), "/") // its page opens on a tab
	return id
}
