package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// stepFunc is a fake workflow step: what it returns for the event it is
// given (steps.* so far, and more).
type stepFunc func(ctx context.Context, event stepEvent, caps sandbox.Capabilities) (*sandbox.Outcome, error)

// stepEvent is what a step is invoked with.
type stepEvent struct {
	Steps   map[string]json.RawMessage `json:"steps"`
	FlowURL string                     `json:"flow_url"`
	Run     json.RawMessage            `json:"run"`
}

// flowSecret is the secret of a fake step's resume and cancel URLs.
var flowSecret = strings.Repeat("s", abi.FlowSecretLen)

// deployFlow deploys a manual workflow of the steps, in order, named
// step0, step1...; controls are its execution controls.
func (te *testEngine) deployFlow(controls model.Controls, steps ...stepFunc) model.Workflow {
	te.t.Helper()
	wf, err := te.DeployWorkflow(ctx, te.flowRequest(fmt.Sprintf("flow-%p", &steps), "step", controls, steps...))
	if err != nil {
		te.t.Fatalf("deploy a workflow: %v", err)
	}
	return wf
}

// flowRequest is a manual workflow named name of the steps, in order,
// named prefix0, prefix1...
func (te *testEngine) flowRequest(name, prefix string, controls model.Controls, steps ...stepFunc) WorkflowRequest {
	req := WorkflowRequest{OwnerID: "u_owner", UserID: "u_owner", Name: name, Active: true,
		Trigger: TriggerRequest{Type: model.TriggerManual}, Controls: controls}
	for i, run := range steps {
		code := fmt.Sprintf("%s-%s%d", te.t.Name(), prefix, i)
		te.box.add(code, &fakeComponent{meta: component.Metadata{Type: component.KindAction},
			step: func(ctx context.Context, raw json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
				var ev stepEvent
				if err := json.Unmarshal(raw, &ev); err != nil {
					return nil, fmt.Errorf("fake step: the event %s: %w", raw, err)
				}
				return run(ctx, ev, caps)
			}})
		req.Steps = append(req.Steps, StepRequest{Name: fmt.Sprintf("%s%d", prefix, i), Kind: model.StepCode, Code: code})
	}
	return req
}

// run queues a manual execution of wf with event and returns its id.
func (te *testEngine) run(wf model.Workflow, event string) string {
	te.t.Helper()
	id, err := te.RunWorkflow(ctx, wf.ID, json.RawMessage(event))
	if err != nil {
		te.t.Fatalf("run: %v", err)
	}
	return id
}

// execution waits until wf has an execution with status, and returns it.
func (te *testEngine) execution(wf model.Workflow, status string) model.Execution {
	te.t.Helper()
	return te.awaitExecution(wf, status, func() {})
}

// advance moves the clock on by d once wf's next due time is noted (just
// after the commit that paused an execution), and then waits until wf
// has an execution with status, ticking the delayed scheduler on while
// it waits: a tick its loop was not ready for is dropped, as
// time.Ticker's are.
func (te *testEngine) advance(wf model.Workflow, d time.Duration, status string) model.Execution {
	te.t.Helper()
	waitFor(te.t, "a due time to be noted", func() bool { return te.delayed.Due(model.WorkflowTarget(wf.ID)) != 0 })
	te.clock.Advance(d)
	return te.awaitExecution(wf, status, func() { te.clock.Advance(delayed.Tick) })
}

// awaitExecution waits until wf has an execution with status, calling
// each before every look, and returns it.
func (te *testEngine) awaitExecution(wf model.Workflow, status string, each func()) model.Execution {
	te.t.Helper()
	var got model.Execution
	waitFor(te.t, "an execution "+status, func() bool {
		each()
		xs, err := te.st.ListExecutions(ctx, wf.ID, 10)
		if err != nil {
			te.t.Fatal(err)
		}
		for _, x := range xs {
			if x.Status == status {
				got = x
				return true
			}
		}
		return false
	})
	return got
}

// pausedCount is how many executions wf holds paused.
func (te *testEngine) pausedCount(wf model.Workflow) int {
	te.t.Helper()
	n, err := te.st.CountPaused(ctx, wf.ID)
	if err != nil {
		te.t.Fatal(err)
	}
	return n
}

// returns is a step that returns value.
func returns(value string) stepFunc {
	return func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Value: json.RawMessage(value)}, nil
	}
}

// pauses is a step that pauses its execution with flow.
func pauses(flow abi.Flow) stepFunc {
	return func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
		f := flow
		return &sandbox.Outcome{Flow: &f}, nil
	}
}

// seen records the events a step was given.
type seen struct {
	mu     sync.Mutex
	events []stepEvent
}

func (s *seen) step(value string) stepFunc {
	return func(_ context.Context, ev stepEvent, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.events = append(s.events, ev)
		return &sandbox.Outcome{Value: json.RawMessage(value)}, nil
	}
}

func (s *seen) all() []stepEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]stepEvent(nil), s.events...)
}

func stepNames(x model.Execution) string {
	var names []string
	for _, s := range x.Steps {
		names = append(names, s.Name+":"+s.Status)
	}
	return strings.Join(names, " ")
}

func TestFlowRunsItsStepsInOrder(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	last := &seen{}
	wf := te.deployFlow(model.Controls{}, returns(`{"n":1}`), returns(`2`), last.step(`"done"`))
	te.run(wf, `{"x":1}`)
	x := te.execution(wf, model.ExecutionSuccess)
	if got := stepNames(x); got != "step0:success step1:success step2:success" {
		t.Errorf("steps recorded: %s", got)
	}
	evs := last.all()
	if len(evs) != 1 {
		t.Fatalf("the last step ran %d times", len(evs))
	}
	steps := evs[0].Steps
	if string(steps["step0"]) != `{"$return_value":{"n":1}}` || string(steps["step1"]) != `{"$return_value":2}` || !strings.Contains(string(steps["trigger"]), `"event":{"x":1}`) {
		t.Errorf("the last step saw steps %s", steps)
	}
	if !strings.HasSuffix(evs[0].FlowURL, component.FlowPath+x.ID) {
		t.Errorf("its flow URL %q does not name the execution %s", evs[0].FlowURL, x.ID)
	}
	if string(x.Steps[2].ReturnValue) != `"done"` {
		t.Errorf("the last step's recorded value: %s", x.Steps[2].ReturnValue)
	}
}

func TestFlowEndsEarly(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	exit := "nothing to do"
	cases := []struct {
		name   string
		first  stepFunc
		status string
		steps  string
		errors int // $errors events of the workflow
	}{
		{"a step that throws", func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return nil, throw("boom")
		}, model.ExecutionError, "step0:error", 1},
		{"an exit", func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return &sandbox.Outcome{Exit: &exit}, nil
		}, model.ExecutionExited, "step0:exited", 0},
		{"an S3 send without a bucket", func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return &sandbox.Outcome{Sends: []abi.Send{{Kind: abi.SendS3, Payload: json.RawMessage(`1`)}}}, nil
		}, model.ExecutionError, "step0:error", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			second := &seen{}
			wf := te.deployFlow(model.Controls{}, tc.first, second.step(`1`))
			te.run(wf, `{}`)
			x := te.execution(wf, tc.status)
			if got := stepNames(x); got != tc.steps {
				t.Errorf("steps recorded: %s, want %s", got, tc.steps)
			}
			if n := len(second.all()); n != 0 {
				t.Errorf("the second step ran %d times", n)
			}
			if n := len(te.events(wf.ID, model.ChannelErrors)); n != tc.errors {
				t.Errorf("%d $errors events, want %d", n, tc.errors)
			}
		})
	}
}

// TestAFailedExecutionSendsNothing: what an execution's steps sent
// before a later step failed is not delivered.
func TestAFailedExecutionSendsNothing(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	send := func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Sends: []abi.Send{{Kind: abi.SendHTTP, Method: "POST", URL: "https://example.com/"}}}, nil
	}
	failing := te.deployFlow(model.Controls{}, send, func(context.Context, stepEvent, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return nil, throw("boom")
	})
	te.run(failing, `{}`)
	te.execution(failing, model.ExecutionError)
	if ds, err := te.st.ListDeliveries(ctx, failing.ID, model.Page{Limit: 10}); err != nil || len(ds.Items) != 0 {
		t.Errorf("a failed execution's sends: %d deliveries, %v", len(ds.Items), err)
	}
	ok := te.deployFlow(model.Controls{}, send, returns(`1`))
	te.run(ok, `{}`)
	te.execution(ok, model.ExecutionSuccess)
	ds, err := te.st.ListDeliveries(ctx, ok.ID, model.Page{Limit: 10})
	if err != nil || len(ds.Items) != 1 || ds.Items[0].Kind != model.DeliverySendHTTP {
		t.Errorf("a successful execution's send: %+v, %v", ds.Items, err)
	}
}

func TestFlowDelayGoesOnWhenDue(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	after := &seen{}
	wf := te.deployFlow(model.Controls{}, pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 60_000, Secret: flowSecret}), after.step(`1`))
	te.run(wf, `{}`)
	paused := te.execution(wf, model.ExecutionPaused)
	if paused.Pause == nil || paused.Pause.Kind != abi.FlowDelay || paused.Pause.Step != "step0" {
		t.Errorf("the paused execution's pause: %+v", paused.Pause)
	}
	if n := te.pausedCount(wf); n != 1 {
		t.Errorf("%d paused executions, want 1", n)
	}
	waitFor(t, "the due time to be noted", func() bool { return te.delayed.Due(model.WorkflowTarget(wf.ID)) != 0 })
	for range 10 {
		te.clock.Advance(5 * time.Second) // 50 s: not due yet
	}
	if n := len(after.all()); n != 0 {
		t.Fatalf("the step after the delay ran %d times before it was due", n)
	}
	x := te.advance(wf, 11*time.Second, model.ExecutionSuccess)
	if x.ID != paused.ID || stepNames(x) != "step0:success step1:success" {
		t.Errorf("the execution that went on: %s %s, want %s with both steps", x.ID, stepNames(x), paused.ID)
	}
	if n := te.pausedCount(wf); n != 0 {
		t.Errorf("%d paused executions left once it went on", n)
	}
}

// flowURL calls a paused execution's URL (action resume or cancel) on
// the engine's ingress, and returns the status.
func (te *testEngine) flowURL(executionID, secret, action, body string) int {
	te.t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, component.FlowPath+executionID+"/"+secret+"/"+action, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	te.Ingress().ServeHTTP(w, r)
	return w.Code
}

func TestFlowSuspend(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	suspend := pauses(abi.Flow{Kind: abi.FlowSuspend, Ms: 3_600_000, Secret: flowSecret})

	t.Run("resumed by its URL, with its data", func(t *testing.T) {
		after := &seen{}
		wf := te.deployFlow(model.Controls{}, suspend, after.step(`1`))
		te.run(wf, `{}`)
		x := te.execution(wf, model.ExecutionPaused)
		if st := te.flowURL(x.ID, strings.Repeat("x", abi.FlowSecretLen), ingress.ActionResume, `{}`); st != http.StatusNotFound {
			t.Errorf("a wrong secret: %d, want 404", st)
		}
		if st := te.flowURL(x.ID, flowSecret, ingress.ActionResume, `{"ok":true}`); st != http.StatusAccepted {
			t.Fatalf("the resume URL: %d, want 202", st)
		}
		done := te.execution(wf, model.ExecutionSuccess)
		evs := after.all()
		if len(evs) != 1 || !strings.Contains(string(evs[0].Steps["step0"]), `"$resume_data":{"ok":true}`) {
			t.Errorf("the step after the suspend saw %+v", evs)
		}
		if got := string(done.Steps[0].Exports["$resume_data"]); got != `{"ok":true}` {
			t.Errorf("the suspended step's recorded $resume_data: %s", got)
		}
		// Its URL names nothing once it went on.
		if st := te.flowURL(x.ID, flowSecret, ingress.ActionResume, `{}`); st != http.StatusNotFound {
			t.Errorf("the resume URL again: %d, want 404", st)
		}
	})
	t.Run("cancelled by its URL", func(t *testing.T) {
		after := &seen{}
		wf := te.deployFlow(model.Controls{}, suspend, after.step(`1`))
		te.run(wf, `{}`)
		x := te.execution(wf, model.ExecutionPaused)
		if st := te.flowURL(x.ID, flowSecret, ingress.ActionCancel, ``); st != http.StatusAccepted {
			t.Fatalf("the cancel URL: %d, want 202", st)
		}
		cancelled := te.execution(wf, model.ExecutionCancelled)
		if !strings.Contains(cancelled.ExitReason, "cancel URL") || len(after.all()) != 0 {
			t.Errorf("cancelled: %q, and the next step ran %d times", cancelled.ExitReason, len(after.all()))
		}
	})
	t.Run("cancelled past its timeout", func(t *testing.T) {
		wf := te.deployFlow(model.Controls{}, suspend, returns(`1`))
		te.run(wf, `{}`)
		te.execution(wf, model.ExecutionPaused)
		x := te.advance(wf, time.Hour+time.Second, model.ExecutionCancelled)
		if !strings.Contains(x.ExitReason, "timeout") {
			t.Errorf("the exit reason: %q", x.ExitReason)
		}
	})
}

func TestFlowRerun(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	var mu sync.Mutex
	var runs []string
	wf := te.deployFlow(model.Controls{}, func(_ context.Context, ev stepEvent, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		runs = append(runs, string(ev.Run))
		if len(runs) < 3 {
			return &sandbox.Outcome{Flow: &abi.Flow{Kind: abi.FlowRerun, Ms: 1000, Secret: flowSecret, Context: json.RawMessage(`{"k":1}`), MaxReruns: 5}}, nil
		}
		return &sandbox.Outcome{Value: json.RawMessage(`"third"`)}, nil
	})
	te.run(wf, `{}`)
	x := te.execution(wf, model.ExecutionPaused)
	for x.Status == model.ExecutionPaused { // paused twice, then done
		x = te.advance(wf, 1100*time.Millisecond, model.ExecutionSuccess)
	}
	mu.Lock()
	defer mu.Unlock()
	// $.context.run.runs counts the runs, this one included.
	if len(runs) != 3 || runs[0] != "" || !strings.Contains(runs[1], `"runs":2`) || !strings.Contains(runs[2], `"runs":3`) || !strings.Contains(runs[2], `"context":{"k":1}`) {
		t.Errorf("the step's runs saw %q", runs)
	}
	if string(x.Steps[len(x.Steps)-1].ReturnValue) != `"third"` {
		t.Errorf("the execution's last step: %+v", x.Steps)
	}
}

// TestFlowRetry: a workflow that retries reruns a failed execution from
// its failed step once the backoff passed, keeping the steps before it;
// past its attempts the execution fails.
func TestFlowRetry(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.ExecutionRetryBase = time.Second })
	first := &seen{}
	var mu sync.Mutex
	calls := 0
	flaky := func(_ context.Context, ev stepEvent, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls < 3 {
			return nil, throw(fmt.Sprintf("failure %d", calls))
		}
		return &sandbox.Outcome{Value: ev.Steps["step0"]}, nil
	}
	wf := te.deployFlow(model.Controls{Retry: &model.Retry{Attempts: 3}}, first.step(`"kept"`), flaky)
	te.run(wf, `{}`)
	x := te.execution(wf, model.ExecutionPaused)
	if x.Pause == nil || x.Pause.Kind != flow.PauseRetry || x.Pause.Step != "step1" {
		t.Fatalf("the retry's pause: %+v", x.Pause)
	}
	x = te.advance(wf, time.Minute, model.ExecutionSuccess) // past any backoff of the first attempts
	if n := len(first.all()); n != 1 {
		t.Errorf("the step before the failed one ran %d times, want once", n)
	}
	if got := string(x.Steps[len(x.Steps)-1].ReturnValue); got != `{"$return_value":"kept"}` {
		t.Errorf("the retried step's value %s: it did not see the first step's", got)
	}
	if n := len(te.events(wf.ID, model.ChannelErrors)); n != 0 {
		t.Errorf("%d $errors events for failures a retry put off", n)
	}
}

// TestFlowPausesAreBounded: a step that would pause one more execution
// than the workflow may hold fails its execution.
func TestFlowPausesAreBounded(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.MaxPausedExecutions = 2 })
	wf := te.deployFlow(model.Controls{}, pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 3_600_000, Secret: flowSecret}), returns(`1`))
	for range 3 {
		te.run(wf, `{}`)
	}
	x := te.execution(wf, model.ExecutionError)
	if !strings.Contains(x.Steps[0].Error.Message, "paused executions") {
		t.Errorf("the refused pause's error: %+v", x.Steps[0].Error)
	}
	if n := te.pausedCount(wf); n != 2 {
		t.Errorf("%d paused executions held, want 2", n)
	}
}

// readCounter is a store that counts the reads made with a context that
// carries a *atomic.Int64 (countReads): those of one request, apart
// from the workers'.
type readCounter struct{ *store.Bolt }

type readsKey struct{}

func countReads(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, readsKey{}, n)
}

func (r readCounter) read(ctx context.Context) {
	if n, ok := ctx.Value(readsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

func (r readCounter) GetWorkflow(ctx context.Context, id string) (model.Workflow, error) {
	r.read(ctx)
	return r.Bolt.GetWorkflow(ctx, id)
}

func (r readCounter) GetExecution(ctx context.Context, id string) (model.Execution, error) {
	r.read(ctx)
	return r.Bolt.GetExecution(ctx, id)
}

func (r readCounter) ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]model.Event, error) {
	r.read(ctx)
	return r.Bolt.ListEvents(ctx, emitterID, channel, limit)
}

func (r readCounter) PageEvents(ctx context.Context, emitterID, channel string, p model.EventPage) ([]model.Event, error) {
	r.read(ctx)
	return r.Bolt.PageEvents(ctx, emitterID, channel, p)
}

func (r readCounter) CountEvents(ctx context.Context, emitterID, channel string) (int, error) {
	r.read(ctx)
	return r.Bolt.CountEvents(ctx, emitterID, channel)
}

func (r readCounter) PausedEntry(ctx context.Context, workflowID, executionID string) (store.PausedEntry, bool, error) {
	r.read(ctx)
	return r.Bolt.PausedEntry(ctx, workflowID, executionID)
}

func (r readCounter) PausedState(ctx context.Context, workflowID, executionID string) (json.RawMessage, error) {
	r.read(ctx)
	return r.Bolt.PausedState(ctx, workflowID, executionID)
}

func (r readCounter) PausedEntries(ctx context.Context, workflowID string) (map[string]store.PausedEntry, error) {
	r.read(ctx)
	return r.Bolt.PausedEntries(ctx, workflowID)
}

func (r readCounter) CountPaused(ctx context.Context, workflowID string) (int, error) {
	r.read(ctx)
	return r.Bolt.CountPaused(ctx, workflowID)
}

// TestAResumeURLCostsOneRead: a resume or cancel URL, right or forged,
// costs one small store read however many executions wait: it reads the
// execution's index entry, not the paused executions nor their states.
func TestAResumeURLCostsOneRead(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) {
		bolt := c.Store.(*store.Bolt)
		c.Store, c.Queues = readCounter{bolt}, readCounter{bolt}
	})
	wf := te.deployFlow(model.Controls{Concurrency: 8}, pauses(abi.Flow{Kind: abi.FlowSuspend, Ms: 3_600_000, Secret: flowSecret}), returns(`1`))
	const waiting = 200
	for range waiting {
		te.run(wf, `{}`)
	}
	waitFor(t, "every execution to pause", func() bool { return te.pausedCount(wf) == waiting })
	x := te.execution(wf, model.ExecutionPaused)
	call := func(secret, action string) (int, int64) {
		var reads atomic.Int64
		w := httptest.NewRecorder()
		r := httptest.NewRequestWithContext(countReads(ctx, &reads), http.MethodPost, component.FlowPath+x.ID+"/"+secret+"/"+action, strings.NewReader(`{}`))
		te.Ingress().ServeHTTP(w, r)
		return w.Code, reads.Load()
	}
	if st, reads := call(strings.Repeat("x", abi.FlowSecretLen), ingress.ActionResume); st != http.StatusNotFound || reads != 1 {
		t.Errorf("a forged resume URL: %d after %d reads, want 404 after 1", st, reads)
	}
	if st, reads := call(flowSecret, ingress.ActionResume); st != http.StatusAccepted || reads != 1 {
		t.Errorf("the resume URL: %d after %d reads, want 202 after 1", st, reads)
	}
	te.execution(wf, model.ExecutionSuccess)
}

// TestAPausedExecutionWhoseNextStepIsGone: a workflow changed while an
// execution was paused, its next step gone, fails the execution when it
// is due, saying so, rather than run another step.
func TestAPausedExecutionWhoseNextStepIsGone(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	wf := te.deployFlow(model.Controls{}, pauses(abi.Flow{Kind: abi.FlowDelay, Ms: 60_000, Secret: flowSecret}), returns(`1`))
	te.run(wf, `{}`)
	te.execution(wf, model.ExecutionPaused)
	other := &seen{}
	if _, err := te.UpdateWorkflow(ctx, wf.ID, te.flowRequest(wf.Name, "other", model.Controls{}, other.step(`1`))); err != nil {
		t.Fatal(err)
	}
	x := te.advance(wf, 61*time.Second, model.ExecutionError)
	if n := len(other.all()); n != 0 {
		t.Errorf("a step of the changed workflow ran %d times", n)
	}
	errs := te.events(wf.ID, model.ChannelErrors)
	if len(errs) != 1 || !strings.Contains(string(errs[0].Data), `step \"step1\" is gone`) {
		t.Errorf("the $errors events: %v", errs)
	}
	if te.pausedCount(wf) != 0 || x.Pause != nil {
		t.Errorf("the failed execution is still paused: %d, %+v", te.pausedCount(wf), x.Pause)
	}
}
