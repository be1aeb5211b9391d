package store

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

func TestUsage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		runs := []struct {
			account, day string
			inv, ms      int64
		}{
			{"u_a", "2024-01-01", 1, 10},
			{"u_a", "2024-01-01", 1, 15},
			{"u_a", "2024-01-02", 1, 7},
			{"o_1", "2024-01-01", 2, 100},
			{"", "2024-01-01", 1, 1000}, // no account: not counted
		}
		for _, r := range runs {
			inv := mustEnqueue(t, b, "dc_1")
			_, err := b.CompleteRun(ctx, inv, RunCommit{UsageAccount: r.account, UsageDay: r.day, Invocations: r.inv, ComputeMs: r.ms})
			wantErr(t, "CompleteRun", err, nil)
		}
		// Work outside runs (loading code, hooks) adds to the same counters.
		wantErr(t, "AddUsage", b.AddUsage(ctx, "u_a", "2024-01-02", 0, 5), nil)
		wantErr(t, "AddUsage", b.AddUsage(ctx, "", "2024-01-01", 1, 1000), nil)
		// So do the npm tarballs a deploy downloads.
		wantErr(t, "AddNpmBytes", b.AddNpmBytes(ctx, "u_a", "2024-01-01", 700), nil)
		wantErr(t, "AddNpmBytes", b.AddNpmBytes(ctx, "u_a", "2024-01-01", 300), nil)
		wantErr(t, "AddNpmBytes", b.AddNpmBytes(ctx, "", "2024-01-01", 5), nil)
		tests := []struct {
			account, day string
			want         model.Usage
		}{
			{"u_a", "2024-01-01", model.Usage{Invocations: 2, ComputeMs: 25, NpmBytes: 1000}},
			{"u_a", "2024-01-02", model.Usage{Invocations: 1, ComputeMs: 12}},
			{"o_1", "2024-01-01", model.Usage{Invocations: 2, ComputeMs: 100}},
			{"u_a", "2024-01-03", model.Usage{}},
			{"u_zz", "2024-01-01", model.Usage{}},
			{"", "2024-01-01", model.Usage{}},
		}
		for _, tt := range tests {
			got, err := b.GetUsage(ctx, tt.account, tt.day)
			wantErr(t, "GetUsage", err, nil)
			if got != tt.want {
				t.Errorf("GetUsage(%q, %q) = %+v, want %+v", tt.account, tt.day, got, tt.want)
			}
		}
	})
}

func TestTimerLastFire(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, id := range []string{"dc_1", "dc_2"} {
			wantErr(t, "CreateSource", createSource(ctx, b, source(id, "u_a", id)), nil)
		}
		if ms := must(b.TimerLastFire(ctx, "dc_1")); ms != 0 {
			t.Errorf("TimerLastFire of a new source = %d, want 0", ms)
		}
		tests := []struct {
			source string
			ms     int64
		}{
			{"dc_1", 1700000000000},
			{"dc_1", 1700000060000}, // overwrites
			{"dc_2", -5},            // any int64 round-trips
		}
		for _, tt := range tests {
			wantErr(t, "SetTimerLastFire", b.SetTimerLastFire(ctx, tt.source, tt.ms), nil)
			if got := must(b.TimerLastFire(ctx, tt.source)); got != tt.ms {
				t.Errorf("TimerLastFire(%s) = %d, want %d", tt.source, got, tt.ms)
			}
		}
		if err := b.SetTimerLastFire(ctx, "", 1); err == nil {
			t.Error("SetTimerLastFire with an empty source succeeded")
		}
		// A fire that raced its source's delete keeps no state.
		wantErr(t, "SetTimerLastFire of a deleted source", b.SetTimerLastFire(ctx, "dc_gone", 1), nil)
		if ms := must(b.TimerLastFire(ctx, "dc_gone")); ms != 0 {
			t.Errorf("a deleted source's timer state was kept: %d", ms)
		}
	})
}

func TestGetDedupeUnknown(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b usageAPI) {
		for _, id := range []string{"dc_1", ""} {
			if st := must(b.GetDedupe(ctx, id)); !reflect.DeepEqual(st, model.DedupeState{}) {
				t.Errorf("GetDedupe(%q) = %+v, want zero", id, st)
			}
		}
	})
}

func TestDeleteSourceDeletesQueues(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, id := range []string{"dc_1", "dc_2"} {
			wantErr(t, "CreateSource", createSource(ctx, b, source(id, "u_a", id)), nil)
		}
		for _, id := range []string{"dc_1", "dc_2"} {
			done := mustEnqueue(t, b, id)
			_, err := b.CompleteRun(ctx, done, RunCommit{Events: evs("", 1), Dedupe: &model.DedupeState{Last: id}})
			wantErr(t, "CompleteRun", err, nil)
			mustEnqueue(t, b, id)
			mustEnqueue(t, b, id)
			wantErr(t, "SetTimerLastFire", b.SetTimerLastFire(ctx, id, 123), nil)
		}
		doomed := must(b.PendingInvocations(ctx, "dc_1", 1))[0]

		wantErr(t, "DeleteSource", deleteSource(ctx, b, "dc_1"), nil)

		if got := must(b.TargetsWithPending(ctx)); !slices.Equal(got, []model.Target{model.SourceTarget("dc_2")}) {
			t.Errorf("TargetsWithPending = %v, want [source dc_2]", got)
		}
		if n := len(must(b.PendingInvocations(ctx, "dc_1", 0))); n != 0 {
			t.Errorf("dc_1 has %d pending", n)
		}
		if st := must(b.GetDedupe(ctx, "dc_1")); !reflect.DeepEqual(st, model.DedupeState{}) {
			t.Errorf("dedupe of deleted source = %+v", st)
		}
		if ms := must(b.TimerLastFire(ctx, "dc_1")); ms != 0 {
			t.Errorf("timer of deleted source = %d", ms)
		}
		_, err := b.CompleteRun(ctx, doomed, RunCommit{Events: evs("", 1)})
		wantErr(t, "CompleteRun of a deleted source's invocation", err, ErrNotFound)
		if n := len(must(b.ListEvents(ctx, "dc_1", "", 0))); n != 0 {
			t.Errorf("deleted source has %d events", n)
		}
		// The other source is untouched.
		if n := len(must(b.PendingInvocations(ctx, "dc_2", 0))); n != 2 {
			t.Errorf("dc_2 has %d pending, want 2", n)
		}
		if st := must(b.GetDedupe(ctx, "dc_2")); st.Last != "dc_2" {
			t.Errorf("dedupe of dc_2 = %+v", st)
		}
		if ms := must(b.TimerLastFire(ctx, "dc_2")); ms != 123 {
			t.Errorf("timer of dc_2 = %d", ms)
		}
	})
}

func TestReopenKeepsQueues(t *testing.T) {
	t.Parallel()
	eachReopenable(t, checkReopenKeepsQueues)
}

// checkReopenKeepsQueues is TestReopenKeepsQueues on one backend.
func checkReopenKeepsQueues(t *testing.T, open func() testStore) {
	b := open()
	withClock(b, 4000)
	mustWebhook(t, b, "wh_1")
	mustFixtureComponent(t, b)
	first := mustEnqueue(t, b, "dc_1")
	second := mustEnqueue(t, b, "dc_2")
	var seen []model.Event
	_, err := b.CompleteRun(ctx, first, RunCommit{Events: evs("", 1), Route: routeTo("dc_3", "wh_1", &seen),
		Dedupe: &model.DedupeState{Last: "e0"}, UsageAccount: "u_a", UsageDay: "2024-05-06", Invocations: 1, ComputeMs: 9})
	wantErr(t, "CompleteRun", err, nil)
	delivered := mustDeliver(t, b, 4000, model.Delivery{ListenerID: "wh_1", Status: model.DeliveryDelivered})
	wantErr(t, "CreateSource", createSource(ctx, b, source("dc_2", "u_a", "two")), nil)
	wantErr(t, "SetTimerLastFire", b.SetTimerLastFire(ctx, "dc_2", 3999), nil)
	beforeInv := must(b.PendingInvocations(ctx, "dc_3", 0))
	beforeDue := dueIndex(t, b, 4000)
	checkConsistent(t, b)
	wantErr(t, "Close", b.Close(), nil)

	b = open()
	withClock(b, 5000)

	if got := must(b.TargetsWithPending(ctx)); !slices.Equal(got, []model.Target{model.SourceTarget("dc_2"), model.SourceTarget("dc_3")}) {
		t.Errorf("TargetsWithPending after reopen = %v", got)
	}
	if got := must(b.PendingInvocations(ctx, "dc_2", 0)); !reflect.DeepEqual(got, []model.Invocation{second}) {
		t.Errorf("dc_2 pending after reopen = %+v, want %+v", got, second)
	}
	if got := must(b.PendingInvocations(ctx, "dc_3", 0)); !reflect.DeepEqual(got, beforeInv) {
		t.Errorf("dc_3 pending after reopen = %+v, want %+v", got, beforeInv)
	}
	if got := dueIndex(t, b, 4000); len(got) != 1 || !reflect.DeepEqual(got, beforeDue) {
		t.Errorf("due after reopen = %+v, want %+v", got, beforeDue)
	}
	if st := must(b.GetDedupe(ctx, "dc_1")); st.Last != "e0" {
		t.Errorf("dedupe after reopen = %+v", st)
	}
	if u := must(b.GetUsage(ctx, "u_a", "2024-05-06")); u != (model.Usage{Invocations: 1, ComputeMs: 9}) {
		t.Errorf("usage after reopen = %+v", u)
	}
	if ms := must(b.TimerLastFire(ctx, "dc_2")); ms != 3999 {
		t.Errorf("timer after reopen = %d", ms)
	}
	// Sequences continue: new ids come after the old ones.
	if inv := mustEnqueue(t, b, "dc_1"); must(parseSeq(inv.ID)) <= must(parseSeq(beforeInv[0].ID)) {
		t.Errorf("invocation id after reopen = %s, not after %s", inv.ID, beforeInv[0].ID)
	}
	if d := mustDeliver(t, b, 5000, model.Delivery{ListenerID: "wh_1"}); must(deliverySeq(d.ID)) <= must(deliverySeq(delivered.ID)) {
		t.Errorf("delivery id after reopen = %s, not after %s", d.ID, delivered.ID)
	}
	// The queued invocation still completes.
	_, err = b.CompleteRun(ctx, second, RunCommit{})
	wantErr(t, "CompleteRun after reopen", err, nil)
}

// deliverySeq is the sequence a delivery's id holds: the whole id on
// bbolt, its number before the listener on JetStream.
func deliverySeq(id string) (uint64, error) {
	if num, _, ok := strings.Cut(id, "-"); ok { // JetStream: <n>-<listener>
		return parseSeq(num)
	}
	return parseSeq(id)
}

// parseSeq is parseSeqID as a (value, error) pair for must.
func parseSeq(id string) (uint64, error) {
	seq, ok := kv.ParseSeqID(id)
	if !ok {
		return 0, ErrNotFound
	}
	return seq, nil
}

// TestAddUsageConcurrently: counters add up exactly under concurrent
// writers, on either backend.
func TestAddUsageConcurrently(t *testing.T) {
	t.Parallel()
	const writers, each = 4, 8
	eachBackend(t, func(t *testing.T, b usageAPI) {
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for range each {
					if err := b.AddUsage(ctx, "u_a", "2024-01-01", 1, 3); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		got, err := b.GetUsage(ctx, "u_a", "2024-01-01")
		wantErr(t, "GetUsage", err, nil)
		if want := (model.Usage{Invocations: writers * each, ComputeMs: 3 * writers * each}); got != want {
			t.Errorf("usage after %d concurrent adds = %+v, want %+v", writers*each, got, want)
		}
	})
}

// TestFireTimerOncePerTick: of concurrent fires of one tick, one enqueues
// its run; an earlier tick after it, or a deleted source, enqueues none.
func TestFireTimerOncePerTick(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		wantErr(t, "CreateSource", createSource(ctx, b, source("dc_1", "u_a", "one")), nil)
		var wg sync.WaitGroup
		var mu sync.Mutex
		fired := 0
		for range 4 {
			wg.Go(func() {
				ok, err := b.FireTimer(ctx, model.Invocation{TargetID: "dc_1", Kind: "timer"}, "t", 60_000)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					fired++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if fired != 1 || len(must(b.PendingInvocations(ctx, "dc_1", 0))) != 1 || must(b.TimerLastFire(ctx, "dc_1")) != 60_000 {
			t.Fatalf("4 fires of one tick: %d fired, %d queued", fired, len(must(b.PendingInvocations(ctx, "dc_1", 0))))
		}
		if ok := must(b.FireTimer(ctx, model.Invocation{TargetID: "dc_1", Kind: "timer"}, "t", 30_000)); ok {
			t.Error("an earlier tick fired after a later one")
		}
		if ok := must(b.FireTimer(ctx, model.Invocation{TargetID: "dc_1", Kind: "timer"}, "t", 120_000)); !ok {
			t.Error("the next tick did not fire")
		}
		if ok := must(b.FireTimer(ctx, model.Invocation{TargetID: "dc_1", Kind: "timer"}, "other", 120_000)); !ok {
			t.Error("another timer prop's tick at the same time did not fire")
		}
		if last := must(b.TimerLastFire(ctx, "dc_1")); last != 120_000 {
			t.Errorf("the source's last fire is %d, want 120000", last)
		}
		if ok := must(b.FireTimer(ctx, model.Invocation{TargetID: "dc_gone", Kind: "timer"}, "t", 120_000)); ok {
			t.Error("the timer of a deleted source fired")
		}
		wf := must(b.CreateWorkflow(ctx, model.Workflow{ID: "p_tick", OwnerID: "u_a", NameSlug: "tick"}, nil))
		if ok := must(b.FireTimer(ctx, model.Invocation{TargetID: wf.ID, Kind: "timer"}, "trigger", 60_000)); !ok {
			t.Error("a workflow's timer did not fire")
		}
	})
}
