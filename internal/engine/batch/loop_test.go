package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// testLoop is a Loop over a bolt store with a fake clock, whose host
// records what the loop asked of it, and whose one runner runs each
// invocation with run.
type testLoop struct {
	*Loop
	store *store.Bolt
	clock *clock.Fake

	mu        sync.Mutex
	notOwned  bool
	kicks     []time.Duration
	commits   [][]string // the invocation ids of each commit
	gone      []string
	loadErr   error
	controls  model.Controls
	run       func(inv model.Invocation) (store.RunCommit, error)
	overToday []bool // Turn.Over of each batch
	released  int
	woken     []model.Target
	delivered int
}

func newTestLoop(t *testing.T) *testLoop {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFake()
	tl := &testLoop{store: st, clock: clk, run: func(model.Invocation) (store.RunCommit, error) { return store.RunCommit{}, nil }}
	log := slog.New(slog.DiscardHandler)
	tl.Loop = &Loop{Clock: clk, Store: st, Queues: st, Delayed: delayed.New(clk, log, func(model.Target) error { return nil }),
		Ahead: NewAhead(clk), Throttles: &Throttles{}, Quotas: NewQuotas(clk, st, st, 0, 0), Host: tl, Log: log, MaxHops: 2, EventsKept: 100}
	return tl
}

func (tl *testLoop) Owns(string) bool { return !tl.notOwned }

func (tl *testLoop) Kick(_ model.Target, wait time.Duration) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.kicks = append(tl.kicks, wait)
}

func (tl *testLoop) Waiter(model.Invocation) *ingress.Waiter { return nil }

func (tl *testLoop) Committed(_ model.Emitter, runs []store.CompletedRun, ok bool) {
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.Invocation.ID)
	}
	if ok {
		tl.commits = append(tl.commits, ids)
	}
}

func (tl *testLoop) Wake(t model.Target) { tl.woken = append(tl.woken, t) }

func (tl *testLoop) Deliver() { tl.delivered++ }

func (tl *testLoop) Publish([]model.Event) {}

func (tl *testLoop) Runner(model.Target) Runner { return testRunner{tl} }

type testRunner struct{ tl *testLoop }

func (r testRunner) Load(context.Context, string) (Loaded, error) {
	if r.tl.loadErr != nil {
		return nil, r.tl.loadErr
	}
	return testLoaded(r), nil
}

func (r testRunner) LoadFailed(_ context.Context, _ string, _ []model.Invocation, err error) error {
	return fmt.Errorf("load failed: %w", err)
}

func (r testRunner) Gone(id string) { r.tl.gone = append(r.tl.gone, id) }

type testLoaded struct{ tl *testLoop }

func (l testLoaded) Emitter() model.Emitter {
	return model.Emitter{ID: "dc_a", Kind: model.TargetSource, OwnerID: "u_a", UserID: "u_a"}
}
func (l testLoaded) Controls() model.Controls { return l.tl.controls }
func (l testLoaded) Release()                 { l.tl.released++ }

func (l testLoaded) Run(ctx context.Context, t *Turn) error {
	l.tl.overToday = append(l.tl.overToday, t.Over)
	for _, inv := range t.Invs {
		c, err := l.tl.run(inv)
		if err != nil {
			return err
		}
		if err := t.Pending.Add(ctx, store.CompletedRun{Invocation: inv, Commit: c}, CommitBytes(c)); err != nil {
			return err
		}
	}
	return nil
}

var target = model.SourceTarget("dc_a")

// enqueue queues n invocations of target of kind.
func (tl *testLoop) enqueue(t *testing.T, n int, kind model.InvocationKind) []string {
	t.Helper()
	var ids []string
	for i := range n {
		inv, err := tl.store.EnqueueInvocation(context.Background(), model.NewInvocation(target, kind, json.RawMessage(fmt.Sprint(i))))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inv.ID)
	}
	return ids
}

func (tl *testLoop) queued(t *testing.T) int {
	t.Helper()
	invs, err := tl.store.PendingInvocations(context.Background(), target.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return len(invs)
}

// TestDrainRunsABatchInOrder: a turn runs the queue's invocations in
// order, commits them once, and asks for another turn; an empty queue
// asks for none.
func TestDrainRunsABatchInOrder(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	ids := tl.enqueue(t, 3, model.InvocationHTTP)
	var ran []string
	tl.run = func(inv model.Invocation) (store.RunCommit, error) {
		ran = append(ran, inv.ID)
		return store.RunCommit{}, nil
	}
	tl.Drain(context.Background(), target)
	if strings.Join(ran, ",") != strings.Join(ids, ",") || len(tl.commits) != 1 || len(tl.commits[0]) != 3 {
		t.Fatalf("ran %v, commits %v; want %v in one commit", ran, tl.commits, ids)
	}
	if tl.queued(t) != 0 || len(tl.kicks) != 1 || tl.kicks[0] != 0 || tl.released != 1 {
		t.Fatalf("queued %d, kicks %v, released %d", tl.queued(t), tl.kicks, tl.released)
	}
	tl.Drain(context.Background(), target)
	if len(tl.kicks) != 1 {
		t.Errorf("an empty queue asked for another turn: %v", tl.kicks)
	}
}

// TestDrainOfATargetThatCannotRun: another node's target is left to it,
// a gone target's work is dropped, and one whose load fails stays queued
// and is tried again after RetryDelay.
func TestDrainOfATargetThatCannotRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		set      func(*testLoop)
		queued   int
		kicks    []time.Duration
		gone     int
		released int
	}{
		{"not owned", func(tl *testLoop) { tl.notOwned = true }, 2, nil, 0, 0},
		{"gone", func(tl *testLoop) { tl.loadErr = fmt.Errorf("source: %w", model.ErrNotFound) }, 0, []time.Duration{0}, 1, 0},
		{"failing to load", func(tl *testLoop) { tl.loadErr = errors.New("store down") }, 2, []time.Duration{RetryDelay}, 0, 0},
		{"swapped", func(tl *testLoop) { tl.loadErr = ErrSwapped }, 2, []time.Duration{0}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl := newTestLoop(t)
			tl.enqueue(t, 2, model.InvocationHTTP)
			tc.set(tl)
			tl.Drain(context.Background(), target)
			if got := tl.queued(t); got != tc.queued || fmt.Sprint(tl.kicks) != fmt.Sprint(tc.kicks) || len(tl.gone) != tc.gone || tl.released != tc.released {
				t.Errorf("queued %d, kicks %v, gone %v, released %d; want %d, %v, %d, %d", got, tl.kicks, tl.gone, tl.released, tc.queued, tc.kicks, tc.gone, tc.released)
			}
		})
	}
}

// TestAFailedRunKeepsWhatFinished: a run that fails stops the batch,
// commits what finished before it, and leaves the rest queued for a
// retry.
func TestAFailedRunKeepsWhatFinished(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	ids := tl.enqueue(t, 3, model.InvocationHTTP)
	tl.run = func(inv model.Invocation) (store.RunCommit, error) {
		if inv.ID == ids[1] {
			return store.RunCommit{}, errors.New("the sandbox failed")
		}
		return store.RunCommit{}, nil
	}
	tl.Drain(context.Background(), target)
	if len(tl.commits) != 1 || strings.Join(tl.commits[0], ",") != ids[0] || tl.queued(t) != 2 {
		t.Errorf("commits %v, %d queued; want the first committed, two queued", tl.commits, tl.queued(t))
	}
	if len(tl.kicks) != 1 || tl.kicks[0] != RetryDelay {
		t.Errorf("kicks %v, want one after %v", tl.kicks, RetryDelay)
	}
}

// TestAThrottleHoldsBackTheRest: a throttle lets its limit start and
// holds the rest queued until its window closes; releases and resumes
// pass it.
func TestAThrottleHoldsBackTheRest(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	tl.controls.Throttle = &model.Throttle{Limit: 2, IntervalSeconds: 60}
	tl.enqueue(t, 1, model.InvocationRelease)
	tl.enqueue(t, 4, model.InvocationHTTP)
	tl.Drain(context.Background(), target)
	if len(tl.commits) != 1 || len(tl.commits[0]) != 3 || tl.queued(t) != 2 {
		t.Fatalf("commits %v, %d queued; want the release and two runs committed, two queued", tl.commits, tl.queued(t))
	}
	if len(tl.kicks) != 1 || tl.kicks[0] != time.Minute {
		t.Errorf("kicks %v, want one when the window closes", tl.kicks)
	}
	tl.Drain(context.Background(), target)
	if tl.queued(t) != 2 {
		t.Error("the throttle let more start within its window")
	}
	tl.clock.Advance(time.Minute)
	tl.Drain(context.Background(), target)
	if tl.queued(t) != 0 {
		t.Errorf("%d still queued after the window closed", tl.queued(t))
	}
}

// TestABatchIsCommittedAsItGrows: runs whose results pass MaxBytes are
// committed before the next one runs.
func TestABatchIsCommittedAsItGrows(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	tl.enqueue(t, 5, model.InvocationHTTP)
	big := strings.Repeat("x", MaxBytes/2)
	tl.run = func(model.Invocation) (store.RunCommit, error) {
		return store.RunCommit{Events: []model.Event{{Name: "big", Data: json.RawMessage(`"` + big + `"`)}}, Keep: 10}, nil
	}
	tl.Drain(context.Background(), target)
	if len(tl.commits) != 3 || len(tl.commits[0]) != 2 || len(tl.commits[2]) != 1 {
		t.Errorf("commits %v, want two runs each then the last", tl.commits)
	}
}

// TestAnAccountOverItsQuota: a free account over its daily quota runs
// its batch with Over set.
func TestAnAccountOverItsQuota(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	if err := tl.store.CreateUser(context.Background(), model.User{ID: "u_a", Username: "a", Plan: model.PlanFree}, "hash"); err != nil {
		t.Fatal(err)
	}
	tl.enqueue(t, 1, model.InvocationHTTP)
	tl.Drain(context.Background(), target)
	if len(tl.overToday) != 1 || !tl.overToday[0] {
		t.Errorf("Over %v, want true with a quota of 0", tl.overToday)
	}
}

// TestACommitRoutesItsEvents: a commit queues the invocations of the
// emitter's listeners and wakes them, stops a chain at the hop bound with
// an $errors event, and notes its delayed emits.
func TestACommitRoutesItsEvents(t *testing.T) {
	t.Parallel()
	tl := newTestLoop(t)
	ctx := context.Background()
	if _, err := tl.store.PutSubscription(ctx, model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_a", ListenerID: "dc_b", ListenerKind: model.ListenerSource}); err != nil {
		t.Fatal(err)
	}
	due := tl.clock.Now().Add(time.Hour).UnixMilli()
	delayed, _ := json.Marshal(map[string]any{"v": 1, "due_ms": due, "event": map[string]int{"n": 1}})
	tl.run = func(inv model.Invocation) (store.RunCommit, error) {
		return store.RunCommit{Keep: 10, Events: []model.Event{
			{Name: "", EmitID: "e" + inv.ID, Data: json.RawMessage(`{"n":1}`)},
			{Name: model.ChannelDelayed, EmitID: "d" + inv.ID, Data: delayed},
		}}, nil
	}
	first, err := tl.store.EnqueueInvocation(ctx, model.NewInvocation(target, model.InvocationHTTP, nil))
	if err != nil {
		t.Fatal(err)
	}
	tl.Drain(ctx, target)
	listener, err := tl.store.PendingInvocations(ctx, "dc_b", 10)
	if err != nil || len(listener) != 1 || listener[0].Hops != first.Hops+1 {
		t.Fatalf("the listener's queue: %+v (%v), want one invocation a hop further", listener, err)
	}
	if len(tl.woken) != 1 || tl.woken[0] != model.SourceTarget("dc_b") {
		t.Errorf("woken %v, want the listener", tl.woken)
	}
	if got := tl.Delayed.Due(target); got != due {
		t.Errorf("delayed emit noted at %d, want %d", got, due)
	}

	at := model.NewInvocation(target, model.InvocationEvent, nil)
	at.Hops = tl.MaxHops
	if _, err := tl.store.EnqueueInvocation(ctx, at); err != nil {
		t.Fatal(err)
	}
	tl.Drain(ctx, target)
	if again, _ := tl.store.PendingInvocations(ctx, "dc_b", 10); len(again) != 1 {
		t.Errorf("a run at the hop bound delivered further: %d queued for the listener", len(again))
	}
	errs, err := tl.store.ListEvents(ctx, "dc_a", model.ChannelErrors, 10)
	if err != nil || len(errs) != 1 || !strings.Contains(string(errs[0].Data), "limit of 2 hops") {
		t.Errorf("$errors %+v (%v), want the hop limit's", errs, err)
	}
}
