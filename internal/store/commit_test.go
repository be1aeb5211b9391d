package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	boltengine "github.com/fount-dev/fount/internal/store/internal/bolt"

	"github.com/fount-dev/fount/internal/model"
)

// failAt routes every event to nothing, and fails the transaction that
// routes the event whose data is n (to a workflow's send of a status the
// store refuses): a crash in the middle of a commit.
func failAt(n int) func(model.Event) Routed {
	return func(e model.Event) Routed {
		if string(e.Data) == fmt.Sprint(n) {
			return Routed{Deliveries: []model.Delivery{{Kind: model.DeliverySendHTTP, ListenerID: "p_listener", Status: "no such status"}}}
		}
		return Routed{}
	}
}

// dedupeAfter is a DedupeAfter that remembers the number of events.
func dedupeAfter(n int) *model.DedupeState { return &model.DedupeState{Last: fmt.Sprint("after ", n)} }

// TestCompleteRunsSplitsLargeRuns: a run larger than one transaction's
// bounds is committed in parts; a failure in a later part leaves the
// earlier parts stored, with the dedupe state of what they hold, and the
// invocation queued, so that it runs again. bbolt only: its bound is
// in events and bytes; JetStream's, in messages, has its own test
// (TestJSCompleteRunsSplitsLargeRuns).
func TestCompleteRunsSplitsLargeRuns(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1000)
	tests := []struct {
		name      string
		events    []model.Event
		maxEvents int
		maxBytes  int
		failAt    int // the event whose transaction fails
		stored    int // events stored then
	}{
		{"by events", evs("a", 25), 10, 0, 15, 10},
		{"by events, last part", evs("a", 25), 10, 0, 24, 20},
		{"by bytes", bigEvents(12, big), 0, 3000, 7, 6},
		{"first part", evs("a", 25), 10, 0, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openTestBolt(t)
			boltengine.Inspect(b.Engine).SetTxBounds(tt.maxEvents, tt.maxBytes)
			inv := mustEnqueue(t, b, "dc_1")
			commit := RunCommit{Events: tt.events, Keep: 1000, Route: failAt(tt.failAt), Dedupe: &model.DedupeState{Last: "final"}, DedupeAfter: dedupeAfter,
				UsageAccount: "u_1", UsageDay: "2024-01-01", Invocations: 1}
			out, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: commit}})
			if err == nil {
				t.Fatal("CompleteRuns did not fail")
			}
			if len(out[0]) != tt.stored {
				t.Errorf("%d events of the failed run returned, want the %d stored", len(out[0]), tt.stored)
			}
			if n := len(must(b.ListEvents(ctx, "dc_1", "a", 1000))); n != tt.stored {
				t.Errorf("%d events stored, want %d", n, tt.stored)
			}
			pending := must(b.PendingInvocations(ctx, "dc_1", 10))
			if len(pending) != 1 || pending[0].ID != inv.ID {
				t.Errorf("queued after the failure: %+v, want only the failed run's", pending)
			}
			want := model.DedupeState{}
			if tt.stored > 0 {
				want = *dedupeAfter(tt.stored)
			}
			if got := must(b.GetDedupe(ctx, "dc_1")); got.Last != want.Last {
				t.Errorf("dedupe state %+v, want %+v", got, want)
			}
			if u := must(b.GetUsage(ctx, "u_1", "2024-01-01")); u.Invocations != 0 {
				t.Errorf("usage counted for a run not completed: %+v", u)
			}

			// Run again (the invocation is still queued): it completes.
			commit.Route = nil
			out, err = b.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: commit}})
			if err != nil {
				t.Fatal(err)
			}
			if len(out[0]) != len(tt.events) {
				t.Errorf("the run again returned %d events, want %d", len(out[0]), len(tt.events))
			}
			checkIncreasing(t, out[0])
			if got := must(b.GetDedupe(ctx, "dc_1")); got.Last != "final" {
				t.Errorf("dedupe state %+v after the run, want the final one", got)
			}
			if u := must(b.GetUsage(ctx, "u_1", "2024-01-01")); u.Invocations != 1 {
				t.Errorf("usage %+v, want one invocation", u)
			}
			if pending := must(b.PendingInvocations(ctx, "dc_1", 10)); len(pending) != 0 {
				t.Errorf("still queued: %+v", pending)
			}
		})
	}
}

func bigEvents(n int, data string) []model.Event {
	out := evs("a", n)
	for i := range out {
		out[i].Summary = data // the bytes; Data stays the index failAt looks for
	}
	return out
}

// TestCompleteRunsPacksSmallRuns: small runs share a transaction, and a
// batch whose runs are large is split between runs. bbolt only, for
// the bound's sake, as above.
func TestCompleteRunsPacksSmallRuns(t *testing.T) {
	t.Parallel()
	b := openTestBolt(t)
	_, maxBytes := boltengine.Inspect(b.Engine).TxBounds()
	boltengine.Inspect(b.Engine).SetTxBounds(10, maxBytes)
	var runs []CompletedRun
	for i := range 6 {
		runs = append(runs, CompletedRun{Invocation: mustEnqueue(t, b, "dc_1"), Commit: RunCommit{Events: evs(fmt.Sprint("r", i), 4), Keep: 100}})
	}
	// Each run counts 5 (its events and its completion): runs 0 and 1
	// share the first transaction, 2 and 3 the second, and the third,
	// of runs 4 and 5, fails.
	runs[4].Commit.Route = failAt(0)
	out, err := b.CompleteRuns(ctx, runs)
	if err == nil {
		t.Fatal("CompleteRuns did not fail")
	}
	var done []int
	for i, events := range out {
		if len(events) > 0 {
			done = append(done, i)
		}
	}
	if !slices.Equal(done, []int{0, 1, 2, 3}) {
		t.Errorf("runs completed before the failure: %v, want 0 to 3", done)
	}
	if n := len(must(b.PendingInvocations(ctx, "dc_1", 10))); n != 2 {
		t.Errorf("%d invocations queued, want 2", n)
	}
}

// TestCompleteRunOfManyEvents: a run of more events than one JetStream
// batch holds (1,000 messages) completes whole through CompleteRun on
// every backend, and completing it again says its invocation is gone.
func TestCompleteRunOfManyEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		inv := mustEnqueue(t, b, "dc_1")
		c := RunCommit{Events: evs("many", 1100), Keep: 2000}
		out, err := b.CompleteRun(ctx, inv, c)
		if err != nil || len(out) != len(c.Events) {
			t.Fatalf("CompleteRun: %d events, %v; want %d", len(out), err, len(c.Events))
		}
		if n := len(must(b.ListEvents(ctx, "dc_1", "many", 2000))); n != len(c.Events) {
			t.Errorf("%d events stored, want %d", n, len(c.Events))
		}
		_, err = b.CompleteRun(ctx, inv, c)
		wantErr(t, "CompleteRun again", err, ErrNotFound)
	})
}

// TestCompleteRunsSkipsGoneInvocations: a run whose invocation is gone is
// skipped, even when it is gone between two parts of it.
func TestCompleteRunsSkipsGoneInvocations(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		gone := model.Invocation{ID: "12345", TargetID: "dc_1"}
		inv := mustEnqueue(t, b, "dc_1")
		out, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: gone, Commit: RunCommit{Events: evs("", 3)}}, {Invocation: inv, Commit: RunCommit{Events: evs("", 2)}}})
		if err != nil {
			t.Fatal(err)
		}
		if out[0] != nil || len(out[1]) != 2 {
			t.Errorf("results %v", out)
		}
	})
}

// TestDelayedChannelIsTrimmed: $in keeps its newest keep events like any
// channel; what a store held beyond that goes on the next write to it.
func TestDelayedChannelIsTrimmed(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		delayed := func(n int) []model.Event {
			out := evs(model.ChannelDelayed, n)
			for i := range out {
				out[i].Data = json.RawMessage(fmt.Sprint(`{"v":1,"due_ms":`, i, `}`))
			}
			return out
		}
		mustAppend(t, b, "dc_1", delayed(30), 50) // as an older fount kept them
		mustAppend(t, b, "dc_1", delayed(1), 10)
		if n := len(must(b.ListEvents(ctx, "dc_1", model.ChannelDelayed, 1000))); n != 10 {
			t.Errorf("$in holds %d events, want 10", n)
		}
		inv := mustEnqueue(t, b, "dc_1")
		if _, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: RunCommit{Events: delayed(20), Keep: 5}}}); err != nil {
			t.Fatal(err)
		}
		if n := len(must(b.ListEvents(ctx, "dc_1", model.ChannelDelayed, 1000))); n != 5 {
			t.Errorf("$in holds %d events after a run, want 5", n)
		}
	})
}

func TestChannels(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		mustAppend(t, b, "dc_1", []model.Event{{Name: ""}, {Name: "b"}, {Name: "$errors"}, {Name: "a"}, {Name: "gone"}}, 0)
		if _, err := b.DeleteEvents(ctx, "dc_1", "gone", "", ""); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			emitter string
			want    []string
		}{
			{"dc_1", []string{"", "$errors", "a", "b"}},
			{"dc_unknown", []string{}},
			{"", []string{}},
		} {
			got, err := b.Channels(ctx, tt.emitter)
			if err != nil || got == nil || !slices.Equal(got, tt.want) {
				t.Errorf("Channels(%q) = %q, %v, want %q", tt.emitter, got, err, tt.want)
			}
		}
	})
}

// TestJSCompleteRunsSplitsLargeRuns: a run whose commit is more writes
// than one atomic batch takes is committed in parts, its completion with
// its last events. JetStream only: its bound is in messages; bbolt's, in
// events and bytes, has its own test (TestCompleteRunsSplitsLargeRuns).
func TestJSCompleteRunsSplitsLargeRuns(t *testing.T) {
	t.Parallel()
	s := openTestJetStream(t)
	inv := mustEnqueue(t, s, "dc_1")
	const n = 2000 // two atomic batches of the servers' default bound
	var parts []int
	commit := RunCommit{Events: evs("a", n), Keep: 10 * n, Dedupe: &model.DedupeState{Last: "final"},
		DedupeAfter: func(stored int) *model.DedupeState {
			parts = append(parts, stored)
			return &model.DedupeState{Last: "part"}
		}}
	out, err := s.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: commit}})
	wantErr(t, "CompleteRuns", err, nil)
	if len(out[0]) != n || len(must(s.ListEvents(ctx, "dc_1", "a", 10*n))) != n {
		t.Fatalf("%d events returned, %d stored; want %d", len(out[0]), len(must(s.ListEvents(ctx, "dc_1", "a", 10*n))), n)
	}
	if len(parts) < 2 {
		t.Errorf("%d events committed in %d parts before the last", n, len(parts))
	}
	if st := must(s.GetDedupe(ctx, "dc_1")); st.Last != "final" {
		t.Errorf("dedupe after the run: %+v", st)
	}
	if pending := must(s.PendingInvocations(ctx, "dc_1", 10)); len(pending) != 0 {
		t.Errorf("still queued: %+v", pending)
	}
}
