package store

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/wait"
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

// TestPausedURLsIndex: a commit that pauses an execution with URLs
// indexes its record by the execution; a resume removes the entry, or
// replaces it when it pauses again; a resume of a record gone already
// leaves a newer entry alone; a new workflow's index is whole, an older
// one's is indexed once without overwriting newer entries; a deleted
// workflow takes its entries along.
func TestPausedURLsIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		if _, err := b.CreateWorkflow(ctx, workflow("p_ix", "u_a", "indexed"), nil); err != nil {
			t.Fatal(err)
		}
		lookup := func(wf, x string) (PausedURL, bool, bool) {
			t.Helper()
			e, found, err := b.PausedURL(ctx, wf, x)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := b.PausedURLsWhole(ctx, wf)
			if err != nil {
				t.Fatal(err)
			}
			return e, found, whole
		}
		if _, found, whole := lookup("p_ix", "ex_ix-1"); found || !whole {
			t.Errorf("a new workflow: found %v, whole %v; want none, whole", found, whole)
		}
		if _, found, whole := lookup("p_old", "ex_old-1"); found || whole {
			t.Errorf("a workflow never indexed: found %v, whole %v; want neither", found, whole)
		}
		commit := func(c RunCommit) []model.Event {
			t.Helper()
			inv, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_ix", Kind: "http"})
			out, err := b.CompleteRun(ctx, inv, c)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		pause := func(x, hash string) RunCommit {
			return RunCommit{Events: []model.Event{{Name: model.ChannelDelayed, Data: json.RawMessage(`{}`)}},
				Execution: &model.Execution{ID: x, WorkflowID: "p_ix"}, PauseSecretHash: hash}
		}
		first := commit(pause("ex_ix-1", "h1"))[0]
		if e, found, _ := lookup("p_ix", "ex_ix-1"); !found || e.EventID != first.ID || e.SecretHash != "h1" {
			t.Fatalf("after a pause: %+v, %v; want its record %s and h1", e, found, first.ID)
		}
		again := pause("ex_ix-1", "h2")
		again.Resume = first.ID
		second := commit(again)[0]
		if e, _, _ := lookup("p_ix", "ex_ix-1"); e.EventID != second.ID || e.SecretHash != "h2" {
			t.Errorf("after a rerun's pause: %+v, want %s and h2", e, second.ID)
		}
		stale := RunCommit{Resume: first.ID, Execution: &model.Execution{ID: "ex_ix-1", WorkflowID: "p_ix"}}
		commit(stale)
		if _, found, _ := lookup("p_ix", "ex_ix-1"); !found {
			t.Error("a resume of a record gone already removed the newer entry")
		}
		commit(RunCommit{Resume: second.ID, Execution: &model.Execution{ID: "ex_ix-1", WorkflowID: "p_ix"}})
		if _, found, _ := lookup("p_ix", "ex_ix-1"); found {
			t.Error("the entry of a resumed execution is still there")
		}

		newer := commit(pause("ex_ix-2", "new"))[0]
		if err := b.IndexPausedURLs(ctx, "p_ix", map[string]PausedURL{
			"ex_ix-2": {EventID: "1-1", SecretHash: "scanned"}, "ex_ix-3": {EventID: "2-1", SecretHash: "h3"}}); err != nil {
			t.Fatal(err)
		}
		if e, _, _ := lookup("p_ix", "ex_ix-2"); e.EventID != newer.ID || e.SecretHash != "new" {
			t.Errorf("indexing overwrote a newer entry: %+v", e)
		}
		if e, found, _ := lookup("p_ix", "ex_ix-3"); !found || e.SecretHash != "h3" {
			t.Errorf("indexing did not add a missing entry: %+v", e)
		}
		if err := b.IndexPausedURLs(ctx, "p_old", nil); err != nil {
			t.Fatal(err)
		}
		if _, _, whole := lookup("p_old", "ex_old-1"); !whole {
			t.Error("an indexed workflow is not marked whole")
		}

		if err := b.DeleteWorkflow(ctx, "p_ix"); err != nil {
			t.Fatal(err)
		}
		wait.Until(t, "the deleted workflow's entries to go", wait.Short, func() bool {
			_, found, err := b.PausedURL(ctx, "p_ix", "ex_ix-3")
			whole, err2 := b.PausedURLsWhole(ctx, "p_ix")
			return err == nil && err2 == nil && !found && !whole
		})
	})
}
