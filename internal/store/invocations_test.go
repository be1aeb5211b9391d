package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/model"
)

// mustEnqueue enqueues an invocation of kind "http" for source.
func mustEnqueue(t *testing.T, b testStore, source string) model.Invocation {
	t.Helper()
	inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: source, Kind: "http", Event: json.RawMessage(`{"n":1}`)})
	if err != nil {
		t.Fatalf("EnqueueInvocation(%s): %v", source, err)
	}
	return inv
}

func invIDs(list []model.Invocation) []string {
	ids := []string{}
	for _, inv := range list {
		ids = append(ids, inv.ID)
	}
	return ids
}

func TestEnqueueInvocationOrder(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, 5000)
		order := []string{"dc_b", "dc_a", "dc_b", "dc_c", "dc_b", "dc_a"}
		var all []model.Invocation
		for i, src := range order {
			clock.set(time.UnixMilli(5000 + int64(i)))
			in := model.Invocation{TargetID: src, Kind: "timer", Event: json.RawMessage(fmt.Sprint(i)), Hops: i}
			got, err := b.EnqueueInvocation(ctx, in)
			wantErr(t, "EnqueueInvocation", err, nil)
			want := in
			want.ID, want.EnqueuedAtMs = got.ID, 5000+int64(i)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("EnqueueInvocation = %+v, want %+v", got, want)
			}
			if len(all) > 0 && must(strconv.ParseUint(got.ID, 10, 64)) <= must(strconv.ParseUint(all[len(all)-1].ID, 10, 64)) {
				t.Fatalf("invocation id %s after %s: ids must increase", got.ID, all[len(all)-1].ID)
			}
			all = append(all, got)
		}
		byID := map[string]model.Invocation{}
		for _, inv := range all {
			byID[inv.ID] = inv
		}
		tests := []struct {
			source string
			limit  int
			want   []int // of order, from 1
		}{
			{"dc_b", 0, []int{1, 3, 5}},
			{"dc_b", 2, []int{1, 3}},
			{"dc_a", 10, []int{2, 6}},
			{"dc_c", -1, []int{4}},
			{"dc_zz", 0, nil},
			{"", 0, nil},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s limit %d", tt.source, tt.limit), func(t *testing.T) {
				got, err := b.PendingInvocations(ctx, tt.source, tt.limit)
				wantErr(t, "PendingInvocations", err, nil)
				want := []string{}
				for _, i := range tt.want {
					want = append(want, all[i-1].ID)
				}
				if !slices.Equal(invIDs(got), want) {
					t.Fatalf("PendingInvocations = %v, want %v", invIDs(got), want)
				}
				for _, inv := range got {
					if !reflect.DeepEqual(inv, byID[inv.ID]) {
						t.Errorf("stored %+v, enqueued %+v", inv, byID[inv.ID])
					}
				}
			})
		}
		if _, err := b.EnqueueInvocation(ctx, model.Invocation{Kind: "http"}); err == nil {
			t.Error("EnqueueInvocation with an empty source succeeded")
		}
	})
}

func TestEnqueueInvocationConcurrent(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		var mu sync.Mutex
		seen := map[string]bool{}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for range 10 {
					inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: fmt.Sprint("dc_", g%3), Kind: "http"})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					seen[inv.ID] = true
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 80 {
			t.Fatalf("%d distinct ids, want 80", len(seen))
		}
		total := 0
		for _, target := range must(b.TargetsWithPending(ctx)) {
			src := target.ID
			list := must(b.PendingInvocations(ctx, src, 1000))
			for i := 1; i < len(list); i++ {
				if must(strconv.Atoi(list[i-1].ID)) >= must(strconv.Atoi(list[i].ID)) {
					t.Errorf("%s: %s listed before %s", src, list[i-1].ID, list[i].ID)
				}
			}
			total += len(list)
		}
		if total != 80 {
			t.Errorf("%d invocations pending, want 80", total)
		}
	})
}

// TestTargetsWithPending: the sources and workflows with queued
// invocations, each named with its kind: as the invocation says, or for
// one queued before invocations named it (mustEnqueue's), as its id does.
func TestTargetsWithPending(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		invs := map[string][]model.Invocation{}
		for _, src := range []string{"dc_2", "dc_1", "dc_3", "dc_2"} {
			invs[src] = append(invs[src], mustEnqueue(t, b, src))
		}
		flow, err := b.EnqueueInvocation(ctx, model.NewInvocation(model.WorkflowTarget("p_1"), model.InvocationManual, json.RawMessage(`{}`)))
		wantErr(t, "enqueue a workflow's invocation", err, nil)
		src := model.SourceTarget
		steps := []struct {
			name     string
			complete model.Invocation
			want     []model.Target
		}{
			{"all queued", model.Invocation{}, []model.Target{src("dc_1"), src("dc_2"), src("dc_3"), model.WorkflowTarget("p_1")}},
			{"dc_1 done", invs["dc_1"][0], []model.Target{src("dc_2"), src("dc_3"), model.WorkflowTarget("p_1")}},
			{"one of dc_2 done", invs["dc_2"][0], []model.Target{src("dc_2"), src("dc_3"), model.WorkflowTarget("p_1")}},
			{"dc_2 done", invs["dc_2"][1], []model.Target{src("dc_3"), model.WorkflowTarget("p_1")}},
			{"dc_3 done", invs["dc_3"][0], []model.Target{model.WorkflowTarget("p_1")}},
			{"p_1 done", flow, []model.Target{}},
		}
		for _, st := range steps {
			if st.complete.ID != "" {
				if _, err := b.CompleteRun(ctx, st.complete, RunCommit{}); err != nil {
					t.Fatalf("%s: CompleteRun: %v", st.name, err)
				}
			}
			got, err := b.TargetsWithPending(ctx)
			wantErr(t, st.name, err, nil)
			if !slices.Equal(got, st.want) {
				t.Errorf("%s: TargetsWithPending = %v, want %v", st.name, got, st.want)
			}
		}
		// A source queues again after its queue emptied.
		mustEnqueue(t, b, "dc_1")
		if got := must(b.TargetsWithPending(ctx)); !slices.Equal(got, []model.Target{src("dc_1")}) {
			t.Errorf("TargetsWithPending after re-enqueue = %v", got)
		}
	})
}

// routeTo routes each event to one invocation of listener and one
// delivery to hook, recording the events it saw.
func routeTo(listener, hook string, seen *[]model.Event) func(model.Event) Routed {
	return func(e model.Event) Routed {
		*seen = append(*seen, e)
		return Routed{
			Invocations: []model.Invocation{{TargetID: listener, Kind: "event", Event: e.Data, Hops: 1}},
			Deliveries: []model.Delivery{{ListenerID: hook, EmitterID: e.EmitterID, EventID: e.ID, Channel: e.Name,
				Payload: e.Data}},
		}
	}
}

func TestCompleteRun(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		mustWebhook(t, b, "wh_1")
		clock := withClock(b, 7000)
		mustAppend(t, b, "dc_1", evs("", 2), 0) // 7000-0, 7000-1
		inv := mustEnqueue(t, b, "dc_1")
		other := mustEnqueue(t, b, "dc_1")
		clock.set(time.UnixMilli(7000)) // same ms: ids continue the sequence

		greatest := 42.0
		dedupe := model.DedupeState{Unique: []string{"a", "b"}, Greatest: &greatest, Last: "b"}
		var seen []model.Event
		commit := RunCommit{
			Events:       []model.Event{{Name: "", EmitID: "x"}, {Name: "$logs", EmitID: "y"}, {Name: "", EmitID: "z"}},
			Keep:         3,
			Route:        routeTo("dc_9", "wh_1", &seen),
			Dedupe:       &dedupe,
			UsageAccount: "u_a",
			UsageDay:     "2024-01-02",
			Invocations:  1,
			ComputeMs:    17,
		}
		got, err := b.CompleteRun(ctx, inv, commit)
		wantErr(t, "CompleteRun", err, nil)
		wantIDs := []string{"7000-2", "7000-3", "7000-4"}
		if ids := eventIDs(got); !slices.Equal(ids, wantIDs) {
			t.Fatalf("CompleteRun ids = %v, want %v", ids, wantIDs)
		}
		for _, e := range got {
			if e.EmitterID != "dc_1" || e.IndexedAtMs != 7000 {
				t.Errorf("event %s: emitter %q, indexed at %d", e.ID, e.EmitterID, e.IndexedAtMs)
			}
		}
		if commit.Events[0].ID != "" {
			t.Error("CompleteRun modified c.Events")
		}
		if !reflect.DeepEqual(seen, got) {
			t.Errorf("Route saw %+v, want the stored events %+v", seen, got)
		}
		// Trimmed to keep per channel, like AppendEvents.
		if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "", 0))); !slices.Equal(ids, []string{"7000-4", "7000-2", "7000-1"}) {
			t.Errorf("default channel = %v", ids)
		}
		if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "$logs", 0))); !slices.Equal(ids, []string{"7000-3"}) {
			t.Errorf("$logs channel = %v", ids)
		}
		// The invocation left the queue; the other stayed.
		if ids := invIDs(must(b.PendingInvocations(ctx, "dc_1", 0))); !slices.Equal(ids, []string{other.ID}) {
			t.Errorf("dc_1 pending = %v, want [%s]", ids, other.ID)
		}
		// Routed invocations are queued, in event order, after the others.
		routed := must(b.PendingInvocations(ctx, "dc_9", 0))
		if len(routed) != 3 {
			t.Fatalf("dc_9 pending = %+v", routed)
		}
		for i, r := range routed {
			if n := must(strconv.Atoi(r.ID)); n <= must(strconv.Atoi(other.ID)) || r.EnqueuedAtMs != 7000 || r.Kind != "event" || r.Hops != 1 {
				t.Errorf("routed invocation %d = %+v", i, r)
			}
		}
		// Routed deliveries are pending and due now.
		due := dueIndex(t, b, 7000)
		if len(due) != 3 {
			t.Fatalf("due deliveries = %+v", due)
		}
		for i, d := range due {
			if d.EventID != got[i].ID || d.ListenerID != "wh_1" || d.Status != model.DeliveryPending || d.CreatedAtMs != 7000 ||
				d.NextAttemptMs != 7000 || d.ID == "" {
				t.Errorf("delivery %d = %+v", i, d)
			}
		}
		if st := must(b.GetDedupe(ctx, "dc_1")); !reflect.DeepEqual(st, dedupe) {
			t.Errorf("GetDedupe = %+v, want %+v", st, dedupe)
		}
		if u := must(b.GetUsage(ctx, "u_a", "2024-01-02")); u != (model.Usage{Invocations: 1, ComputeMs: 17}) {
			t.Errorf("GetUsage = %+v", u)
		}
		// AppendEvents continues the same sequence.
		if next := mustAppend(t, b, "dc_1", evs("", 1), 0); next[0].ID != "7000-5" {
			t.Errorf("AppendEvents after CompleteRun = %s, want 7000-5", next[0].ID)
		}

		// The same invocation again: ErrNotFound, and nothing changes.
		seen = nil
		_, err = b.CompleteRun(ctx, inv, RunCommit{Events: evs("", 2), Route: routeTo("dc_9", "wh_1", &seen),
			Dedupe: &model.DedupeState{Last: "other"}, UsageAccount: "u_a", UsageDay: "2024-01-02", Invocations: 1})
		wantErr(t, "CompleteRun again", err, ErrNotFound)
		if len(seen) != 0 {
			t.Errorf("Route called %d times by a refused commit", len(seen))
		}
		if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "", 0))); !slices.Equal(ids, []string{"7000-5", "7000-4", "7000-2", "7000-1"}) {
			t.Errorf("events after refused commit = %v", ids)
		}
		if n := len(must(b.PendingInvocations(ctx, "dc_9", 0))); n != 3 {
			t.Errorf("dc_9 has %d pending after refused commit, want 3", n)
		}
		if n := len(dueIndex(t, b, 1<<40)); n != 3 {
			t.Errorf("%d deliveries after refused commit, want 3", n)
		}
		if st := must(b.GetDedupe(ctx, "dc_1")); st.Last != "b" {
			t.Errorf("dedupe after refused commit = %+v", st)
		}
		if u := must(b.GetUsage(ctx, "u_a", "2024-01-02")); u.Invocations != 1 {
			t.Errorf("usage after refused commit = %+v", u)
		}
		if next := mustAppend(t, b, "dc_1", evs("", 1), 0); next[0].ID != "7000-6" {
			t.Errorf("a refused commit used ids: next is %s, want 7000-6", next[0].ID)
		}
	})
}

func TestCompleteRunNotQueued(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		inv := mustEnqueue(t, b, "dc_1")
		tests := []struct {
			name string
			inv  model.Invocation
		}{
			{"other source", model.Invocation{ID: inv.ID, TargetID: "dc_2"}},
			{"unknown id", model.Invocation{ID: "99", TargetID: "dc_1"}},
			{"not a number", model.Invocation{ID: "x1", TargetID: "dc_1"}},
			{"not canonical", model.Invocation{ID: "0" + inv.ID, TargetID: "dc_1"}},
			{"empty id", model.Invocation{TargetID: "dc_1"}},
			{"empty source", model.Invocation{ID: inv.ID}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := b.CompleteRun(ctx, tt.inv, RunCommit{Events: evs("", 1), UsageAccount: "u_a", Invocations: 1})
				wantErr(t, "CompleteRun", err, ErrNotFound)
			})
		}
		if ids := invIDs(must(b.PendingInvocations(ctx, "dc_1", 0))); !slices.Equal(ids, []string{inv.ID}) {
			t.Errorf("pending = %v", ids)
		}
		if n := len(must(b.ListEvents(ctx, "dc_1", "", 0))) + len(must(b.ListEvents(ctx, "dc_2", "", 0))); n != 0 {
			t.Errorf("%d events stored by refused commits", n)
		}
	})
}

func TestCompleteRunNoEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		withClock(b, time.Date(2024, 3, 4, 23, 59, 0, 0, time.UTC).UnixMilli())
		inv := mustEnqueue(t, b, "dc_1")
		called := false
		keep := model.DedupeState{Last: "kept"}
		first := mustEnqueue(t, b, "dc_2")
		if _, err := b.CompleteRun(ctx, first, RunCommit{Dedupe: &keep}); err != nil {
			t.Fatal(err)
		}
		got, err := b.CompleteRun(ctx, inv, RunCommit{
			Route:        func(model.Event) Routed { called = true; return Routed{} },
			UsageAccount: "o_1", // UsageDay empty: today, UTC, by the store's clock
			Invocations:  1,
			ComputeMs:    5,
		})
		wantErr(t, "CompleteRun", err, nil)
		if len(got) != 0 || called {
			t.Errorf("CompleteRun = %v, Route called %v", got, called)
		}
		if n := len(must(b.PendingInvocations(ctx, "dc_1", 0))); n != 0 {
			t.Errorf("%d pending after the commit", n)
		}
		if u := must(b.GetUsage(ctx, "o_1", "2024-03-04")); u != (model.Usage{Invocations: 1, ComputeMs: 5}) {
			t.Errorf("GetUsage = %+v", u)
		}
		if st := must(b.GetDedupe(ctx, "dc_2")); st.Last != "kept" {
			t.Errorf("dedupe of dc_2 = %+v", st)
		}
		if st := must(b.GetDedupe(ctx, "dc_1")); !reflect.DeepEqual(st, model.DedupeState{}) {
			t.Errorf("dedupe of dc_1 = %+v, want zero", st)
		}
		// No events: the emitter's id clock was not touched.
		if hasEventClock(t, b, "dc_1") {
			t.Error("event clock written by an empty commit")
		}
	})
}

func TestCompleteRunFailureChangesNothing(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		mustWebhook(t, b, "wh_1")
		withClock(b, 3000)
		inv := mustEnqueue(t, b, "dc_1")
		bad := func(model.Event) Routed {
			return Routed{
				Invocations: []model.Invocation{{TargetID: "dc_2", Kind: "event"}},
				Deliveries:  []model.Delivery{{ListenerID: "wh_1", Status: "lost"}},
			}
		}
		_, err := b.CompleteRun(ctx, inv, RunCommit{Events: evs("", 2), Route: bad, Dedupe: &model.DedupeState{Last: "x"},
			UsageAccount: "u_a", UsageDay: "2024-01-01", Invocations: 1})
		if err == nil {
			t.Fatal("CompleteRun with a bad delivery status succeeded")
		}
		if ids := invIDs(must(b.PendingInvocations(ctx, "dc_1", 0))); !slices.Equal(ids, []string{inv.ID}) {
			t.Errorf("pending after failed commit = %v", ids)
		}
		if got := must(b.TargetsWithPending(ctx)); !slices.Equal(got, []model.Target{model.SourceTarget("dc_1")}) {
			t.Errorf("TargetsWithPending after failed commit = %v", got)
		}
		if n := len(must(b.ListEvents(ctx, "dc_1", "", 0))); n != 0 {
			t.Errorf("%d events after failed commit", n)
		}
		if st := must(b.GetDedupe(ctx, "dc_1")); st.Last != "" {
			t.Errorf("dedupe after failed commit = %+v", st)
		}
		if u := must(b.GetUsage(ctx, "u_a", "2024-01-01")); u != (model.Usage{}) {
			t.Errorf("usage after failed commit = %+v", u)
		}
		// Retried correctly, it commits with the ids the failed try would have had.
		got, err := b.CompleteRun(ctx, inv, RunCommit{Events: evs("", 2)})
		wantErr(t, "CompleteRun retry", err, nil)
		if ids := eventIDs(got); !slices.Equal(ids, []string{"3000-0", "3000-1"}) {
			t.Errorf("ids = %v", ids)
		}
	})
}

// TestQueueDepths: the counts the metrics show follow enqueues, runs and
// deliveries, on every backend.
func TestQueueDepths(t *testing.T) {
	t.Parallel()
	type counted interface {
		testStore
		QueueDepths(ctx context.Context) (invocations, deliveries int, err error)
	}
	eachBackend(t, func(t *testing.T, st counted) {
		// JetStream counts a run's invocation for a second or so after
		// the run (docs/nats.md): the count must come down within a
		// few.
		check := func(wantInv, wantDel int) {
			t.Helper()
			wait.For(t, fmt.Sprintf("QueueDepths to be %d, %d", wantInv, wantDel), wait.Short, func() (string, bool) {
				inv, del, err := st.QueueDepths(ctx)
				return fmt.Sprintf("%d, %d, %v", inv, del, err), err == nil && inv == wantInv && del == wantDel
			})
		}
		check(0, 0)
		var first model.Invocation
		for i, src := range []string{"dc_1", "dc_1", "dc_1", "dc_2"} {
			inv, err := st.EnqueueInvocation(ctx, model.Invocation{TargetID: src, Kind: "http"})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = inv
			}
		}
		mustDeliver(t, st, 50, model.Delivery{ListenerID: "wh_1", EventID: "e1", Payload: json.RawMessage(`{}`)})
		mustDeliver(t, st, 50, model.Delivery{ListenerID: "wh_2", EventID: "e2", Payload: json.RawMessage(`{}`)})
		check(4, 2)
		if _, err := st.CompleteRun(ctx, first, RunCommit{}); err != nil {
			t.Fatal(err)
		}
		check(3, 2)
	})
}

// TestEnqueueWithinIsAtomic: enqueues at once against a bound of five
// queue five and refuse the rest with ErrQueueFull; a run's removal makes
// room for one more.
func TestEnqueueWithinIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var queued []model.Invocation
		full := 0
		for range 30 {
			wg.Go(func() {
				inv, err := b.EnqueueInvocationWithin(ctx, model.Invocation{TargetID: "dc_q", Kind: "http"}, 5)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, ErrQueueFull):
					full++
				case err != nil:
					t.Error(err)
				default:
					queued = append(queued, inv)
				}
			})
		}
		wg.Wait()
		if n, _ := b.CountPending(ctx, "dc_q", 100); len(queued) != 5 || full != 25 || n != 5 {
			t.Fatalf("30 enqueues against a bound of 5: %d queued, %d refused, %d pending", len(queued), full, n)
		}
		if _, err := b.CompleteRun(ctx, queued[0], RunCommit{}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.EnqueueInvocationWithin(ctx, model.Invocation{TargetID: "dc_q", Kind: "http"}, 5); err != nil {
			t.Errorf("after a run's removal: %v, want room for one", err)
		}
		if _, err := b.EnqueueInvocationWithin(ctx, model.Invocation{TargetID: "dc_q", Kind: "http"}, 5); !errors.Is(err, ErrQueueFull) {
			t.Errorf("past the bound again: %v, want ErrQueueFull", err)
		}
		if _, err := b.EnqueueInvocationWithin(ctx, model.Invocation{TargetID: "dc_q", Kind: "http"}, 0); err != nil {
			t.Errorf("no bound: %v", err)
		}
	})
}
