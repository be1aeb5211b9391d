package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// Steps that pause their execution.
const (
	delayStep = `export default defineComponent({ run({ $ }) {
		for (const start = Date.now(); Date.now() - start < 40;) {} // a part that takes time
		const urls = $.flow.delay(1200);
		return { urls, at: Date.now() };
	} })`
	suspendStep = `export default defineComponent({ run({ $ }) {
		const urls = $.flow.suspend(%TIMEOUT%);
		return urls;
	} })`
	afterStep = `export default defineComponent({ run({ steps }) {
		return { at: Date.now(), resumed: steps.wait.$resume_data === undefined ? "none" : steps.wait.$resume_data };
	} })`
	rerunStep = `export default defineComponent({ run({ $ }) {
		const run = $.context.run;
		if (run.runs < 3) {
			$.flow.rerun(150, { previous: run.runs, callback: run.callback_request ? run.callback_request.body : null }, 5);
			return "again";
		}
		return { runs: run.runs, context: run.context, workflow: $.context.workflow_id };
	} })`
)

// waitStatus polls an execution until its status is want.
func (s *testServer) waitStatus(id, want string) map[string]any {
	s.t.Helper()
	return wait.For(s.t, "execution "+id+" to be "+want, eventsDeadline, func() (map[string]any, bool) {
		st, body := s.do("GET", "/v1/executions/"+id, nil)
		if st != 200 {
			return nil, false
		}
		x := data(body)
		return x, x["status"] == want
	})
}

// callFlowURL sends an HTTP request to a resume or cancel URL; base,
// when set, replaces the URL's origin (a restarted server's new port).
func callFlowURL(t *testing.T, method, u, base, body string) int {
	t.Helper()
	if base != "" {
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		u = base + parsed.Path
	}
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func stepValue(x map[string]any, i int) map[string]any {
	v, _ := x["steps"].([]any)[i].(map[string]any)["$return_value"].(map[string]any)
	return v
}

// TestWorkflowFlowDelay: $.flow.delay pauses the execution after its
// step, records it as paused, and runs the next step after the delay
// with the earlier steps' values.
func TestWorkflowFlowDelay(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Delayed", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("wait", delayStep, nil), step("after", afterStep, nil)}})
	id := s.runWorkflow(wf["id"].(string), map[string]any{"n": 1})
	paused := s.waitStatus(id, "paused")
	if p := paused["pause"].(map[string]any); p["kind"] != "delay" || p["step"] != "wait" {
		t.Errorf("pause = %v", p)
	}
	urls := stepValue(paused, 0)["urls"].(map[string]any)
	if r := urls["resume_url"].(string); !strings.Contains(r, "/h/flow/"+id+"/") || !strings.HasSuffix(r, "/resume") {
		t.Errorf("resume_url = %s", r)
	}
	done := s.waitStatus(id, "success")
	steps := done["steps"].([]any)
	if len(steps) != 2 {
		t.Fatalf("steps = %v", jsonOf(steps))
	}
	if gap := stepValue(done, 1)["at"].(float64) - stepValue(done, 0)["at"].(float64); gap < 1100 {
		t.Errorf("the step after the delay ran %v ms after it, before the 1200 ms delay", gap)
	}
	if done["pause"] != nil {
		t.Errorf("a finished execution still shows its pause: %v", done["pause"])
	}
	// Date.now counts whole milliseconds, so the 40 ms loop may end up
	// to one millisecond early by the host's clock.
	if d := done["duration_ms"].(float64); d < 39 || d >= 1200 {
		t.Errorf("duration_ms %v: want the 40 ms its parts ran, not the time it waited", d)
	}
	// The URL of an execution that went on finds nothing.
	if st := callFlowURL(t, "POST", urls["resume_url"].(string), "", ""); st != 404 {
		t.Errorf("resume after the end: %d", st)
	}
}

// TestWorkflowFlowSuspend: a suspended execution goes on when its resume
// URL is called, with the request's body as the step's $resume_data; a
// wrong secret finds nothing; the cancel URL ends another; a third is
// cancelled at its timeout.
func TestWorkflowFlowSuspend(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	deploy := func(name, timeout string) string {
		wf := s.deployWorkflow(map[string]any{"name": name, "trigger": map[string]any{"type": "manual"},
			"steps": []any{step("wait", strings.ReplaceAll(suspendStep, "%TIMEOUT%", timeout), nil), step("after", afterStep, nil)}})
		return wf["id"].(string)
	}
	approval := deploy("Approval", "")
	id := s.runWorkflow(approval, nil)
	paused := s.waitStatus(id, "paused")
	urls := stepValue(paused, 0)
	if until := paused["pause"].(map[string]any)["until_ms"].(float64) - paused["started_at_ms"].(float64); until < 23*3600e3 {
		t.Errorf("a suspend without a timeout waits %v ms, want 24 h", until)
	}
	resume := urls["resume_url"].(string)
	wrong := resume[:strings.LastIndex(resume, "/")-4] + "AAAA/resume"
	if st := callFlowURL(t, "POST", wrong, "", `{}`); st != 404 {
		t.Errorf("a wrong secret: %d, want 404", st)
	}
	if st := callFlowURL(t, "POST", resume, "", `{"approved":true}`); st != 202 {
		t.Fatalf("resume: %d", st)
	}
	done := s.waitStatus(id, "success")
	if got := jsonOf(stepValue(done, 1)["resumed"]); got != `{"approved":true}` {
		t.Errorf("the next step saw $resume_data %s", got)
	}
	if got := jsonOf(done["steps"].([]any)[0].(map[string]any)["exports"].(map[string]any)["$resume_data"]); got != `{"approved":true}` {
		t.Errorf("the suspended step's exports show $resume_data %s", got)
	}

	id = s.runWorkflow(approval, nil)
	urls = stepValue(s.waitStatus(id, "paused"), 0)
	if st := callFlowURL(t, "GET", urls["cancel_url"].(string), "", ""); st != 202 {
		t.Fatalf("cancel: %d", st)
	}
	cancelled := s.waitStatus(id, "cancelled")
	if n := len(cancelled["steps"].([]any)); n != 1 || !strings.Contains(cancelled["exit_reason"].(string), "cancel URL") {
		t.Errorf("cancelled execution: %d steps, exit_reason %v", n, cancelled["exit_reason"])
	}

	timed := deploy("Short approval", "300")
	id = s.runWorkflow(timed, nil)
	if x := s.waitStatus(id, "cancelled"); !strings.Contains(x["exit_reason"].(string), "timeout") {
		t.Errorf("timed-out suspend: exit_reason %v", x["exit_reason"])
	}
}

// TestWorkflowFlowRerun: $.flow.rerun runs the same step again with its
// run count and context, up to its most reruns, then the workflow goes
// on; a step that reruns past its most fails the execution.
func TestWorkflowFlowRerun(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Poller", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("poll", rerunStep, nil),
			step("after", `export default defineComponent({ run({ steps }) { return steps.poll.$return_value } })`, nil)}})
	id := s.runWorkflow(wf["id"].(string), nil)
	done := s.waitStatus(id, "success")
	steps := done["steps"].([]any)
	if len(steps) != 4 {
		t.Fatalf("steps %s: want poll three times, then after", jsonOf(steps))
	}
	got := stepValue(done, 3)
	if got["runs"] != 3.0 || jsonOf(got["context"]) != `{"callback":null,"previous":2}` || got["workflow"] != wf["id"] {
		t.Errorf("the last run saw %s", jsonOf(got))
	}

	over := s.deployWorkflow(map[string]any{"name": "Forever", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("poll", `export default defineComponent({ run({ $ }) { $.flow.rerun(50, null, 1) } })`, nil)}})
	id = s.runWorkflow(over["id"].(string), nil)
	failed := s.waitStatus(id, "error")
	last := failed["steps"].([]any)[1].(map[string]any)
	if msg := jsonOf(last["error"]); !strings.Contains(msg, "past its maxReruns of 1") {
		t.Errorf("the second run's error: %s", msg)
	}
}

// TestWorkflowFlowRefusals: flow control outside an execution and bad
// arguments fail with errors that say why.
func TestWorkflowFlowRefusals(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	for _, tt := range []struct{ name, code, want string }{
		{"negative delay", `$.flow.delay(-5)`, "a time in milliseconds"},
		{"two pauses", `$.flow.delay(10); $.flow.suspend()`, "pauses its execution once"},
		{"bad maxReruns", `$.flow.rerun(10, null, -1)`, "maxReruns"},
	} {
		wf := s.deployWorkflow(map[string]any{"name": tt.name, "trigger": map[string]any{"type": "manual"},
			"steps": []any{step("s", `export default defineComponent({ run({ $ }) { `+tt.code+` } })`, nil)}})
		x := s.waitStatus(s.runWorkflow(wf["id"].(string), nil), "error")
		if msg := jsonOf(x["steps"].([]any)[0].(map[string]any)["error"]); !strings.Contains(msg, tt.want) {
			t.Errorf("%s: error %s, want %q", tt.name, msg, tt.want)
		}
	}
	for _, path := range []string{"/h/flow/e_x/short/resume", "/h/flow/nope/" + strings.Repeat("a", 32) + "/resume", "/h/flow/a/b/c/d"} {
		if st := callFlowURL(t, "POST", s.endpoints+path, "", ""); st != 404 {
			t.Errorf("%s: %d, want 404", path, st)
		}
	}
}

// TestWorkflowConcurrency: with concurrency 4, executions queued
// together run at once; with the default of one, none overlaps another
// and they start in their arrival order.
func TestWorkflowConcurrency(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	slow := `export default defineComponent({ async run({ steps }) {
		const start = Date.now();
		await new Promise((r) => setTimeout(r, 300));
		return { start, end: Date.now(), n: steps.trigger.event.n };
	} })`
	spans := func(concurrency int) [][3]float64 {
		wf := s.deployWorkflow(map[string]any{"name": fmt.Sprintf("Concurrent %d", concurrency), "trigger": map[string]any{"type": "manual"},
			"concurrency": concurrency, "steps": []any{step("slow", slow, nil)}})
		if got := wf["concurrency"]; concurrency > 1 && got != float64(concurrency) {
			t.Errorf("concurrency = %v", got)
		}
		var ids []string
		for n := range 8 {
			ids = append(ids, s.runWorkflow(wf["id"].(string), map[string]any{"n": n}))
		}
		var out [][3]float64
		for _, id := range ids {
			v := stepValue(s.waitStatus(id, "success"), 0)
			out = append(out, [3]float64{v["start"].(float64), v["end"].(float64), v["n"].(float64)})
		}
		return out
	}
	overlaps := func(spans [][3]float64) int {
		most := 0
		for _, a := range spans {
			n := 0
			for _, b := range spans {
				if b[0] <= a[0] && a[0] < b[1] {
					n++
				}
			}
			most = max(most, n)
		}
		return most
	}
	if got := overlaps(spans(4)); got < 2 || got > 4 {
		t.Errorf("at concurrency 4, at most %d executions ran at once; want 2 to 4", got)
	}
	one := spans(1)
	if got := overlaps(one); got != 1 {
		t.Errorf("at concurrency 1, %d executions ran at once", got)
	}
	for i := 1; i < len(one); i++ {
		if one[i][0] < one[i-1][1] {
			t.Errorf("execution %v started before %v ended", one[i][2], one[i-1][2])
		}
	}
}

// TestWorkflowQueueSize: past its queue_size, a manual run and an HTTP
// request are refused with 429, and nothing is queued for them.
func TestWorkflowQueueSize(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Bounded", "trigger": map[string]any{"type": "http"}, "queue_size": 2,
		"steps": []any{step("slow", `export default defineComponent({ async run() { await new Promise((r) => setTimeout(r, 1500)) } })`, nil)}})
	id := wf["id"].(string)
	s.runWorkflow(id, nil)
	s.runWorkflow(id, nil)
	st, body := s.do("POST", "/v1/workflows/"+id+"/run", map[string]any{})
	if st != 429 || !strings.Contains(jsonOf(body), "queue_full") {
		t.Errorf("a third run: %d %v", st, body)
	}
	endpoint := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	if st, b := postBody(t, endpoint, `{}`); st != 429 || !strings.Contains(b, "queue is full") {
		t.Errorf("an HTTP request past the bound: %d %s", st, b)
	}
	// Once they ran, there is room again.
	wait.Until(t, "the queue to drain and take a run", eventsDeadline, func() bool {
		st, _ := s.do("POST", "/v1/workflows/"+id+"/run", map[string]any{})
		return st == 202
	})
	if got := len(s.executions(id, 3)); got != 3 {
		t.Errorf("%d executions, want the 3 accepted", got)
	}
	for _, bad := range []map[string]any{{"queue_size": -1}, {"concurrency": 51}, {"retry": map[string]any{"attempts": 9}}} {
		def := map[string]any{"name": "Bad controls", "trigger": map[string]any{"type": "manual"},
			"steps": []any{step("s", `export default defineComponent({ run() {} })`, nil)}}
		for k, v := range bad {
			def[k] = v
		}
		if st, body := s.do("POST", "/v1/workflows", def); st != 400 {
			t.Errorf("%v: %d %v", bad, st, body)
		}
	}
}

// TestWorkflowRetry: a workflow with retries reruns its failed step with
// backoff: an execution that fails twice, then passes, succeeds with
// its failed runs recorded; one that always fails is an error once its
// attempts are spent, with one $errors event.
func TestWorkflowRetry(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, ExecutionRetryBase: 100 * time.Millisecond})
	flaky := s.deployWorkflow(map[string]any{"name": "Flaky", "trigger": map[string]any{"type": "manual"}, "retry": map[string]any{"attempts": 3},
		"steps": []any{
			step("first", `export default defineComponent({ run() { return Date.now() } })`, nil),
			step("flaky", `export default defineComponent({ run({ steps }) {
				if (Date.now() - steps.first.$return_value < 250) throw new Error("not yet");
				return "passed";
			} })`, nil)}})
	x := s.waitStatus(s.runWorkflow(flaky["id"].(string), nil), "success")
	steps := x["steps"].([]any)
	if n := len(steps); n < 3 || n > 5 {
		t.Fatalf("steps %s: want first, then flaky failing then passing", jsonOf(steps))
	}
	if steps[1].(map[string]any)["status"] != "error" || steps[len(steps)-1].(map[string]any)["$return_value"] != "passed" {
		t.Errorf("steps %s", jsonOf(steps))
	}
	broken := s.deployWorkflow(map[string]any{"name": "Broken", "trigger": map[string]any{"type": "manual"}, "retry": map[string]any{"attempts": 1},
		"steps": []any{step("fail", `export default defineComponent({ run() { throw new Error("always") } })`, nil)}})
	x = s.waitStatus(s.runWorkflow(broken["id"].(string), nil), "error")
	if n := len(x["steps"].([]any)); n != 2 {
		t.Errorf("%d runs of the failing step, want the first and one retry", n)
	}
	if errs := s.workflowEvents(broken["id"].(string), "$errors", 1); len(errs) != 1 {
		t.Errorf("%d $errors events, want one", len(errs))
	}
}

// TestWorkflowControlsEndpoint: PUT /v1/workflows/{id}/controls replaces
// the execution controls without a new deployment; what it leaves out is
// off, and bad values are refused, saying which.
func TestWorkflowControlsEndpoint(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Controlled", "trigger": map[string]any{"type": "manual"}, "retry": map[string]any{"attempts": 2},
		"steps": []any{step("s", `export default defineComponent({ run() { return 1 } })`, nil)}})
	id := wf["id"].(string)
	st, body := s.do("PUT", "/v1/workflows/"+id+"/controls", map[string]any{"concurrency": 4, "queue_size": 30,
		"throttle": map[string]any{"limit": 5, "interval_seconds": 10}})
	if st != 200 {
		t.Fatalf("controls: %d %v", st, body)
	}
	got := data(body)
	if got["concurrency"] != 4.0 || got["queue_size"] != 30.0 || jsonOf(got["throttle"]) != `{"interval_seconds":10,"limit":5}` || got["retry"] != nil {
		t.Errorf("after the update: %s", jsonOf(got))
	}
	if got["deployment_id"] != wf["deployment_id"] || got["version"] != wf["version"] {
		t.Errorf("the controls made a new deployment: %v → %v", wf["deployment_id"], got["deployment_id"])
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id+"/controls", map[string]any{"concurrency": 99}); st != 400 || !strings.Contains(jsonOf(body), "concurrency") {
		t.Errorf("concurrency 99: %d %v", st, body)
	}
	s.waitStatus(s.runWorkflow(id, nil), "success")
}

// TestSourceControls: a source's throttle spaces its runs, its queue
// size refuses requests and manual runs past it with 429, and the
// controls that make no sense for a source (concurrency, retry) are
// refused, saying why.
func TestSourceControls(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "paced", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ n: e.body.n, at: Date.now() }) } }`, nil)
	id := src["id"].(string)
	st, body := s.do("PUT", "/v1/sources/"+id+"/controls", map[string]any{"queue_size": 2, "throttle": map[string]any{"limit": 1, "interval_seconds": 2}})
	if st != 200 || data(body)["queue_size"] != 2.0 || jsonOf(data(body)["throttle"]) != `{"interval_seconds":2,"limit":1}` {
		t.Fatalf("controls: %d %v", st, body)
	}
	url := endpointOf(src, "http")
	if st, b := postBody(t, url, `{"n":1}`); st != 200 {
		t.Fatalf("request 1: %d %s", st, b)
	}
	s.events(id, "", 1)       // the first run opened the throttle's window
	for n := 2; n <= 3; n++ { // both wait on the throttle, filling the queue
		if st, b := postBody(t, url, fmt.Sprintf(`{"n":%d}`, n)); st != 200 {
			t.Fatalf("request %d: %d %s", n, st, b)
		}
	}
	if st, b := postBody(t, url, `{"n":4}`); st != 429 || !strings.Contains(b, "queue is full") {
		t.Errorf("a fourth request while two wait: %d %s", st, b)
	}
	if st, body := s.do("POST", "/v1/sources/"+id+"/run", map[string]any{"event": map[string]any{"body": map[string]any{"n": 5}}}); st != 429 {
		t.Errorf("a manual run past the queue size: %d %v", st, body)
	}
	events := s.events(id, "", 3)
	var at []float64
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]["event"].(map[string]any)
		if ev["n"] != float64(len(at)+1) {
			t.Fatalf("events out of order: %v", events)
		}
		at = append(at, ev["at"].(float64))
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i] - at[i-1]; gap < 1500 {
			t.Errorf("run %d came %v ms after run %d, inside the 2 s window that allows one", i+1, gap, i)
		}
	}
	for _, bad := range []map[string]any{{"concurrency": 2}, {"retry": map[string]any{"attempts": 1}}, {"queue_size": -3}} {
		if st, body := s.do("PUT", "/v1/sources/"+id+"/controls", bad); st != 400 {
			t.Errorf("%v: %d %v", bad, st, body)
		}
	}
}
