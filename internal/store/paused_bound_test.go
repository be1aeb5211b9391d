package store

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// pausingCommit pauses one execution: a record on $in, bounded at max;
// past it, the execution is recorded failed instead, with held in its
// reason.
func pausingCommit(max int) RunCommit {
	return RunCommit{
		Events:    []model.Event{{Name: model.ChannelDelayed, Data: json.RawMessage(`{"paused":true}`)}},
		MaxPaused: max,
		OverPaused: func(c RunCommit, held int) RunCommit {
			c.Events = []model.Event{{Name: model.ChannelErrors, Data: json.RawMessage(`{"held":` + strconv.Itoa(held) + `}`)}}
			return c
		},
	}
}

// TestPausedBoundHoldsInOneBatch: runs committed together are counted
// with each other: the bound is checked in the transaction, after each
// run's own pause, and the runs past it commit their OverPaused instead.
// A resume frees its place before its run is counted.
func TestPausedBoundHoldsInOneBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		var runs []CompletedRun
		for range 30 {
			inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "http"})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, CompletedRun{Invocation: inv, Commit: pausingCommit(3)})
		}
		out, err := b.CompleteRuns(ctx, runs)
		if err != nil {
			t.Fatal(err)
		}
		paused, _ := b.ListEvents(ctx, "p_w", model.ChannelDelayed, 100)
		refused, _ := b.ListEvents(ctx, "p_w", model.ChannelErrors, 100)
		if len(paused) != 3 || len(refused) != 27 {
			t.Fatalf("30 pauses against a bound of 3: %d paused, %d refused; want 3 and 27", len(paused), len(refused))
		}
		if got := string(out[29][0].Data); got != `{"held":3}` {
			t.Errorf("the last run's refusal: %s, want it to see 3 held", got)
		}
		// A run that resumes one of them and pauses it again fits.
		again, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		c := pausingCommit(3)
		c.Resume = paused[0].ID
		if _, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: again, Commit: c}}); err != nil {
			t.Fatal(err)
		}
		if paused, _ := b.ListEvents(ctx, "p_w", model.ChannelDelayed, 100); len(paused) != 3 {
			t.Errorf("after a resume that paused again: %d paused, want 3", len(paused))
		}
		// A lower bound than what is held trims nothing: it refuses more.
		lower, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "http"})
		if _, err := b.CompleteRun(ctx, lower, pausingCommit(1)); err != nil {
			t.Fatal(err)
		}
		if paused, _ := b.ListEvents(ctx, "p_w", model.ChannelDelayed, 100); len(paused) != 3 {
			t.Errorf("under a lowered bound: %d paused, want the 3 kept", len(paused))
		}
	})
}

// TestPausedBoundHoldsUnderConcurrentCommits: runs committed at once,
// each in its own transaction, never pass the bound either.
func TestPausedBoundHoldsUnderConcurrentCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		var wg sync.WaitGroup
		for range 12 {
			inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_c", Kind: "http"})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				if _, err := b.CompleteRun(ctx, inv, pausingCommit(3)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		paused, _ := b.ListEvents(ctx, "p_c", model.ChannelDelayed, 100)
		refused, _ := b.ListEvents(ctx, "p_c", model.ChannelErrors, 100)
		if len(paused) != 3 || len(refused) != 9 {
			t.Fatalf("12 concurrent pauses against a bound of 3: %d paused, %d refused", len(paused), len(refused))
		}
	})
}
