package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// TestConcurrentExecutions: with a concurrency of n, n new executions
// run at once, each with a sandbox of its own, and are committed in
// their order.
func TestConcurrentExecutions(t *testing.T) {
	t.Parallel()
	const n = 3
	var mu sync.Mutex
	running, all := 0, make(chan struct{})
	// Each execution waits until n run at once: with fewer at once, the
	// batch would never finish (the deadline fails the test instead).
	gather := func(ctx context.Context, ev json.RawMessage, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
		mu.Lock()
		if running++; running == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(time.Minute):
			return nil, errors.New("the executions did not run at once")
		}
		var in struct {
			Steps struct {
				Trigger struct {
					Event json.RawMessage `json:"event"`
				} `json:"trigger"`
			} `json:"steps"`
		}
		_ = json.Unmarshal(ev, &in)
		return &sandbox.Outcome{Value: in.Steps.Trigger.Event}, nil
	}
	h := newHarness(t, map[string]stepFunc{"gather": gather})
	wf := h.deploy(model.Workflow{Steps: steps("gather"), Controls: model.Controls{Concurrency: n}})
	var invs []model.Invocation
	for i := range n {
		invs = append(invs, model.Invocation{Kind: model.InvocationManual, Event: json.RawMessage(strings.Repeat("1", i+1))})
	}
	if err := h.run(wf.ID, invs...); err != nil {
		t.Fatal(err)
	}
	if h.host.maxHeld != n {
		t.Errorf("%d sandboxes held at once, want %d", h.host.maxHeld, n)
	}
	xs, err := h.store.ListExecutions(context.Background(), wf.ID, 10)
	if err != nil || len(xs) != n {
		t.Fatalf("%d executions (%v)", len(xs), err)
	}
	for i, x := range xs { // newest first
		if want := strings.Repeat("1", n-i); x.Status != model.ExecutionSuccess || string(x.Steps[0].ReturnValue) != want {
			t.Errorf("execution %d: %s returned %s, want %s", i, x.Status, x.Steps[0].ReturnValue, want)
		}
	}
}

// TestExecutionsThatCannotRun: over its quota, or with steps that do not
// load, each execution fails with an $errors event saying why, and an
// inactive workflow's queued executions are dropped; a manual run of one
// still runs.
func TestExecutionsThatCannotRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"ok": returns(`1`)})
	wf := h.deploy(model.Workflow{ID: "p_ok", Steps: steps("ok")})
	broken := h.deploy(model.Workflow{ID: "p_broken", Steps: steps("missing")})

	x := h.trigger(broken.ID, `{}`)
	if x.Status != model.ExecutionError || !strings.Contains(string(h.errors(broken.ID)[0].Data), `"name":"SyntaxError"`) {
		t.Errorf("steps that do not load: %s, %s", x.Status, h.errors(broken.ID)[0].Data)
	}

	h.over = true
	x = h.trigger(wf.ID, `{}`)
	if x.Status != model.ExecutionError || !strings.Contains(string(h.errors(wf.ID)[0].Data), "QuotaExceeded") {
		t.Errorf("over quota: %s, %s", x.Status, h.errors(wf.ID)[0].Data)
	}
	h.over = false

	wf.Active = false
	if _, err := h.store.UpdateWorkflow(context.Background(), wf, nil); err != nil {
		t.Fatal(err)
	}
	before := len(h.errors(wf.ID))
	if err := h.run(wf.ID, model.Invocation{Kind: model.InvocationHTTP, Event: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if xs, _ := h.store.ListExecutions(context.Background(), wf.ID, 10); len(xs) != 1 || len(h.errors(wf.ID)) != before {
		t.Errorf("an inactive workflow ran a queued execution: %d executions", len(xs))
	}
	if x := h.trigger(wf.ID, `{}`); x.Status != model.ExecutionSuccess {
		t.Errorf("a manual run of an inactive workflow: %s", x.Status)
	}
}

// TestAGoneWorkflow: loading a deleted workflow says it is not found,
// and Gone forgets its steps.
func TestAGoneWorkflow(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"ok": returns(`1`)})
	wf := h.deploy(model.Workflow{Steps: steps("ok")})
	h.trigger(wf.ID, `{}`)
	if _, ok := h.r.Account(wf.ID); !ok {
		t.Fatal("the workflow's steps are not held after an execution")
	}
	if err := h.store.DeleteWorkflow(context.Background(), wf.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.r.Load(context.Background(), wf.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Load of a deleted workflow: %v", err)
	}
	h.r.Gone(wf.ID)
	if _, ok := h.r.Account(wf.ID); ok {
		t.Error("Gone kept the workflow's steps")
	}
}

// TestLoadedStepsAreKeptPerVersion: a workflow's steps load once per
// version, and anew after an update.
func TestLoadedStepsAreKeptPerVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t, map[string]stepFunc{"ok": returns(`1`), "two": returns(`2`)})
	wf := h.deploy(model.Workflow{Steps: steps("ok")})
	h.trigger(wf.ID, `{}`)
	h.trigger(wf.ID, `{}`)
	if h.host.loads != 1 {
		t.Errorf("%d loads for two executions of one version, want 1", h.host.loads)
	}
	wf.Steps = steps("ok", "two")
	updated, err := h.store.UpdateWorkflow(context.Background(), wf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x := h.trigger(updated.ID, `{}`); stepNames(x) != "ok:success,two:success" || h.host.loads != 3 {
		t.Errorf("after an update: %s with %d loads, want both steps and 3", stepNames(x), h.host.loads)
	}
}

// TestRecordsAreCapped: a value over the cap is recorded as its size, a
// record over the whole cap loses its values, and EventCut knows the
// marker.
func TestRecordsAreCapped(t *testing.T) {
	t.Parallel()
	large := `"` + strings.Repeat("v", maxRecordedValue) + `"`
	h := newHarness(t, map[string]stepFunc{"large": returns(large)})
	wf := h.deploy(model.Workflow{Steps: steps("large")})
	x := h.trigger(wf.ID, large)
	want := `{"truncated":true,"bytes":` + itoa(len(large)) + `}`
	if string(x.Steps[0].ReturnValue) != want || string(x.Event) != want {
		t.Errorf("recorded %s and event %s, want %s", x.Steps[0].ReturnValue, x.Event, want)
	}
	if !EventCut(x.Event) || EventCut(json.RawMessage(`{"truncated":true,"bytes":3}`)) {
		t.Error("EventCut does not tell the marker from a small event of its shape")
	}
	rec := &model.Execution{}
	for range 40 {
		rec.Steps = append(rec.Steps, model.StepExecution{Name: "s", ReturnValue: json.RawMessage(strings.Repeat("1", maxRecordedValue))})
	}
	capExecution(rec)
	if !rec.Truncated || rec.Steps[0].ReturnValue != nil || !rec.Steps[0].Truncated {
		t.Errorf("a record over %d bytes kept its values", maxExecutionRecord)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAnActionRunOnItsOwn: RunOneOff runs one step with the steps given,
// and reports what it emitted and sent without storing anything.
func TestAnActionRunOnItsOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	step := func(ctx context.Context, ev json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
		if err := caps.Emit.Emit(ctx, abiEmit(`{"e":1}`)); err != nil {
			return nil, err
		}
		if err := caps.DB.Set(ctx, "k", []byte("v")); err != nil {
			return nil, err
		}
		return &sandbox.Outcome{Value: json.RawMessage(string(decodeRun(t, ev).Steps["earlier"]))}, nil
	}
	wf := model.Workflow{ID: "action", OwnerID: "u_a", UserID: "u_a", Steps: steps("action")}
	db := &memDB{}
	out, err := h.r.RunOneOff(context.Background(), wf, &fakeBox{run: step}, nil, map[string]json.RawMessage{"earlier": json.RawMessage(`{"x":1}`)}, db)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Step.ReturnValue) != `{"x":1}` || len(out.Emits) != 1 || string(out.Emits[0]) != `{"e":1}` {
		t.Errorf("one-off: %+v", out)
	}
	if v, ok, _ := db.Get(context.Background(), "k"); !ok || string(v) != "v" {
		t.Error("the step's db is not the one given")
	}
}
