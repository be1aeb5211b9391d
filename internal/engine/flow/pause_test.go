package flow

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// paused is how many paused executions workflow id holds in the store.
func (h *harness) paused(id string) int {
	h.t.Helper()
	n, err := h.store.CountPaused(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// resume runs the resume invocation a call of execution x's URL queues.
func (h *harness) resume(wf model.Workflow, x model.Execution, action, data string) {
	h.t.Helper()
	ev, err := ResumeEvent(x.ID, action, json.RawMessage(data), json.RawMessage(`{"method":"POST"}`))
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.run(wf.ID, model.Invocation{Kind: model.InvocationResume, Event: ev}); err != nil {
		h.t.Fatal(err)
	}
}

// TestADelayGoesOnWhenDue: a delay pauses the execution in the store,
// and its release runs the next step once the delay has passed, not
// before.
func TestADelayGoesOnWhenDue(t *testing.T) {
	t.Parallel()
	after := &seen{value: `"after"`}
	h := newHarness(t, map[string]stepFunc{"wait": pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 60_000, Secret: flowSecret}, `{"kept":1}`), "after": after.step})
	wf := h.deploy(model.Workflow{Steps: steps("wait", "after")})
	x := h.trigger(wf.ID, `{}`)
	if x.Status != model.ExecutionPaused || x.Pause == nil || x.Pause.Kind != abi.FlowDelay || x.Pause.Step != "wait" {
		t.Fatalf("execution %s, pause %+v", x.Status, x.Pause)
	}
	if want := h.clock.Now().Add(time.Minute).UnixMilli(); x.Pause.UntilMs != want {
		t.Errorf("paused until %d, want %d", x.Pause.UntilMs, want)
	}
	if n := h.paused(wf.ID); n != 1 {
		t.Fatalf("%d paused in the store, want 1", n)
	}
	h.clock.Advance(59 * time.Second)
	h.release()
	if len(after.events) != 0 || h.paused(wf.ID) != 1 {
		t.Fatalf("the next step ran %d times before the delay passed", len(after.events))
	}
	h.clock.Advance(2 * time.Second)
	h.release()
	done := h.newest(wf.ID)
	if done.ID != x.ID || done.Status != model.ExecutionSuccess || stepNames(done) != "wait:success,after:success" {
		t.Fatalf("after the delay: %s %s", done.Status, stepNames(done))
	}
	if got := string(decodeRun(t, after.events[0]).Steps["wait"]); got != `{"$return_value":{"kept":1}}` {
		t.Errorf("steps.wait after the delay = %s", got)
	}
	if n := h.paused(wf.ID); n != 0 {
		t.Errorf("%d still paused", n)
	}
}

// TestPausedExecutionsSurviveARestart: a new Runner on the same store
// (a restart, or another node taking the workflow over) reads the due
// times back and goes on with the execution.
func TestPausedExecutionsSurviveARestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"wait": pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 1000, Secret: flowSecret}, `1`), "after": returns(`2`)})
	wf := h.deploy(model.Workflow{Steps: steps("wait", "after")})
	x := h.trigger(wf.ID, `{}`)
	restarted := New(h.r.cfg)
	t.Cleanup(restarted.Close)
	h.r = restarted
	h.clock.Advance(2 * time.Second)
	h.release()
	if got := h.newest(wf.ID); got.Status != model.ExecutionPaused {
		t.Fatalf("a restarted runner went on without reading the due times: %s", got.Status)
	}
	if err := h.r.LoadPaused(context.Background(), wf.ID); err != nil {
		t.Fatal(err)
	}
	h.release()
	if got := h.newest(wf.ID); got.ID != x.ID || got.Status != model.ExecutionSuccess {
		t.Errorf("after LoadPaused: %s %s", got.ID, got.Status)
	}
}

// TestASuspendGoesOnWithItsURL: a suspend goes on when its resume URL is
// called, with the request's body as $resume_data; its cancel URL or its
// timeout ends it cancelled; a second call finds nothing.
func TestASuspendGoesOnWithItsURL(t *testing.T) {
	t.Parallel()
	suspend := pauses(abi.Flow{Kind: abi.FlowSuspend, Ms: 3_600_000, Secret: flowSecret}, `{"asked":true}`)
	cases := []struct {
		name   string
		end    func(h *harness, wf model.Workflow, x model.Execution)
		status string
		reason string
	}{
		{"resumed", func(h *harness, wf model.Workflow, x model.Execution) {
			h.resume(wf, x, ingress.ActionResume, `{"ok":true}`)
		}, model.ExecutionSuccess, ""},
		{"cancelled", func(h *harness, wf model.Workflow, x model.Execution) {
			h.resume(wf, x, ingress.ActionCancel, ``)
		}, model.ExecutionCancelled, "cancelled by its cancel URL"},
		{"timed out", func(h *harness, _ model.Workflow, _ model.Execution) {
			h.clock.Advance(time.Hour + time.Second)
			h.release()
		}, model.ExecutionCancelled, "not resumed within its timeout of 1h0m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			after := &seen{value: `1`}
			h := newHarness(t, map[string]stepFunc{"ask": suspend, "after": after.step})
			wf := h.deploy(model.Workflow{Steps: steps("ask", "after")})
			x := h.trigger(wf.ID, `{}`)
			if x.Status != model.ExecutionPaused {
				t.Fatalf("execution %s, want paused", x.Status)
			}
			tc.end(h, wf, x)
			got := h.newest(wf.ID)
			if got.ID != x.ID || got.Status != tc.status || got.ExitReason != tc.reason {
				t.Fatalf("execution %s (%q), want %s (%q)", got.Status, got.ExitReason, tc.status, tc.reason)
			}
			if h.paused(wf.ID) != 0 {
				t.Error("still paused")
			}
			if tc.status == model.ExecutionSuccess {
				steps := decodeRun(t, after.events[0]).Steps
				if got := string(steps["ask"]); got != `{"$resume_data":{"ok":true},"$return_value":{"asked":true}}` {
					t.Errorf("steps.ask = %s", got)
				}
				if got := string(h.newest(wf.ID).Steps[0].Exports["$resume_data"]); got != `{"ok":true}` {
					t.Errorf("the record's $resume_data = %s", got)
				}
			}
			h.resume(wf, x, ingress.ActionResume, `{}`) // a second call: nothing is paused
			if len(after.events) > 1 {
				t.Errorf("the next step ran %d times", len(after.events))
			}
		})
	}
}

// TestARerunRunsItsStepAgain: $.flow.rerun runs the same step again when
// its URL is called, with $.context.run counting its runs and carrying
// its context and the request.
func TestARerunRunsItsStepAgain(t *testing.T) {
	t.Parallel()
	var runs []json.RawMessage
	rerun := func(ctx context.Context, ev json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
		runs = append(runs, ev)
		return pauses(abi.Flow{Kind: abi.FlowRerun, Ms: 60_000, Secret: flowSecret, Context: json.RawMessage(`{"page":2}`), MaxReruns: 3}, `"again"`)(ctx, ev, caps)
	}
	h := newHarness(t, map[string]stepFunc{"poll": rerun, "after": returns(`1`)})
	wf := h.deploy(model.Workflow{Steps: steps("poll", "after")})
	x := h.trigger(wf.ID, `{}`)
	if x.Status != model.ExecutionPaused || x.Pause.Kind != abi.FlowRerun {
		t.Fatalf("execution %s, pause %+v", x.Status, x.Pause)
	}
	h.resume(wf, x, ingress.ActionResume, `{}`)
	got := h.newest(wf.ID)
	if got.Status != model.ExecutionSuccess || stepNames(got) != "poll:success,poll:success,after:success" {
		t.Fatalf("after the rerun: %s %s", got.Status, stepNames(got))
	}
	if len(runs) != 2 {
		t.Fatalf("the step ran %d times, want 2", len(runs))
	}
	run := decodeRun(t, runs[1]).Run
	if run == nil || run.Runs != 2 || string(run.Context) != `{"page":2}` || string(run.CallbackRequest) != `{"method":"POST"}` {
		t.Errorf("$.context.run of the rerun: %+v", run)
	}
	if decodeRun(t, runs[0]).Run != nil {
		t.Error("the first run has a $.context.run")
	}
}

// TestARetryRunsAFailedStepAgain: a workflow that retries pauses a
// failed execution until its step runs again, and fails it for good
// when its attempts are spent.
func TestARetryRunsAFailedStepAgain(t *testing.T) {
	t.Parallel()
	failures := 0
	flaky := func(n int) stepFunc {
		return func(ctx context.Context, ev json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
			if failures < n {
				failures++
				return throws("flaky")(ctx, ev, caps)
			}
			return &sandbox.Outcome{Value: json.RawMessage(`"ok"`)}, nil
		}
	}
	for _, tc := range []struct {
		name     string
		fails    int
		attempts int
		status   string
	}{
		{"recovers", 2, 2, model.ExecutionSuccess},
		{"runs out of attempts", 3, 2, model.ExecutionError},
	} {
		failures = 0
		h := newHarness(t, map[string]stepFunc{"flaky": flaky(tc.fails)})
		wf := h.deploy(model.Workflow{Steps: steps("flaky"), Controls: model.Controls{Retry: &model.Retry{Attempts: tc.attempts}}})
		x := h.trigger(wf.ID, `{}`)
		for range tc.attempts {
			if got := h.newest(wf.ID); got.Status != model.ExecutionPaused || got.Pause.Kind != PauseRetry {
				t.Fatalf("%s: execution %s, pause %+v; want paused to retry", tc.name, got.Status, got.Pause)
			}
			h.clock.Advance(2 * time.Hour) // past any backoff
			h.release()
		}
		got := h.newest(wf.ID)
		if got.ID != x.ID || got.Status != tc.status {
			t.Errorf("%s: execution %s, want %s", tc.name, got.Status, tc.status)
		}
		if n := len(h.errors(wf.ID)); (n == 1) != (tc.status == model.ExecutionError) {
			t.Errorf("%s: %d $errors events", tc.name, n)
		}
	}
}

// TestPausesAreBounded: past the workflow's most paused executions, a
// step that pauses fails its execution, saying why; so does a state too
// large to keep.
func TestPausesAreBounded(t *testing.T) {
	t.Parallel()
	big := func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Value: json.RawMessage(`"` + strings.Repeat("x", maxPausedState) + `"`)}, nil
	}
	h := newHarness(t, map[string]stepFunc{"wait": pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 60_000, Secret: flowSecret}, `1`), "big": big},
		func(c *Config) { c.MaxPausedExecutions = 2 })
	wf := h.deploy(model.Workflow{Steps: steps("wait")})
	for range 2 {
		if x := h.trigger(wf.ID, `{}`); x.Status != model.ExecutionPaused {
			t.Fatalf("execution %s, want paused", x.Status)
		}
	}
	x := h.trigger(wf.ID, `{}`)
	if x.Status != model.ExecutionError || x.Steps[0].Error == nil || !strings.Contains(x.Steps[0].Error.Message, "2 paused executions") {
		t.Errorf("the third pause: %s, %+v", x.Status, x.Steps[0].Error)
	}
	if n := h.paused(wf.ID); n != 2 {
		t.Errorf("%d paused, want 2", n)
	}
	large := h.deploy(model.Workflow{ID: "p_large", Steps: steps("big", "wait")})
	x = h.trigger(large.ID, `{}`)
	if x.Status != model.ExecutionError || !strings.Contains(x.Steps[1].Error.Message, "over the") {
		t.Errorf("a state too large: %s, %+v", x.Status, x.Steps[1].Error)
	}
}

// TestAStepGoneWhilePaused: an execution paused before an update that
// removed its next step fails when it goes on, naming the step.
func TestAStepGoneWhilePaused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"wait": pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 1000, Secret: flowSecret}, `1`), "after": returns(`2`), "other": returns(`3`)})
	wf := h.deploy(model.Workflow{Steps: steps("wait", "after")})
	x := h.trigger(wf.ID, `{}`)
	wf.Steps = steps("wait", "other")
	if _, err := h.store.UpdateWorkflow(context.Background(), wf, nil); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Second)
	h.release()
	got := h.newest(wf.ID)
	if got.ID != x.ID || got.Status != model.ExecutionError {
		t.Fatalf("execution %s, want error", got.Status)
	}
	if errs := h.errors(wf.ID); len(errs) != 1 || !strings.Contains(string(errs[0].Data), `its step \"after\" is gone`) {
		t.Errorf("$errors %+v", errs)
	}
}

// TestResumesThatFindNothing: a resume that does not read, or names an
// execution not paused, is dropped, and the paused one stays as it was.
func TestResumesThatFindNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"ask": pauses(abi.Flow{Kind: abi.FlowSuspend, Ms: 60_000, Secret: flowSecret}, `1`)})
	wf := h.deploy(model.Workflow{Steps: steps("ask")})
	x := h.trigger(wf.ID, `{}`)
	unknown, err := ResumeEvent(wf.ID+"-999", ingress.ActionResume, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{`"not a resume"`, string(unknown), `{"action":"resume"}`} {
		if err := h.run(wf.ID, model.Invocation{Kind: model.InvocationResume, Event: json.RawMessage(ev)}); err != nil {
			t.Fatalf("resume %s: %v", ev, err)
		}
	}
	if got := h.newest(wf.ID); got.ID != x.ID || got.Status != model.ExecutionPaused || h.paused(wf.ID) != 1 {
		t.Errorf("after resumes that find nothing: %s, %d paused", got.Status, h.paused(wf.ID))
	}
	queued, err := h.store.PendingInvocations(context.Background(), wf.ID, 10)
	if err != nil || len(queued) != 0 {
		t.Errorf("%d resumes still queued (%v), want them dropped", len(queued), err)
	}
}
