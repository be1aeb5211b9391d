package source

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
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
	"github.com/fount-dev/fount/internal/wait"
)

// runFunc is a source's run in these tests.
type runFunc func(ctx context.Context, ev json.RawMessage, caps sandbox.Capabilities) error

// emits is a run that emits each of events (JSON objects with an "id").
func emits(events ...string) runFunc {
	return func(ctx context.Context, _ json.RawMessage, caps sandbox.Capabilities) error {
		for _, ev := range events {
			var id struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal([]byte(ev), &id)
			if err := caps.Emit.Emit(ctx, abi.Emit{Event: json.RawMessage(ev), ID: json.RawMessage(`"` + id.ID + `"`)}); err != nil {
				return err
			}
		}
		return nil
	}
}

// box is a loaded source that calls the host's run.
type box struct {
	h      *testHost
	closed bool
}

func (b *box) Invoke(ctx context.Context, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	b.h.mu.Lock()
	closed, run, fail := b.closed, b.h.run, b.h.failNext
	b.h.failNext = nil
	b.h.mu.Unlock()
	switch {
	case closed:
		return nil, sandbox.ErrClosed
	case fail != nil:
		return nil, fail
	}
	return &sandbox.Outcome{}, run(ctx, req.Event, caps)
}

func (b *box) Metadata() *component.Metadata { return &component.Metadata{} }

func (b *box) Close(context.Context) {
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	b.closed = true
}

// testHost plays the engine: every source runs run; Commit stores runs
// as the engine does, without routing.
type testHost struct {
	store *store.Bolt

	mu       sync.Mutex
	run      runFunc
	failNext error         // the next call's error, once
	builds   int           // sandboxes built
	building chan struct{} // when set, Build waits for it to close
	boxes    []*box
}

func (h *testHost) Build(ctx context.Context, src model.Source, comp model.Component) (sandbox.Source, error) {
	h.mu.Lock()
	wait := h.building
	h.mu.Unlock()
	if wait != nil {
		<-wait
	}
	if strings.Contains(comp.Code, "syntax error") {
		return nil, errors.New("SyntaxError: unexpected token")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.builds++
	b := &box{h: h}
	h.boxes = append(h.boxes, b)
	return b, nil
}

func (h *testHost) Invoke(ctx context.Context, _, _ string, b sandbox.Source, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	return b.Invoke(ctx, req, caps)
}

func (h *testHost) Capabilities(_ *Live, c *emit.Collector) (sandbox.Capabilities, func(error) error) {
	return sandbox.Capabilities{Emit: c, Log: c}, func(err error) error { return err }
}

func (h *testHost) Channels(string) *emit.Budget {
	return emit.NewBudget(emit.DefaultMaxChannels, func(context.Context) ([]string, error) { return nil, nil })
}

func (h *testHost) MapStack(err error, _ *Live) error { return err }

func (h *testHost) Commit(ctx context.Context, _ model.Emitter, runs []store.CompletedRun) error {
	_, err := h.store.CompleteRuns(ctx, runs)
	return err
}

// harness is a Runner on a bolt store with a fake clock.
type harness struct {
	t     *testing.T
	r     *Runner
	host  *testHost
	store *store.Bolt
	clock *clock.Fake
	due   *delayed.Scheduler[model.Target]
	over  bool // the next batches' account is over its quota
}

func newHarness(t *testing.T, run runFunc) *harness {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &harness{t: t, store: st, clock: clock.NewFake(), host: &testHost{store: st, run: run}}
	log := slog.New(slog.DiscardHandler)
	h.due = delayed.New(h.clock, log, func(model.Target) error { return nil })
	h.r = New(Config{Store: st, Queues: st, Clock: h.clock, Logger: log, Host: h.host, Delayed: h.due, EventsKept: 100})
	t.Cleanup(h.r.Close)
	return h
}

// deploy stores an active source of a component with code and dedupe.
func (h *harness) deploy(code, dedupe string) model.Source {
	h.t.Helper()
	ctx := context.Background()
	comp, err := h.store.CreateComponent(ctx, model.Component{ID: "sc_" + strings.ReplaceAll(code, " ", ""), OwnerID: "u_a", Code: code,
		Metadata: component.Metadata{Name: "test", Key: "test", Version: "1.0.0", Type: component.KindSource, Dedupe: dedupe}})
	if err != nil {
		h.t.Fatal(err)
	}
	src, _, err := h.store.CreateSource(ctx, model.Source{ID: "dc_test", OwnerID: "u_a", UserID: "u_a", ComponentID: comp.ID, Name: "test", NameSlug: "test", Active: true}, store.RunCommit{})
	if err != nil {
		h.t.Fatal(err)
	}
	return src
}

// run queues invs for source id and runs one batch of its queue, as the
// batch loop does.
func (h *harness) run(id string, invs ...model.Invocation) error {
	h.t.Helper()
	ctx := context.Background()
	for i := range invs {
		invs[i].TargetID, invs[i].TargetKind = id, model.TargetSource
		queued, err := h.store.EnqueueInvocation(ctx, invs[i])
		if err != nil {
			h.t.Fatal(err)
		}
		invs[i] = queued
	}
	invs, err := h.store.PendingInvocations(ctx, id, batch.Size)
	if err != nil {
		h.t.Fatal(err)
	}
	loaded, err := h.r.Load(ctx, id)
	if err != nil {
		return h.r.LoadFailed(ctx, id, invs, err)
	}
	defer loaded.Release()
	turn := &batch.Turn{Invs: invs, Waiters: make([]*ingress.Waiter, len(invs)), Today: batch.Day(h.clock.Now()), Over: h.over,
		Pending: batch.NewPending(h, loaded.Emitter())}
	if err := loaded.Run(ctx, turn); err != nil {
		return turn.Pending.KeepAfter(ctx, err)
	}
	return turn.Pending.Commit(ctx)
}

func (h *harness) Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error {
	return h.host.Commit(ctx, em, runs)
}

func (h *harness) Publish([]model.Event) {}

func invocation(kind model.InvocationKind, event string) model.Invocation {
	inv := model.Invocation{Kind: kind}
	if event != "" {
		inv.Event = json.RawMessage(event)
	}
	return inv
}

// events are the data of a source's events on channel, oldest first.
func (h *harness) events(id, channel string) []string {
	h.t.Helper()
	evs, err := h.store.ListEvents(context.Background(), id, channel, 100)
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[len(evs)-1-i] = string(ev.Data)
	}
	return out
}

// TestRunsEmitWithTheirDedupe: runs store what they emit, and the
// source's dedupe state carries from one run to the next.
func TestRunsEmitWithTheirDedupe(t *testing.T) {
	t.Parallel()
	h := newHarness(t, emits(`{"id":"a"}`, `{"id":"b"}`))
	src := h.deploy("run", component.DedupeUnique)
	if err := h.run(src.ID, invocation(model.InvocationHTTP, `{}`), invocation(model.InvocationHTTP, `{}`)); err != nil {
		t.Fatal(err)
	}
	if got := h.events(src.ID, ""); strings.Join(got, " ") != `{"id":"a"} {"id":"b"}` {
		t.Errorf("events %v, want a and b once", got)
	}
	if err := h.run(src.ID, invocation(model.InvocationTimer, `{}`)); err != nil {
		t.Fatal(err)
	}
	if got := h.events(src.ID, ""); len(got) != 2 {
		t.Errorf("a later batch emitted %v again", got[2:])
	}
	if h.host.builds != 1 {
		t.Errorf("%d sandboxes built for one source, want 1", h.host.builds)
	}
}

// TestRunsThatEmitNothing: a run that throws, of an account over its
// quota, commits an $errors event; an inactive source's queued runs
// commit nothing, but a manual run of it runs.
func TestRunsThatEmitNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		run    runFunc
		over   bool
		active bool
		kind   model.InvocationKind
		events int
		errors string
	}{
		{"throws", func(context.Context, json.RawMessage, sandbox.Capabilities) error {
			return &sandbox.ScriptError{GuestError: abi.GuestError{Name: "TypeError", Message: "bad"}}
		}, false, true, model.InvocationHTTP, 0, "TypeError"},
		{"over its quota", emits(`{"id":"a"}`), true, true, model.InvocationHTTP, 0, "quota"},
		{"inactive", emits(`{"id":"a"}`), false, false, model.InvocationHTTP, 0, ""},
		{"inactive, run by hand", emits(`{"id":"a"}`), false, false, model.InvocationManual, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.run)
			src := h.deploy("run", "")
			if !tc.active {
				src.Active = false
				if _, err := h.store.UpdateSource(context.Background(), src, store.RunCommit{}); err != nil {
					t.Fatal(err)
				}
			}
			h.over = tc.over
			if err := h.run(src.ID, invocation(tc.kind, `{}`)); err != nil {
				t.Fatal(err)
			}
			if got := h.events(src.ID, ""); len(got) != tc.events {
				t.Errorf("%d events, want %d", len(got), tc.events)
			}
			errs := h.events(src.ID, model.ChannelErrors)
			if (tc.errors == "") != (len(errs) == 0) || (len(errs) > 0 && !strings.Contains(errs[0], tc.errors)) {
				t.Errorf("$errors %v, want one naming %q", errs, tc.errors)
			}
		})
	}
}

// TestALostSandboxIsBuiltAgain: a run whose sandbox lost its snapshot
// stops the batch to run again on a sandbox built anew.
func TestALostSandboxIsBuiltAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, emits(`{"id":"a"}`))
	src := h.deploy("run", "")
	h.host.failNext = sandbox.ErrLost
	if err := h.run(src.ID, invocation(model.InvocationHTTP, `{}`)); !errors.Is(err, batch.ErrSwapped) {
		t.Fatalf("a lost sandbox: %v, want ErrSwapped", err)
	}
	if h.r.Loaded(src.ID) != nil || !h.host.boxes[0].closed {
		t.Fatal("the lost sandbox is still live")
	}
	if err := h.run(src.ID); err != nil {
		t.Fatal(err)
	}
	if h.host.builds != 2 || len(h.events(src.ID, "")) != 1 {
		t.Errorf("%d builds, events %v; want the run again on a new sandbox", h.host.builds, h.events(src.ID, ""))
	}
}

// TestALoadRacedByAChange: a source forgotten (updated or deleted) while
// it loads is not installed: the load says so, and its sandbox closes.
func TestALoadRacedByAChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t, emits())
	src := h.deploy("run", "")
	h.host.building = make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := h.r.Live(context.Background(), src.ID)
		done <- err
	}()
	// Forget only once the load has its ticket: Build is then waiting.
	wait.Until(t, "the load to begin", time.Minute, func() bool {
		h.r.live.mu.Lock()
		defer h.r.live.mu.Unlock()
		return len(h.r.live.loading[src.ID]) > 0
	})
	h.r.Forget(src.ID)
	close(h.host.building)
	if err := <-done; !errors.Is(err, batch.ErrSwapped) {
		t.Fatalf("a raced load: %v, want ErrSwapped", err)
	}
	if h.r.Loaded(src.ID) != nil || h.r.Count() != 0 || !h.host.boxes[0].closed {
		t.Error("the raced load's sandbox was kept")
	}
}

// TestDelayedEmitsAreReleasedWhenDue: an emit with a future delivery_ts
// waits on $in and is moved to its channel by the release after it is
// due, not before; LoadDelayed notes it again after a restart.
func TestDelayedEmitsAreReleasedWhenDue(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	due := h.clock.Now().Add(time.Hour).UnixMilli()
	h.host.run = func(ctx context.Context, _ json.RawMessage, caps sandbox.Capabilities) error {
		return caps.Emit.Emit(ctx, abi.Emit{Event: json.RawMessage(`{"later":true}`), Name: "out", DeliveryTS: &due})
	}
	src := h.deploy("run", "")
	if err := h.run(src.ID, invocation(model.InvocationHTTP, `{}`)); err != nil {
		t.Fatal(err)
	}
	if len(h.events(src.ID, model.ChannelDelayed)) != 1 || len(h.events(src.ID, "out")) != 0 {
		t.Fatal("the delayed emit is not waiting")
	}
	if err := h.run(src.ID, invocation(model.InvocationRelease, ``)); err != nil {
		t.Fatal(err)
	}
	if len(h.events(src.ID, "out")) != 0 {
		t.Fatal("released before it was due")
	}
	h.clock.Advance(time.Hour)
	h.due.Forget(model.SourceTarget(src.ID)) // as after a restart
	if err := h.r.LoadDelayed(context.Background(), src.ID); err != nil {
		t.Fatal(err)
	}
	if got := h.due.Due(model.SourceTarget(src.ID)); got != due {
		t.Errorf("LoadDelayed noted %d, want %d", got, due)
	}
	if err := h.run(src.ID, invocation(model.InvocationRelease, ``)); err != nil {
		t.Fatal(err)
	}
	if got := h.events(src.ID, "out"); len(got) != 1 || got[0] != `{"later":true}` || len(h.events(src.ID, model.ChannelDelayed)) != 0 {
		t.Errorf("after it was due: out %v, still waiting %d", got, len(h.events(src.ID, model.ChannelDelayed)))
	}
}

// TestAStoredSourceThatDoesNotLoad: each of its invocations ends with an
// $errors event saying why.
func TestAStoredSourceThatDoesNotLoad(t *testing.T) {
	t.Parallel()
	h := newHarness(t, emits())
	src := h.deploy("syntax error", "")
	if err := h.run(src.ID, invocation(model.InvocationHTTP, `{}`), invocation(model.InvocationHTTP, `{}`)); err != nil {
		t.Fatal(err)
	}
	errs := h.events(src.ID, model.ChannelErrors)
	if len(errs) != 2 || !strings.Contains(errs[0], "unexpected token") {
		t.Errorf("$errors %v, want one per invocation naming the failure", errs)
	}
	if err := h.r.LoadFailed(context.Background(), src.ID, nil, batch.ErrSwapped); !errors.Is(err, batch.ErrSwapped) {
		t.Errorf("a raced load: %v, want it returned to leave the batch queued", err)
	}
}
