package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

var quiet = slog.New(slog.DiscardHandler)

// stepFunc is a step's code in these tests: what its run does with the
// run event it is given.
type stepFunc func(ctx context.Context, ev json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error)

// returns is a step that returns value (JSON).
func returns(value string) stepFunc {
	return func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Value: json.RawMessage(value)}, nil
	}
}

// throws is a step that throws a TypeError saying msg.
func throws(msg string) stepFunc {
	return func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return nil, &sandbox.ScriptError{GuestError: abi.GuestError{Name: "TypeError", Message: msg, Stack: "TypeError: " + msg + "\n    at run (step.mjs:1:1)"}}
	}
}

// fakeBox is a loaded step that runs a stepFunc.
type fakeBox struct {
	run    stepFunc
	closed atomic.Bool
}

func (b *fakeBox) Invoke(ctx context.Context, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	if b.closed.Load() {
		return nil, sandbox.ErrClosed
	}
	return b.run(ctx, req.Event, caps)
}

func (b *fakeBox) Metadata() *component.Metadata { return &component.Metadata{} }
func (b *fakeBox) Close(context.Context)         { b.closed.Store(true) }

// testHost plays the engine: a step's Code names its stepFunc in steps
// (or, with real set, is loaded in that sandbox); props that are
// {{...}} templates are evaluated per execution, the others are static.
type testHost struct {
	steps map[string]stepFunc
	real  sandbox.Sandbox
	db    memDB

	mu       sync.Mutex
	loads    int
	reserved int // sandboxes held now
	maxHeld  int // the most held at once
}

func (h *testHost) LoadStep(ctx context.Context, wf model.Workflow, step model.WorkflowStep) (sandbox.Source, map[string]string, error) {
	static, templates := map[string]json.RawMessage{}, map[string]string{}
	for name, v := range step.Props {
		var s string
		if json.Unmarshal(v, &s) == nil && strings.Contains(s, "{{") {
			templates[name] = s
		} else {
			static[name] = v
		}
	}
	h.mu.Lock()
	h.loads++
	h.mu.Unlock()
	if h.real != nil {
		props, _ := json.Marshal(static)
		box, err := h.real.Load(ctx, sandbox.Spec{ID: wf.ID, Code: step.RunCode(), Props: props, Step: true})
		return box, templates, err
	}
	run := h.steps[step.Code]
	if run == nil {
		return nil, nil, fmt.Errorf("step %q: %w", step.Name, &codeError{"SyntaxError", "no such test step " + step.Code})
	}
	return &fakeBox{run: run}, templates, nil
}

func (h *testHost) Reserve(context.Context, string, string, sandbox.Limits, time.Time) (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reserved++
	h.maxHeld = max(h.maxHeld, h.reserved)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.reserved--
	}, nil
}

func (h *testHost) Capabilities(model.Workflow, model.WorkflowStep) (sandbox.Capabilities, func(error) error) {
	return sandbox.Capabilities{}, func(err error) error { return err }
}

func (h *testHost) DB(string) sandbox.KV { return &h.db }

func (h *testHost) Channels(string) *emit.Budget {
	return emit.NewBudget(emit.DefaultMaxChannels, func(context.Context) ([]string, error) { return nil, nil })
}

func (h *testHost) MapStack(err error, _ model.Workflow, _ model.WorkflowStep, _ bool) error {
	return err
}

// codeError is the engine's CodeError as the runner sees it.
type codeError struct{ name, message string }

func (e *codeError) Error() string                       { return e.name + ": " + e.message }
func (e *codeError) CodeFailure() (name, message string) { return e.name, e.message }

// memDB is a workflow's $.service.db in memory.
type memDB struct {
	mu     sync.Mutex
	values map[string][]byte
}

func (m *memDB) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.values[key]
	return v, ok, nil
}

func (m *memDB) Set(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.values == nil {
		m.values = map[string][]byte{}
	}
	m.values[key] = value
	return nil
}

// harness is a Runner on a bolt store in a temporary directory, with a
// fake clock and the test host, and a stand-in for the engine's batch
// loop: run commits what a batch of invocations gave.
type harness struct {
	t       testing.TB
	r       *Runner
	host    *testHost
	store   *store.Bolt
	clock   *clock.Fake
	delayed *delayed.Scheduler[model.Target]
	// released are the targets the delayed scheduler released.
	released chan model.Target
	// over says the account is over its quota in the next batches.
	over   bool
	live   []model.Event // what the batches sent to live streams
	liveMu sync.Mutex
}

func newHarness(t testing.TB, steps map[string]stepFunc, configure ...func(*Config)) *harness {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &harness{t: t, store: st, clock: clock.NewFake(), host: &testHost{steps: steps}, released: make(chan model.Target, 16)}
	h.delayed = delayed.New(h.clock, quiet, func(t model.Target) error {
		h.released <- t
		return nil
	})
	cfg := Config{Store: st, Clock: h.clock, Logger: quiet, Host: h.host, Delayed: h.delayed, Throttles: &batch.Throttles{},
		PublicURL: "https://fount.test/", Limits: sandbox.Limits{Timeout: 10 * time.Second}, ExecutionTimeout: time.Minute,
		EventsKept: 100, ExecutionsKept: 100, ExecutionRetryBase: 30 * time.Second, MaxPausedExecutions: 10}
	for _, c := range configure {
		c(&cfg)
	}
	h.r = New(cfg)
	t.Cleanup(h.r.Close)
	return h
}

// deploy stores a workflow of steps, each step's code naming its
// stepFunc.
func (h *harness) deploy(wf model.Workflow) model.Workflow {
	h.t.Helper()
	if wf.ID == "" {
		wf.ID = "p_test"
	}
	wf.OwnerID, wf.UserID, wf.Active = "u_a", "u_a", true
	wf.Name, wf.NameSlug = wf.ID, strings.TrimPrefix(wf.ID, "p_")
	wf.Trigger = model.WorkflowTrigger{Type: model.TriggerManual}
	got, err := h.store.CreateWorkflow(context.Background(), wf, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

// steps are workflow steps named after their codes, in order.
func steps(codes ...string) []model.WorkflowStep {
	out := make([]model.WorkflowStep, len(codes))
	for i, c := range codes {
		out[i] = model.WorkflowStep{Name: c, Kind: model.StepCode, Code: c}
	}
	return out
}

// Commit and Publish make the harness the batch's committer, as the
// engine is: the store's commit (without routing), then the runner told.
func (h *harness) Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error {
	_, err := h.store.CompleteRuns(ctx, runs)
	h.r.Committed(em, runs, err == nil)
	return err
}

func (h *harness) Publish(events []model.Event) {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	h.live = append(h.live, events...)
}

// run runs one batch of invs of workflow id, as the batch loop does, and
// commits it.
func (h *harness) run(id string, invs ...model.Invocation) error {
	h.t.Helper()
	ctx := context.Background()
	for i := range invs {
		invs[i].TargetID, invs[i].TargetKind = id, model.TargetWorkflow
		if invs[i].ID == "" {
			queued, err := h.store.EnqueueInvocation(ctx, invs[i])
			if err != nil {
				h.t.Fatal(err)
			}
			invs[i] = queued
		}
	}
	loaded, err := h.r.Load(ctx, id)
	if err != nil {
		return err
	}
	defer loaded.Release()
	turn := &batch.Turn{Invs: invs, Waiters: make([]*ingress.Waiter, len(invs)), Today: batch.Day(h.clock.Now()), Over: h.over,
		Pending: batch.NewPending(h, loaded.Emitter())}
	if err := loaded.Run(ctx, turn); err != nil {
		return turn.Pending.KeepAfter(ctx, err)
	}
	return turn.Pending.Commit(ctx)
}

// trigger runs a new execution of workflow id on event, and returns its
// record.
func (h *harness) trigger(id, event string) model.Execution {
	h.t.Helper()
	if err := h.run(id, model.Invocation{Kind: model.InvocationManual, Event: json.RawMessage(event)}); err != nil {
		h.t.Fatal(err)
	}
	return h.newest(id)
}

// newest is workflow id's newest execution record.
func (h *harness) newest(id string) model.Execution {
	h.t.Helper()
	xs, err := h.store.ListExecutions(context.Background(), id, 1)
	if err != nil || len(xs) == 0 {
		h.t.Fatalf("executions of %s: %v, %d", id, err, len(xs))
	}
	return xs[0]
}

// errors are the events of workflow id's $errors channel, newest first.
func (h *harness) errors(id string) []model.Event {
	h.t.Helper()
	evs, err := h.store.ListEvents(context.Background(), id, model.ChannelErrors, 100)
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

// release runs what the delayed scheduler finds due by now: the release
// invocation of each workflow it names.
func (h *harness) release() {
	h.t.Helper()
	h.delayed.ReleaseDue(h.clock.Now())
	for {
		select {
		case t := <-h.released:
			if err := h.run(t.ID, model.Invocation{Kind: model.InvocationRelease}); err != nil {
				h.t.Fatal(err)
			}
		default:
			return
		}
	}
}

// abiEmit is an emit of event.
func abiEmit(event string) abi.Emit { return abi.Emit{Event: json.RawMessage(event)} }
