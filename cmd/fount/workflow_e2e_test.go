package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// Steps of the workflows below.
const (
	parseStep = `export default defineComponent({
		async run({ steps, $ }) {
			console.log("parsing", steps.trigger.event.method);
			$.export("$summary", "parsed " + steps.trigger.event.body.name);
			$.export("context_id", steps.trigger.context.id);
			return { name: steps.trigger.event.body.name, n: steps.trigger.event.body.n };
		},
	})`
	greetAction = `export default { name: "Greet", version: "0.1.0", type: "action", key: "test-greet",
		props: { who: { type: "string" }, times: { type: "integer", default: 1 } },
		async run({ $ }) { $.export("greeted", this.who); return "hello " + this.who + " x" + this.times } }`
	emitStep = `export default defineComponent({ async run({ steps, $ }) {
		$.send.emit({ raw_event: { greeting: steps.greet.$return_value, parsed: steps.parse.$return_value } });
	} })`
)

// step is a step of a workflow definition.
func step(name, code string, props map[string]any) map[string]any {
	s := map[string]any{"name": name, "code": code}
	if props != nil {
		s["props"] = props
	}
	return s
}

func action(name, code string, props map[string]any) map[string]any {
	s := step(name, code, props)
	s["kind"] = "action"
	return s
}

// deployWorkflow creates a workflow and returns its data.
func (s *testServer) deployWorkflow(def map[string]any) map[string]any {
	s.t.Helper()
	st, body := s.do("POST", "/v1/workflows", def)
	if st != 200 {
		s.t.Fatalf("deploy workflow: %d %v", st, body)
	}
	return data(body)
}

// executions polls a workflow's executions until want are there, newest
// first.
func (s *testServer) executions(id string, want int) []map[string]any {
	s.t.Helper()
	return wait.For(s.t, fmt.Sprintf("workflow %s to have %d executions", id, want), eventsDeadline, func() ([]map[string]any, bool) {
		st, body := s.do("GET", "/v1/workflows/"+id+"/executions", nil)
		if st != 200 {
			s.t.Fatalf("executions: %d %v", st, body)
		}
		var got []map[string]any
		for _, it := range body["data"].([]any) {
			got = append(got, it.(map[string]any))
		}
		return got, len(got) >= want
	})
}

// execution waits for an execution to be recorded and returns it.
func (s *testServer) execution(id string) map[string]any {
	s.t.Helper()
	return wait.For(s.t, "execution "+id+" to be recorded", eventsDeadline, func() (map[string]any, bool) {
		st, body := s.do("GET", "/v1/executions/"+id, nil)
		if st != 200 && st != 404 {
			s.t.Fatalf("execution %s: %d %v", id, st, body)
		}
		if st != 200 {
			return nil, false
		}
		return data(body), true
	})
}

// workflowEvents polls a workflow's events (channel "" or "$errors").
func (s *testServer) workflowEvents(id, channel string, want int) []map[string]any {
	s.t.Helper()
	path := "/v1/workflows/" + id + "/event_summaries?limit=100&expand=event"
	if channel == "$errors" {
		path = "/v1/workflows/" + id + "/$errors/event_summaries?limit=100&expand=event"
	}
	return wait.For(s.t, fmt.Sprintf("workflow %s channel %q to have %d events", id, channel, want), eventsDeadline, func() ([]map[string]any, bool) {
		st, body := s.do("GET", path, nil)
		if st != 200 {
			s.t.Fatalf("%s: %d %v", path, st, body)
		}
		var got []map[string]any
		for _, it := range body["data"].([]any) {
			got = append(got, it.(map[string]any))
		}
		return got, len(got) >= want
	})
}

// runWorkflow queues a manual execution and returns its id.
func (s *testServer) runWorkflow(id string, event any) string {
	s.t.Helper()
	st, body := s.do("POST", "/v1/workflows/"+id+"/run", map[string]any{"event": event})
	if st != 202 {
		s.t.Fatalf("run workflow: %d %v", st, body)
	}
	return data(body)["execution_id"].(string)
}

// getWorkflow reads a workflow's data.
func (s *testServer) getWorkflow(id string) map[string]any {
	s.t.Helper()
	st, body := s.do("GET", "/v1/workflows/"+id, nil)
	if st != 200 {
		s.t.Fatalf("get workflow %s: %d %v", id, st, body)
	}
	return data(body)
}

func postBody(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestWorkflowHTTPThreeSteps: an HTTP request runs a code step, an action
// with a templated prop and a step that emits; each step sees the earlier
// ones; the execution records every step, and the emit is a workflow
// event whose summary holds raw_event.
func TestWorkflowHTTPThreeSteps(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Greeter",
		"trigger": map[string]any{"type": "http"},
		"steps": []any{
			step("parse", parseStep, nil),
			action("greet", greetAction, map[string]any{"who": "{{steps.parse.$return_value.name}}", "times": "{{steps.parse.$return_value.n}}"}),
			step("emit", emitStep, nil),
		},
	})
	id := wf["id"].(string)
	trigger := wf["trigger"].(map[string]any)
	if !strings.HasPrefix(id, "p_") || trigger["type"] != "http" || trigger["endpoint_url"] == nil || len(wf["steps"].([]any)) != 3 {
		t.Fatalf("workflow = %v", wf)
	}
	if st, body := postBody(t, trigger["endpoint_url"].(string), `{"name":"ada","n":3}`); st != 200 || !strings.Contains(body, `"success":true`) {
		t.Fatalf("endpoint: %d %s", st, body)
	}
	ev := s.workflowEvents(id, "", 1)[0]
	if got := jsonOf(ev["event"]); got != `{"raw_event":{"greeting":"hello ada x3","parsed":{"n":3,"name":"ada"}}}` {
		t.Errorf("emitted event = %s", got)
	}
	if md := ev["metadata"].(map[string]any); md["emitter_id"] != id || md["name"] != "" {
		t.Errorf("metadata = %v", md)
	}
	sum := s.executions(id, 1)[0]
	if sum["status"] != "success" || len(sum["steps"].([]any)) != 3 {
		t.Fatalf("execution summary = %v", sum)
	}
	x := s.execution(sum["id"].(string))
	steps := x["steps"].([]any)
	parse, greet := steps[0].(map[string]any), steps[1].(map[string]any)
	if jsonOf(parse["$return_value"]) != `{"n":3,"name":"ada"}` || parse["$summary"] != "parsed ada" {
		t.Errorf("parse step = %v", parse)
	}
	if ctxID := parse["exports"].(map[string]any)["context_id"]; ctxID != x["id"] {
		t.Errorf("steps.trigger.context.id = %v, want the execution id %v", ctxID, x["id"])
	}
	if logs := parse["logs"].([]any); len(logs) != 1 || logs[0].(map[string]any)["text"] != "parsing POST" {
		t.Errorf("parse logs = %v", logs)
	}
	if greet["$return_value"] != "hello ada x3" || jsonOf(greet["exports"]) != `{"greeted":"ada"}` {
		t.Errorf("greet step = %v", greet)
	}
	if body := x["event"].(map[string]any)["body"]; jsonOf(body) != `{"n":3,"name":"ada"}` {
		t.Errorf("trigger event body = %v", body)
	}
}

// TestWorkflowRespond: a workflow set to respond answers the request with
// $.respond(), and with 502 when an execution ends without one.
func TestWorkflowRespond(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Responder",
		"trigger": map[string]any{"type": "http", "respond": true},
		"steps": []any{step("answer", `export default defineComponent({ async run({ steps, $ }) {
			if (steps.trigger.event.body.silent) return "no answer";
			await $.respond({ status: 201, headers: { "X-Flow": "yes" }, body: { echo: steps.trigger.event.body.msg } });
		} })`, nil)},
	})
	url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"msg":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("X-Flow") != "yes" || strings.TrimSpace(string(b)) != `{"echo":"hi"}` {
		t.Errorf("respond: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	if st, body := postBody(t, url, `{"silent":true}`); st != 502 || !strings.Contains(body, "without calling $.respond()") {
		t.Errorf("no respond: %d %s", st, body)
	}
}

// TestWorkflowErrorsAndExit: a step that throws ends its execution with an
// $errors event in the specification's shape, and later steps do not run;
// $.flow.exit ends an execution as exited; the workflow goes on working.
func TestWorkflowErrorsAndExit(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Fragile",
		"trigger": map[string]any{"type": "manual"},
		"steps": []any{
			step("check", `export default defineComponent({ async run({ steps, $ }) {
				const mode = steps.trigger.event.mode;
				if (mode === "throw") throw new TypeError("bad input: " + mode);
				if (mode === "exit") return $.flow.exit("nothing to do");
				if (mode === "email") $.send.email({ subject: "x" });
				if (mode === "delay") this.$emit({ later: true }, { delivery_ts: Date.now() + 60000 });
				return mode;
			} })`, nil),
			step("after", `export default defineComponent({ run({ steps }) { return "after " + steps.check.$return_value } })`, nil),
		},
	})
	id := wf["id"].(string)
	thrown := s.execution(s.runWorkflow(id, map[string]any{"mode": "throw"}))
	if thrown["status"] != "error" || len(thrown["steps"].([]any)) != 1 {
		t.Fatalf("throwing execution = %v", thrown)
	}
	stepErr := thrown["steps"].([]any)[0].(map[string]any)["error"].(map[string]any)
	if stepErr["name"] != "TypeError" || stepErr["message"] != "bad input: throw" {
		t.Errorf("step error = %v", stepErr)
	}
	errs := s.workflowEvents(id, "$errors", 1)
	ev := errs[0]["event"].(map[string]any)
	e, oc := ev["error"].(map[string]any), ev["original_context"].(map[string]any)
	wfNow := s.getWorkflow(id)
	checkStep := wfNow["steps"].([]any)[0].(map[string]any)
	if e["code"] != "TypeError" || e["cellId"] != checkStep["id"] || e["stepName"] != "check" || !strings.Contains(e["stack"].(string), "bad input") {
		t.Errorf("error = %v; want cellId %v, the step check's", e, checkStep["id"])
	}
	if oc["deployment_id"] != wfNow["deployment_id"] || thrown["deployment_id"] != wfNow["deployment_id"] {
		t.Errorf("original_context.deployment_id %v, the execution's %v; want the workflow's %v", oc["deployment_id"], thrown["deployment_id"], wfNow["deployment_id"])
	}
	if _, err := time.Parse(time.RFC3339Nano, e["ts"].(string)); err != nil {
		t.Errorf("error.ts %v is not ISO 8601: %v", e["ts"], err)
	}
	if jsonOf(ev["original_event"]) != `{"mode":"throw"}` {
		t.Errorf("original_event = %v", ev["original_event"])
	}
	for _, f := range []string{"id", "ts", "workflow_id", "deployment_id", "source_type", "verified", "owner_id", "platform_version"} {
		if _, ok := oc[f]; !ok {
			t.Errorf("original_context has no %s: %v", f, oc)
		}
	}
	if oc["workflow_id"] != id || oc["id"] != thrown["id"] || oc["source_type"] != "MANUAL" || oc["verified"] != false {
		t.Errorf("original_context = %v", oc)
	}

	exited := s.execution(s.runWorkflow(id, map[string]any{"mode": "exit"}))
	if exited["status"] != "exited" || exited["exit_reason"] != "nothing to do" || len(exited["steps"].([]any)) != 1 {
		t.Errorf("exited execution = %v", exited)
	}
	email := s.execution(s.runWorkflow(id, map[string]any{"mode": "email"}))
	if msg := jsonOf(email["steps"]); email["status"] != "error" || !strings.Contains(msg, "$.send.email is not supported by fount") {
		t.Errorf("$.send.email: %v", email)
	}
	delayed := s.execution(s.runWorkflow(id, map[string]any{"mode": "delay"}))
	if delayed["status"] != "error" {
		t.Errorf("a delayed emit: %v", delayed)
	}
	ok := s.execution(s.runWorkflow(id, map[string]any{"mode": "fine"}))
	if ok["status"] != "success" || ok["steps"].([]any)[1].(map[string]any)["$return_value"] != "after fine" {
		t.Errorf("a good execution after the failures = %v", ok)
	}
	errs = s.workflowEvents(id, "$errors", 3)
	if n := len(errs); n != 3 || !strings.Contains(jsonOf(errs[0]), "cannot delay an emit") {
		t.Errorf("$errors events = %d, want 3 (throw, email, delay), the newest about the delay: %v", n, errs[0])
	}
	if evs := s.workflowEvents(id, "", 0); len(evs) != 0 {
		t.Errorf("a failed execution's emit was stored: %v", evs)
	}
}

// TestWorkflowSourceTriggerAndRouting: a workflow triggered by a source's
// events runs on each of them, and its own emits reach its subscribers:
// a webhook (p_ as emitter) and, through an auto-subscription, its
// $errors.
func TestWorkflowSourceTriggerAndRouting(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	var mu sync.Mutex
	var bodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer hook.Close()
	src := s.deploySource(echoSource, nil)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Follower",
		"trigger": map[string]any{"type": "source", "emitter_id": src["id"]},
		"steps": []any{step("relay", `export default defineComponent({ run({ steps, $ }) {
			if (steps.trigger.event.body.fail) throw new Error("asked to fail");
			$.send.emit({ raw_event: { relayed: steps.trigger.event.body } });
		} })`, nil)},
	})
	id := wf["id"].(string)
	st, body := s.do("POST", "/v1/webhooks", map[string]any{"url": hook.URL})
	if st != 200 {
		t.Fatalf("webhook: %d %v", st, body)
	}
	whID := data(body)["id"].(string)
	if st, body := s.do("POST", "/v1/subscriptions", map[string]any{"emitter_id": id, "listener_id": whID}); st != 200 {
		t.Fatalf("subscribe the webhook to the workflow: %d %v", st, body)
	}
	if st, body := s.do("POST", "/v1/subscriptions", map[string]any{"emitter_id": id, "listener_id": whID, "event_name": "$errors"}); st != 200 {
		t.Fatalf("subscribe the webhook to the workflow's errors: %d %v", st, body)
	}
	if st, _ := postBody(t, endpointOf(src, "http"), `{"k":1}`); st != 200 {
		t.Fatal("source endpoint failed")
	}
	ev := s.workflowEvents(id, "", 1)[0]
	if jsonOf(ev["event"]) != `{"raw_event":{"relayed":{"k":1}}}` {
		t.Errorf("relayed event = %v", ev["event"])
	}
	if x := s.executions(id, 1)[0]; x["status"] != "success" {
		t.Errorf("execution = %v", x)
	}
	if st, _ := postBody(t, endpointOf(src, "http"), `{"fail":true}`); st != 200 {
		t.Fatal("source endpoint failed")
	}
	waitUntil(t, "the webhook gets the workflow's emit and its error", func() bool {
		mu.Lock()
		defer mu.Unlock()
		all := strings.Join(bodies, "\n")
		return len(bodies) >= 2 && strings.Contains(all, `"relayed":{"k":1}`) && strings.Contains(all, `"stepName":"relay"`)
	})
	if x := s.execution(s.executions(id, 2)[0]["id"].(string)); x["event"].(map[string]any)["body"].(map[string]any)["fail"] != true {
		t.Errorf("trigger event of the failed execution = %v", x["event"])
	}
}

// waitUntil polls cond until it holds, failing after eventsDeadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, eventsDeadline, cond)
}

// TestWorkflowSendHTTPAndSSE: $.send.http is delivered through the
// delivery queue to its URL as given; $.send.sse reaches the workflow's
// stream.
func TestWorkflowSendHTTPAndSSE(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	got := make(chan *http.Request, 4)
	gotBody := make(chan string, 4)
	calls := 0
	var mu sync.Mutex
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			w.WriteHeader(503) // retried
			return
		}
		b, _ := io.ReadAll(r.Body)
		got <- r
		gotBody <- string(b)
	}))
	defer target.Close()
	wf := s.deployWorkflow(map[string]any{
		"name":    "Sender",
		"trigger": map[string]any{"type": "manual"},
		"steps": []any{step("send", `export default defineComponent({ run({ steps, $ }) {
			$.send.http({ method: "PUT", url: steps.trigger.event.url + "/in", headers: { "X-Token": "t1" }, data: { n: 7 } });
			$.send.sse({ channel: "progress", payload: { pct: 100 } });
		} })`, nil)},
	})
	id := wf["id"].(string)

	req, _ := http.NewRequest("GET", s.base+"/v1/workflows/"+id+"/sse", nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine(t, lines, ": stream of "+id)

	s.runWorkflow(id, map[string]any{"url": target.URL})
	waitLine(t, lines, "event: progress")
	if l := waitLine(t, lines, "data: "); l != `data: {"pct":100}` {
		t.Errorf("sse data line = %q", l)
	}
	select {
	case r := <-got:
		if r.Method != "PUT" || r.URL.Path != "/in" || r.Header.Get("X-Token") != "t1" {
			t.Errorf("request = %s %s %v", r.Method, r.URL.Path, r.Header)
		}
		if b := <-gotBody; b != `{"n":7}` {
			t.Errorf("body = %s", b)
		}
	case <-time.After(eventsDeadline):
		t.Fatal("$.send.http never arrived")
	}
}

// waitLine returns the first line from lines that starts with prefix.
func waitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	deadline := time.After(eventsDeadline)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended before %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line %q in time", prefix)
		}
	}
}

// TestWorkflowTimerAndRetention: a timer trigger runs the workflow on its
// schedule, and a workflow keeps its newest --executions-kept executions.
func TestWorkflowTimerAndRetention(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, ExecutionsKept: 3})
	wf := s.deployWorkflow(map[string]any{
		"name":    "Ticker",
		"trigger": map[string]any{"type": "timer", "timer": map[string]any{"intervalSeconds": 1}},
		"steps":   []any{step("tick", `export default defineComponent({ run({ steps }) { return steps.trigger.event.timestamp } })`, nil)},
	})
	id := wf["id"].(string)
	if timer := jsonOf(wf["trigger"].(map[string]any)["timer"]); timer != `{"cron":null,"interval_seconds":1}` {
		t.Errorf("timer = %s", timer)
	}
	x := s.execution(s.executions(id, 1)[0]["id"].(string))
	if _, ok := x["steps"].([]any)[0].(map[string]any)["$return_value"].(float64); !ok {
		t.Errorf("a timer execution's step saw no timestamp: %v", x)
	}
	// Switch the timer off, so that the count below is the manual runs'.
	if st, body := s.do("PUT", "/v1/workflows/"+id, map[string]any{
		"name": "Ticker", "active": false, "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("tick", `export default defineComponent({ run({ steps }) { return steps.trigger.event.n } })`, nil)},
	}); st != 200 {
		t.Fatalf("update: %d %v", st, body)
	}
	var last string
	for i := range 5 {
		last = s.runWorkflow(id, map[string]any{"n": i})
	}
	s.execution(last)
	xs := s.executions(id, 3)
	if len(xs) != 3 || xs[0]["id"] != last {
		t.Fatalf("kept %d executions, newest %v; want 3, newest %s", len(xs), xs[0]["id"], last)
	}
	for i, want := range []float64{4, 3, 2} {
		full := s.execution(xs[i]["id"].(string))
		if got := full["steps"].([]any)[0].(map[string]any)["$return_value"]; got != want {
			t.Errorf("execution %d returned %v, want %v", i, got, want)
		}
	}
}

// TestWorkflowBadInput: each bad definition is a 400 naming the step and
// the problem, and stores nothing.
func TestWorkflowBadInput(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	ok := step("first", `export default defineComponent({ run() { return 1 } })`, nil)
	source := `export default { name: "S", version: "1.0.0", props: { http: "$.interface.http" }, run() {} }`
	tests := []struct {
		name    string
		def     map[string]any
		param   string
		message string
	}{
		{"unknown trigger type", map[string]any{"name": "w", "trigger": map[string]any{"type": "email"}, "steps": []any{ok}}, "trigger", `unknown trigger type "email"`},
		{"duplicate step name", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"}, "steps": []any{ok, ok}}, "steps.first", "two steps have this name"},
		{"a source as a step", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"}, "steps": []any{ok, step("src", source, nil)}}, "steps.src", "is a source"},
		{"a syntax error", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"}, "steps": []any{step("broken", `export default { run( { }`, nil)}}, "steps.broken", "SyntaxError"},
		{"a missing step in an expression", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"},
			"steps": []any{ok, action("greet", greetAction, map[string]any{"who": "{{steps.nope.$return_value}}"})}}, "steps.greet", "steps.nope"},
		{"a later step in an expression", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"},
			"steps": []any{action("greet", greetAction, map[string]any{"who": "{{steps.first.$return_value}}"}), ok}}, "steps.greet", "steps.first"},
		{"a missing required prop", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"},
			"steps": []any{action("greet", greetAction, map[string]any{"times": 2})}}, "steps.greet", "the prop who is required"},
		{"a code step as an action", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"},
			"steps": []any{action("first", `export default defineComponent({ run() {} })`, nil)}}, "steps.first", "needs an action component"},
		{"no steps", map[string]any{"name": "w", "trigger": map[string]any{"type": "manual"}, "steps": []any{}}, "", "step"},
		{"an unknown source emitter", map[string]any{"name": "w", "trigger": map[string]any{"type": "source", "emitter_id": "dc_nope"}, "steps": []any{ok}}, "trigger.emitter_id", "No source"},
		{"a bad timer", map[string]any{"name": "w", "trigger": map[string]any{"type": "timer", "timer": map[string]any{"cron": "every day"}}, "steps": []any{ok}}, "trigger", "cron"},
		{"an unknown timezone", map[string]any{"name": "w", "trigger": map[string]any{"type": "timer", "timer": map[string]any{"cron": "0 9 * * *", "timezone": "Europe/Pariss"}}, "steps": []any{ok}}, "trigger", `unknown timezone "Europe/Pariss"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, body := s.do("POST", "/v1/workflows", tt.def)
			e, _ := body["error"].(map[string]any)
			if st != 400 && !(tt.name == "an unknown source emitter" && st == 404) {
				t.Fatalf("status %d %v, want 400", st, body)
			}
			if e == nil || !strings.Contains(e["message"].(string), tt.message) || (tt.param != "" && e["param"] != tt.param) {
				t.Errorf("error = %v, want param %q and a message with %q", e, tt.param, tt.message)
			}
		})
	}
	if _, body := s.do("GET", "/v1/users/me/workflows", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("bad definitions stored workflows: %v", body["data"])
	}
}

// TestWorkflowsAreTheirOwners: another user sees none of a workflow, its
// executions or events; the owner lists, gets and deletes it.
func TestWorkflowsAreTheirOwners(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Mine", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("only", `export default defineComponent({ run({ $ }) { $.send.emit({ raw_event: 1 }) } })`, nil)}})
	id := wf["id"].(string)
	x := s.execution(s.runWorkflow(id, nil))
	st, body := s.do("POST", "/v1/users", map[string]any{"username": "eve", "email": "eve@example.com"})
	if st != 200 {
		t.Fatalf("create user: %d %v", st, body)
	}
	eve := data(body)["api_key"].(string)
	for _, path := range []string{"/v1/workflows/" + id, "/v1/workflows/" + id + "/executions", "/v1/executions/" + x["id"].(string),
		"/v1/workflows/" + id + "/event_summaries", "/v1/workflows/" + id + "/$errors/event_summaries"} {
		if st, _ := s.doAs(eve, "GET", path, nil); st != 404 {
			t.Errorf("another user's GET %s: %d, want 404", path, st)
		}
	}
	if st, _ := s.doAs(eve, "POST", "/v1/workflows/"+id+"/run", map[string]any{}); st != 404 {
		t.Errorf("another user's run: %d", st)
	}
	if st, _ := s.doAs(eve, "DELETE", "/v1/workflows/"+id, nil); st != 404 {
		t.Errorf("another user's delete: %d", st)
	}
	if _, body := s.doAs(eve, "GET", "/v1/users/me/workflows", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("another user lists %v", body["data"])
	}
	if _, body := s.do("GET", "/v1/users/me/workflows", nil); len(body["data"].([]any)) != 1 {
		t.Errorf("the owner lists %v", body["data"])
	}
	if st, _ := s.do("DELETE", "/v1/workflows/"+id, nil); st != 204 {
		t.Errorf("delete: %d", st)
	}
	for _, path := range []string{"/v1/workflows/" + id, "/v1/executions/" + x["id"].(string), "/v1/workflows/" + id + "/event_summaries"} {
		if st, _ := s.do("GET", path, nil); st != 404 {
			t.Errorf("GET %s after delete: %d, want 404", path, st)
		}
	}
}

// TestRunAction: an action runs once with props and a steps context and
// gives back its return value, exports, summary and logs, storing
// nothing; deployed as a source, it is refused with a pointer here.
func TestRunAction(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := `export default { name: "Add", version: "1.0.0", type: "action",
		props: { a: { type: "integer" }, b: { type: "integer" } },
		async run({ steps, $ }) {
			console.log("adding", this.a, this.b);
			$.export("$summary", "added");
			$.export("inputs", [this.a, this.b]);
			$.send.emit({ raw_event: { sum: this.a + this.b } });
			$.send.http({ url: "http://127.0.0.1:9/never", data: "x" });
			return this.a + this.b + steps.trigger.event.extra;
		} }`
	st, body := s.do("POST", "/v1/actions/run", map[string]any{
		"code": code, "props": map[string]any{"a": 2, "b": "{{steps.trigger.event.extra * 10}}"},
		"steps": map[string]any{"trigger": map[string]any{"event": map[string]any{"extra": 1}}},
	})
	if st != 200 {
		t.Fatalf("run-action: %d %v", st, body)
	}
	res := data(body)
	if res["status"] != "success" || res["$return_value"] != float64(13) || res["$summary"] != "added" || jsonOf(res["exports"]) != `{"inputs":[2,10]}` {
		t.Errorf("result = %v", res)
	}
	if logs := res["logs"].([]any); len(logs) != 1 || logs[0].(map[string]any)["text"] != "adding 2 10" {
		t.Errorf("logs = %v", res["logs"])
	}
	if jsonOf(res["emits"]) != `[{"sum":12}]` || len(res["sends"].([]any)) != 1 {
		t.Errorf("emits %v, sends %v", res["emits"], res["sends"])
	}
	for _, tt := range []struct {
		name  string
		body  map[string]any
		param string
		msg   string
	}{
		{"a missing prop", map[string]any{"code": code, "props": map[string]any{"a": 1}}, "props", "the prop b is required"},
		{"a source", map[string]any{"code": echoSource}, "code", "not an action"},
		{"a syntax error", map[string]any{"code": "export default {"}, "code", "SyntaxError"},
	} {
		st, body := s.do("POST", "/v1/actions/run", tt.body)
		e, _ := body["error"].(map[string]any)
		if st != 400 || e == nil || e["param"] != tt.param || !strings.Contains(e["message"].(string), tt.msg) {
			t.Errorf("%s: %d %v", tt.name, st, body)
		}
	}
	st, body = s.do("POST", "/v1/actions/run", map[string]any{"code": `export default { name: "T", version: "1", type: "action", run() { throw new RangeError("nope") } }`})
	thrown := data(body)
	if st != 200 {
		t.Fatalf("a throwing action: %d %v", st, body)
	}
	if thrown["status"] != "error" || thrown["error"].(map[string]any)["name"] != "RangeError" {
		t.Errorf("a throwing action = %v", thrown)
	}
	st, body = s.do("POST", "/v1/sources", map[string]any{"component_code": code, "configured_props": map[string]any{"a": 1, "b": 2}})
	if e, _ := body["error"].(map[string]any); st != 400 || e["code"] != "component_is_action" || !strings.Contains(e["message"].(string), "fount run-action") {
		t.Errorf("an action deployed as a source: %d %v", st, body)
	}
	if _, body := s.do("GET", "/v1/users/me/sources", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("sources after the refused deploy: %v", body["data"])
	}
}

// TestWorkflowStepLimits: a step that loops past its time limit, one that
// runs out of memory, and an execution past its own time limit each end
// with a recorded error; the workflow's next execution succeeds.
func TestWorkflowStepLimits(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, RunTimeout: 2 * time.Second, ExecutionTimeout: 3 * time.Second})
	wf := s.deployWorkflow(map[string]any{
		"name": "Limits", "trigger": map[string]any{"type": "manual"},
		"steps": []any{
			step("first", `export default defineComponent({ async run({ steps }) {
				const mode = steps.trigger.event.mode;
				if (mode === "loop") for (;;) {}
				if (mode === "memory") return "x".repeat(1 << 28).length;
				if (mode === "slow") await new Promise((r) => setTimeout(r, 1800));
				return mode;
			} })`, nil),
			step("second", `export default defineComponent({ async run({ steps }) {
				if (steps.first.$return_value === "slow") await new Promise((r) => setTimeout(r, 1800));
				return "done";
			} })`, nil),
		},
	})
	id := wf["id"].(string)
	for _, tt := range []struct{ mode, step, name string }{
		{"loop", "first", "TimeoutError"},
		{"memory", "first", "OutOfMemoryError"},
		{"slow", "second", "TimeoutError"}, // 1.8 s + 1.8 s is past the execution's 3 s
	} {
		x := s.execution(s.runWorkflow(id, map[string]any{"mode": tt.mode}))
		steps := x["steps"].([]any)
		last := steps[len(steps)-1].(map[string]any)
		if x["status"] != "error" || last["name"] != tt.step || last["error"].(map[string]any)["name"] != tt.name {
			t.Errorf("%s: execution = %v", tt.mode, x)
		}
		ok := s.execution(s.runWorkflow(id, map[string]any{"mode": "fine"}))
		if ok["status"] != "success" {
			t.Errorf("after %s: execution = %v", tt.mode, ok)
		}
	}
	if st, _ := s.do("GET", "/v1/workflows/"+id, nil); st != 200 {
		t.Errorf("the workflow after its failures: %d", st)
	}
}

// TestWorkflowSecretProps: a step's secret prop is never shown, yet the
// step gets its value.
func TestWorkflowSecretProps(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name": "Secretive", "trigger": map[string]any{"type": "manual"},
		"steps": []any{action("use", `export default { name: "Use", version: "1", type: "action",
			props: { token: { type: "string", secret: true } },
			run() { return this.token === "s3cr3t-value" } }`, map[string]any{"token": "s3cr3t-value"})},
	})
	if raw := jsonOf(wf); strings.Contains(raw, "s3cr3t-value") || !strings.Contains(raw, `"token":"[redacted]"`) {
		t.Errorf("the workflow shows its secret: %s", raw)
	}
	x := s.execution(s.runWorkflow(wf["id"].(string), nil))
	if got := x["steps"].([]any)[0].(map[string]any)["$return_value"]; got != true {
		t.Errorf("the step did not get its secret: %v", x)
	}
	// What GET shows, PUT back, keeps the secret.
	id := wf["id"].(string)
	_, body := s.do("GET", "/v1/workflows/"+id, nil)
	step0 := data(body)["steps"].([]any)[0].(map[string]any)
	code := `export default { name: "Use", version: "2", type: "action", props: { token: { type: "string", secret: true } }, run() { return this.token === "s3cr3t-value" } }`
	if st, body := s.do("PUT", "/v1/workflows/"+id, map[string]any{"name": "Secretive", "trigger": map[string]any{"type": "manual"},
		"steps": []any{action("use", code, map[string]any{"token": step0["props"].(map[string]any)["token"]})}}); st != 200 {
		t.Fatalf("update with the redacted secret: %d %v", st, body)
	}
	x = s.execution(s.runWorkflow(id, nil))
	if got := x["steps"].([]any)[0].(map[string]any)["$return_value"]; got != true {
		t.Errorf("the secret sent back redacted was not kept: %v", x)
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id, map[string]any{"name": "Secretive", "trigger": map[string]any{"type": "manual"},
		"steps": []any{action("other", code, map[string]any{"token": "[redacted]"})}}); st != 400 || !strings.Contains(jsonOf(body), "has no stored value") {
		t.Errorf("a redacted secret of a new step: %d %v", st, body)
	}
}

// TestOrgSourceTriggersMembersWorkflow: a member's own workflow triggered
// by an organization's source (created by someone else) runs on its
// events, and an organization's workflow lists with the organization.
func TestOrgSourceTriggersMembersWorkflow(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	_, org := s.do("POST", "/v1/orgs", map[string]any{"orgname": "team"})
	orgID := data(org)["id"].(string)
	_, carol := s.do("POST", "/v1/users", map[string]any{"username": "carol", "email": "carol@example.com"})
	s.do("POST", "/v1/orgs/"+orgID+"/members", map[string]any{"user_id": data(carol)["id"]})
	st, body := s.do("POST", "/v1/sources?org_id="+orgID, map[string]any{"component_code": `export default { name: "Org", version: "1", run(e) { this.$emit({ n: e.n }) } }`})
	if st != 200 {
		t.Fatalf("org source: %d %v", st, body)
	}
	src := data(body)["id"].(string)
	asCarol := &testServer{t: t, base: s.base, key: data(carol)["api_key"].(string)}
	wf := asCarol.deployWorkflow(map[string]any{"name": "Carol's", "trigger": map[string]any{"type": "source", "emitter_id": src},
		"steps": []any{step("n", `export default defineComponent({ run({ steps }) { return steps.trigger.event.n } })`, nil)}})
	s.run(src, map[string]any{"n": 7})
	x := asCarol.execution(asCarol.executions(wf["id"].(string), 1)[0]["id"].(string))
	if got := x["steps"].([]any)[0].(map[string]any)["$return_value"]; got != float64(7) {
		t.Errorf("carol's workflow saw %v", got)
	}
	st, body = asCarol.do("POST", "/v1/workflows?org_id="+orgID, map[string]any{"name": "Team flow", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("a", `export default defineComponent({ run() {} })`, nil)}})
	if st != 200 || data(body)["owner_id"] != orgID {
		t.Fatalf("org workflow: %d %v", st, body)
	}
	if _, body := s.do("GET", "/v1/orgs/"+orgID+"/workflows", nil); len(body["data"].([]any)) != 1 {
		t.Errorf("the org's workflows: %v", body["data"])
	}
}

// TestWorkflowRegistryActionAndErrorAutoSubscription: a step given by a
// published action's key runs it; a workflow created after an
// auto-subscription to $errors has its errors delivered there.
func TestWorkflowRegistryActionAndErrorAutoSubscription(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"got":%s,"method":%q}`, b, r.Method)
	}))
	defer target.Close()
	rc := &receiver{}
	hook := s.webhookTo(rc)
	if st, body := s.do("POST", "/v1/auto_subscriptions", map[string]any{"listener_id": hook, "event_name": "$errors"}); st != 200 {
		t.Fatalf("auto-subscription: %d %v", st, body)
	}
	wf := s.deployWorkflow(map[string]any{
		"name": "Caller", "trigger": map[string]any{"type": "manual"},
		"steps": []any{map[string]any{"name": "call", "key": "http-send-request",
			"props": map[string]any{"url": "{{steps.trigger.event.url}}", "method": "POST", "body": "{{steps.trigger.event.payload}}"}}},
	})
	id := wf["id"].(string)
	if k := wf["steps"].([]any)[0].(map[string]any); k["kind"] != "action" || k["key"] != "http-send-request" {
		t.Errorf("the step = %v", k)
	}
	x := s.execution(s.runWorkflow(id, map[string]any{"url": target.URL, "payload": map[string]any{"a": 1}}))
	res := x["steps"].([]any)[0].(map[string]any)
	if x["status"] != "success" || jsonOf(res["$return_value"]) != `{"contentType":"application/json","data":{"got":{"a":1},"method":"POST"},"status":200}` {
		t.Errorf("execution = %v", x)
	}
	s.runWorkflow(id, map[string]any{"url": "ftp://nowhere"})
	got := rc.wait(t, 1)[0]
	if md := got["metadata"].(map[string]any); md["emitter_id"] != id || md["name"] != "$errors" || got["event"].(map[string]any)["error"].(map[string]any)["stepName"] != "call" {
		t.Errorf("the auto-subscribed webhook got %v", got)
	}
}

// TestWorkflowActiveSwitchesItsTrigger: PUT /v1/workflows/{id}/active
// stops and starts an HTTP trigger without the definition, and changes
// nothing else.
func TestWorkflowActiveSwitchesItsTrigger(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	st, body := s.do("POST", "/v1/workflows", map[string]any{
		"name": "switch", "trigger": map[string]any{"type": "http"},
		"steps": []any{map[string]any{"name": "s", "code": `export default defineComponent({ async run() { return 1 } })`}},
	})
	if st != 200 {
		t.Fatalf("deploy: %d %v", st, body)
	}
	wf := data(body)
	id := wf["id"].(string)
	endpoint := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	post := func() int {
		t.Helper()
		resp, err := http.Post(endpoint, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(); st != 200 {
		t.Fatalf("an active workflow's endpoint answers %d", st)
	}
	st, body = s.do("PUT", "/v1/workflows/"+id+"/active", map[string]any{"active": false})
	off := data(body)
	if st != 200 || off["active"] != false || off["version"] != wf["version"] || off["trigger"].(map[string]any)["endpoint_url"] != endpoint {
		t.Fatalf("after switching off: %d %v", st, body)
	}
	if st := post(); st != 404 {
		t.Fatalf("an inactive workflow's endpoint answers %d", st)
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id+"/active", map[string]any{"active": true}); st != 200 {
		t.Fatalf("switch on: %d %v", st, body)
	}
	if st := post(); st != 200 {
		t.Fatalf("a workflow switched on again answers %d", st)
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id+"/active", map[string]any{}); st != 400 {
		t.Errorf("without active: %d %v", st, body)
	}
}

// TestWorkflowGlobTriggers: a source trigger on the glob dc_* runs on the
// events of each of the owner's sources; one on p_* on other workflows'
// emits but not on its own; an emitter that is neither an id nor a glob
// is refused, the message naming it.
func TestWorkflowGlobTriggers(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	a, b := s.deploySource(echoSource, nil), s.deploySource(echoSource, nil)
	every := s.deployWorkflow(map[string]any{
		"name":    "Every source",
		"trigger": map[string]any{"type": "source", "emitter_id": "dc_*"},
		"steps":   []any{step("note", `export default defineComponent({ run({ steps }) { return steps.trigger.event.body } })`, nil)},
	})
	for _, src := range []map[string]any{a, b} {
		if st, _ := postBody(t, endpointOf(src, "http"), `{"from":"`+src["id"].(string)+`"}`); st != 200 {
			t.Fatalf("post to %s: %d", src["id"], st)
		}
	}
	from := map[string]bool{}
	for _, x := range s.executions(every["id"].(string), 2) {
		full := s.execution(x["id"].(string))
		from[full["event"].(map[string]any)["body"].(map[string]any)["from"].(string)] = true
	}
	if !from[a["id"].(string)] || !from[b["id"].(string)] {
		t.Errorf("dc_* ran on events of %v, want both sources", from)
	}

	emitter := s.deployWorkflow(map[string]any{
		"name":    "Emitter",
		"trigger": map[string]any{"type": "http"},
		"steps":   []any{step("emit", `export default defineComponent({ run({ steps, $ }) { $.send.emit({ raw_event: { n: steps.trigger.event.body.n } }) } })`, nil)},
	})
	follower := s.deployWorkflow(map[string]any{
		"name":    "Follower",
		"trigger": map[string]any{"type": "source", "emitter_id": "p_*"},
		"steps":   []any{step("echo", `export default defineComponent({ run({ steps, $ }) { $.send.emit({ raw_event: { seen: steps.trigger.event } }) } })`, nil)},
	})
	post := func(n int) {
		t.Helper()
		if st, body := postBody(t, emitter["trigger"].(map[string]any)["endpoint_url"].(string), fmt.Sprintf(`{"n":%d}`, n)); st != 200 {
			t.Fatalf("emitter: %d %s", st, body)
		}
	}
	// The follower's first emit is committed with whatever it routes:
	// had it routed to itself, that run would be queued before the
	// emitter's second event, and the follower's second run would be it.
	post(1)
	s.workflowEvents(follower["id"].(string), "", 1)
	post(2)
	runs := s.executions(follower["id"].(string), 2)
	second := s.execution(runs[len(runs)-2]["id"].(string))
	if got := jsonOf(second["event"]); got != `{"n":2}` {
		t.Errorf("the follower's second run had the event %s, want the emitter's second, {\"n\":2}", got)
	}

	st, body := s.do("POST", "/v1/workflows", map[string]any{"name": "Bad", "trigger": map[string]any{"type": "source", "emitter_id": "sc_x"},
		"steps": []any{step("s", `export default defineComponent({ run() {} })`, nil)}})
	if msg, _ := body["error"].(map[string]any)["message"].(string); st != 400 || !strings.Contains(msg, `the glob dc_* or p_*; "sc_x" is none of them`) {
		t.Errorf("emitter sc_x: %d %v", st, body)
	}
	st, body = s.do("POST", "/v1/workflows", map[string]any{"name": "Bad", "trigger": map[string]any{"type": "source", "emitter_id": "dc_*", "event_name": strings.Repeat("x", 1000)},
		"steps": []any{step("s", `export default defineComponent({ run() {} })`, nil)}})
	if st != 400 || body["error"].(map[string]any)["param"] != "event_name" {
		t.Errorf("a glob trigger with a bad event name: %d %v", st, body)
	}
}

// TestWorkflowOlderSendGlobal: a step written for Pipedream's older
// globals emits with $send.emit, as with $.send.emit.
func TestWorkflowOlderSendGlobal(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Older",
		"trigger": map[string]any{"type": "http"},
		"steps":   []any{step("emit", `export default defineComponent({ run({ steps }) { $send.emit({ raw_event: { older: steps.trigger.event.body.n } }) } })`, nil)},
	})
	if st, body := postBody(t, wf["trigger"].(map[string]any)["endpoint_url"].(string), `{"n":7}`); st != 200 {
		t.Fatalf("trigger: %d %s", st, body)
	}
	if got := jsonOf(s.workflowEvents(wf["id"].(string), "", 1)[0]["event"]); got != `{"raw_event":{"older":7}}` {
		t.Errorf("event = %s", got)
	}
}

// TestWorkflowErrorKeepsItsCode: a thrown error's own code (a string or a
// number) is the $errors event's error.code; without one, its name is.
func TestWorkflowErrorKeepsItsCode(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{
		"name":    "Thrower",
		"trigger": map[string]any{"type": "http"},
		"steps": []any{step("call", `export default defineComponent({ run({ steps }) {
			const b = steps.trigger.event.body;
			if (b.code === undefined) throw new TypeError("no code");
			throw Object.assign(new Error("with a code"), { code: b.code });
		} })`, nil)},
	})
	url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	bodies := []string{`{"code":"rate_limited"}`, `{"code":429}`, `{}`, `{"code":{"not":"a code"}}`}
	for _, b := range bodies {
		postBody(t, url, b)
	}
	got := map[string]bool{}
	for _, ev := range s.workflowEvents(wf["id"].(string), "$errors", len(bodies)) {
		got[ev["event"].(map[string]any)["error"].(map[string]any)["code"].(string)] = true
	}
	for _, want := range []string{"rate_limited", "429", "TypeError", "Error"} {
		if !got[want] {
			t.Errorf("no $errors event has code %q: %v", want, got)
		}
	}
}

// TestWorkflowStepAndDeploymentIDs: each step has a c_ id that an update
// keeping its name keeps, each deployed version a d_ id that an update
// changes and a pause does not, and an execution names both.
func TestWorkflowStepAndDeploymentIDs(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	noop := `export default defineComponent({ run() { return 1 } })`
	def := func(names ...string) map[string]any {
		var steps []any
		for _, n := range names {
			steps = append(steps, step(n, noop, nil))
		}
		return map[string]any{"name": "Ids", "trigger": map[string]any{"type": "manual"}, "steps": steps}
	}
	stepIDs := func(wf map[string]any) map[string]string {
		out := map[string]string{}
		for _, it := range wf["steps"].([]any) {
			st := it.(map[string]any)
			out[st["name"].(string)] = st["id"].(string)
		}
		return out
	}
	first := s.deployWorkflow(def("a", "b"))
	id, before := first["id"].(string), stepIDs(first)
	if !strings.HasPrefix(before["a"], "c_") || !strings.HasPrefix(before["b"], "c_") || before["a"] == before["b"] {
		t.Fatalf("step ids %v, want two c_ ids", before)
	}
	if d, _ := first["deployment_id"].(string); !strings.HasPrefix(d, "d_") {
		t.Fatalf("deployment_id %v, want a d_ id", first["deployment_id"])
	}
	st, body := s.do("PUT", "/v1/workflows/"+id, def("a", "c"))
	if st != 200 {
		t.Fatalf("update: %d %v", st, body)
	}
	second := data(body)
	after := stepIDs(second)
	if after["a"] != before["a"] || after["c"] == before["b"] || !strings.HasPrefix(after["c"], "c_") {
		t.Errorf("step ids after the update %v, before %v: a's kept, c's new", after, before)
	}
	if second["deployment_id"] == first["deployment_id"] {
		t.Errorf("the update kept the deployment id %v", first["deployment_id"])
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id+"/active", map[string]any{"active": false}); st != 200 || data(body)["deployment_id"] != second["deployment_id"] {
		t.Errorf("pause: %d, deployment_id %v, want %v kept", st, data(body)["deployment_id"], second["deployment_id"])
	}
	x := s.execution(s.runWorkflow(id, map[string]any{}))
	if x["deployment_id"] != second["deployment_id"] {
		t.Errorf("execution deployment_id %v, want %v", x["deployment_id"], second["deployment_id"])
	}
	for _, it := range x["steps"].([]any) {
		if st := it.(map[string]any); st["id"] != after[st["name"].(string)] {
			t.Errorf("execution step %v has id %v, want %v", st["name"], st["id"], after[st["name"].(string)])
		}
	}
	sum := s.executions(id, 1)[0]
	if sum["deployment_id"] != second["deployment_id"] || sum["steps"].([]any)[0].(map[string]any)["id"] != after["a"] {
		t.Errorf("execution summary = %v", sum)
	}
}

// TestWorkflowTimerInAZone: a timer trigger's cron expression takes the
// zone it is read in, which the workflow shows back.
func TestWorkflowTimerInAZone(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Morning", "trigger": map[string]any{"type": "timer", "timer": map[string]any{"cron": "0 9 * * *", "timezone": "Europe/Paris"}},
		"steps": []any{step("s", `export default defineComponent({ run() {} })`, nil)}})
	if got := jsonOf(s.getWorkflow(wf["id"].(string))["trigger"].(map[string]any)["timer"]); got != `{"cron":"0 9 * * *","interval_seconds":null,"timezone":"Europe/Paris"}` {
		t.Errorf("trigger.timer = %s", got)
	}
}

// TestWorkflowBearerToken: an HTTP trigger with a token answers 401 to a
// request without it (or with another), queuing nothing; the token is
// never shown nor kept in the event; an update keeps it with
// "[redacted]" and removes it with none.
func TestWorkflowBearerToken(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	const token = "tok_0123456789abcdef"
	def := func(tok string) map[string]any {
		return map[string]any{"name": "Guarded", "trigger": map[string]any{"type": "http", "token": tok},
			"steps": []any{step("s", `export default defineComponent({ run({ steps }) { return steps.trigger.event.headers } })`, nil)}}
	}
	st, body := s.do("POST", "/v1/workflows", def(token))
	if st != 200 || strings.Contains(jsonOf(body), token) {
		t.Fatalf("create: %d %v (the token must not be shown)", st, body)
	}
	wf := data(body)
	id, trigger := wf["id"].(string), wf["trigger"].(map[string]any)
	if trigger["auth"] != "bearer" {
		t.Errorf("trigger = %v, want auth bearer", trigger)
	}
	post := func(auth string) (int, http.Header) {
		t.Helper()
		req, _ := http.NewRequest("POST", trigger["endpoint_url"].(string), strings.NewReader(`{"k":1}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token, token} {
		if st, h := post(auth); st != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: %d %v, want 401 with WWW-Authenticate", auth, st, h)
		}
	}
	if st, _ := post("Bearer " + token); st != 200 {
		t.Fatalf("with the token: %d", st)
	}
	xs := s.executions(id, 1)
	x := s.execution(xs[0]["id"].(string))
	if len(xs) != 1 || strings.Contains(jsonOf(x), token) {
		t.Errorf("%d executions (want 1, the refused requests queued nothing); the token in the execution: %v", len(xs), strings.Contains(jsonOf(x), token))
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id, def("[redacted]")); st != 200 || data(body)["trigger"].(map[string]any)["auth"] != "bearer" {
		t.Fatalf("update keeping the token: %d %v", st, body)
	}
	if st, _ := post(""); st != 401 {
		t.Errorf("after an update with [redacted]: %d, want 401", st)
	}
	if st, _ := post("bearer " + token); st != 200 {
		t.Errorf("the kept token, scheme in lower case: %d", st)
	}
	if st, body := s.do("PUT", "/v1/workflows/"+id, def("")); st != 200 || data(body)["trigger"].(map[string]any)["auth"] != nil {
		t.Fatalf("update removing the token: %d %v", st, body)
	}
	if st, _ := post(""); st != 200 {
		t.Errorf("without a token after its removal: %d", st)
	}
	for _, bad := range []string{"short", "has spaces in it, 0123456789", strings.Repeat("x", 257)} {
		if st, body := s.do("POST", "/v1/workflows", def(bad)); st != 400 || !strings.Contains(jsonOf(body), "16 to 256 characters") {
			t.Errorf("token %.20q: %d %v", bad, st, body)
		}
	}
	if st, body := s.do("POST", "/v1/workflows", def("[redacted]")); st != 400 || !strings.Contains(jsonOf(body), "no token is stored") {
		t.Errorf("[redacted] on create: %d %v", st, body)
	}
}

// TestWorkflowReplay: replaying an execution runs its trigger event again
// as a new execution; an execution whose event was too large to keep is
// refused with 409, an event that only looks like that marker is not,
// and another user's execution is not found.
func TestWorkflowReplay(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Replayed", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("s", `export default defineComponent({ run({ steps }) { return steps.trigger.event } })`, nil)}})
	id := wf["id"].(string)
	replay := func(key, execID string) (int, map[string]any) {
		t.Helper()
		return s.doAs(key, "POST", "/v1/executions/"+execID+"/replay", nil)
	}
	for _, event := range []any{map[string]any{"n": 1}, map[string]any{"truncated": true, "bytes": 99999999999}} {
		first := s.execution(s.runWorkflow(id, event))
		st, body := replay(s.key, first["id"].(string))
		if st != 202 {
			t.Fatalf("replay of %v: %d %v", event, st, body)
		}
		again := s.execution(data(body)["execution_id"].(string))
		if again["id"] == first["id"] || jsonOf(again["event"]) != jsonOf(first["event"]) {
			t.Errorf("replay of %v: %v", first["event"], again)
		}
	}
	big := s.execution(s.runWorkflow(id, map[string]any{"pad": strings.Repeat("x", 20<<10)}))
	if st, body := replay(s.key, big["id"].(string)); st != 409 || body["error"].(map[string]any)["code"] != "event_not_kept" {
		t.Errorf("replay of an execution whose event was not kept: %d %v", st, body)
	}
	st, body := s.do("POST", "/v1/users", map[string]any{"username": "mallory", "email": "mallory@example.com"})
	if st != 200 {
		t.Fatalf("create user: %d %v", st, body)
	}
	if st, _ := replay(data(body)["api_key"].(string), big["id"].(string)); st != 404 {
		t.Errorf("another user's replay: %d, want 404", st)
	}
}

// TestWorkflowRespondWhenAndOnce: the first $.respond() answers when the
// execution ends, or at once with immediate: true (the request is
// answered while a later step still runs); a later step's call changes
// nothing.
func TestWorkflowRespondWhenAndOnce(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	// The slow step waits at a gate of its request's own until the test
	// opens it.
	entered := make(chan string, 4)
	gates := map[string]chan struct{}{"now": make(chan struct{}), "end": make(chan struct{})}
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		entered <- name
		<-gates[name]
		_, _ = io.WriteString(w, "{}")
	}))
	defer gate.Close()
	opened := map[string]bool{}
	open := func(name string) {
		if !opened[name] {
			opened[name] = true
			close(gates[name])
		}
	}
	defer func() { open("now"); open("end") }()
	wf := s.deployWorkflow(map[string]any{
		"name":    "Answers",
		"trigger": map[string]any{"type": "http", "respond": true},
		"steps": []any{
			step("answer", `export default defineComponent({ async run({ steps, $ }) {
				const b = steps.trigger.event.body;
				await $.respond({ status: 200, body: "first", immediate: b.immediate === true });
			} })`, nil),
			step("slow", `export default defineComponent({ async run({ steps, $ }) {
				await $.respond({ status: 500, body: "second", immediate: true });
				await fetch(steps.trigger.event.body.gate);
			} })`, nil),
		},
	})
	url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	type answer struct {
		status int
		body   string
	}
	ask := func(immediate bool, gateName string) chan answer {
		got := make(chan answer, 1)
		go func() {
			st, body := postBody(t, url, fmt.Sprintf(`{"immediate":%v,"gate":%q}`, immediate, gate.URL+"/"+gateName))
			got <- answer{st, strings.TrimSpace(body)}
		}()
		return got
	}
	wait := func(name string) {
		t.Helper()
		select {
		case got := <-entered:
			if got != name {
				t.Fatalf("the slow step reached gate %q, want %q", got, name)
			}
		case <-time.After(eventsDeadline):
			_, body := s.do("GET", "/v1/workflows/"+wf["id"].(string)+"/$errors/event_summaries?expand=event", nil)
			t.Fatalf("the slow step never reached gate %q; errors: %v", name, body["data"])
		}
	}
	// immediate: answered while the slow step waits at its gate.
	got := ask(true, "now")
	wait("now")
	select {
	case a := <-got:
		if a.status != 200 || a.body != "first" {
			t.Errorf("immediate answer: %d %q, want 200 first", a.status, a.body)
		}
	case <-time.After(eventsDeadline):
		t.Fatal("an immediate $.respond() did not answer while a later step ran")
	}
	open("now")
	// Without: not answered before the slow step is let go.
	got = ask(false, "end")
	wait("end")
	select {
	case a := <-got:
		t.Fatalf("answered %d %q before the execution ended", a.status, a.body)
	default:
	}
	open("end")
	if a := <-got; a.status != 200 || a.body != "first" {
		t.Errorf("answer at the end: %d %q, want 200 first", a.status, a.body)
	}
}

// TestWorkflowThrottle: a workflow throttled to 2 executions per 3 s
// runs the first two of three queued runs at once and the third once
// the window has closed; a throttle out of bounds is refused.
func TestWorkflowThrottle(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	wf := s.deployWorkflow(map[string]any{"name": "Throttled", "trigger": map[string]any{"type": "manual"},
		"throttle": map[string]any{"limit": 2, "interval_seconds": 3},
		"steps":    []any{step("s", `export default defineComponent({ run() { return 1 } })`, nil)}})
	id := wf["id"].(string)
	if got := jsonOf(wf["throttle"]); got != `{"interval_seconds":3,"limit":2}` {
		t.Errorf("throttle = %s", got)
	}
	var runs []string
	for range 3 {
		runs = append(runs, s.runWorkflow(id, nil))
	}
	first, third := s.execution(runs[0]), s.execution(runs[2])
	if gap := third["started_at_ms"].(float64) - first["started_at_ms"].(float64); gap < 1500 {
		t.Errorf("the third execution started %v ms after the first, within the 3 s window that allows two", gap)
	}
	for _, bad := range []map[string]any{{"limit": 0, "interval_seconds": 3}, {"limit": 2, "interval_seconds": 100000}} {
		st, body := s.do("POST", "/v1/workflows", map[string]any{"name": "Bad", "trigger": map[string]any{"type": "manual"}, "throttle": bad,
			"steps": []any{step("s", `export default defineComponent({ run() {} })`, nil)}})
		if st != 400 || !strings.Contains(jsonOf(body), "the throttle needs a limit from 1 to") {
			t.Errorf("throttle %v: %d %v", bad, st, body)
		}
	}
}
