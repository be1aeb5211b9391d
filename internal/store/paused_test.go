package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	"github.com/fount-dev/fount/internal/wait"
)

// paused is execution x paused until dueMs, with its URLs' hash.
func paused(x string, dueMs int64, hash string) *PausedExecution {
	return &PausedExecution{ExecutionID: x, PausedEntry: PausedEntry{DueMs: dueMs, SecretHash: hash},
		State: json.RawMessage(`{"execution":{"id":"` + x + `"}}`)}
}

// pausingCommit pauses execution x, bounded at max; past it, the
// execution is recorded failed instead, with held in its reason.
func pausingCommit(x string, max int) RunCommit {
	return RunCommit{
		Pause:     paused(x, 1000, "h"),
		MaxPaused: max,
		OverPaused: func(c RunCommit, held int) RunCommit {
			c.Events = []model.Event{{Name: model.ChannelErrors, Data: json.RawMessage(`{"held":` + strconv.Itoa(held) + `}`)}}
			return c
		},
	}
}

// countPaused is how many executions wf holds paused, by its count and
// by its entries, which must agree.
func countPaused(t *testing.T, b testStore, wf string) int {
	t.Helper()
	ctx := context.Background()
	n, err := b.CountPaused(ctx, wf)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := b.PausedEntries(ctx, wf)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Errorf("%s: a count of %d paused executions, and %d entries", wf, n, len(entries))
	}
	return n
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
		for i := range 30 {
			inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "http"})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, CompletedRun{Invocation: inv, Commit: pausingCommit(fmt.Sprint("ex_w-", i), 3)})
		}
		out, err := b.CompleteRuns(ctx, runs)
		if err != nil {
			t.Fatal(err)
		}
		refused, _ := b.ListEvents(ctx, "p_w", model.ChannelErrors, 100)
		if n := countPaused(t, b, "p_w"); n != 3 || len(refused) != 27 {
			t.Fatalf("30 pauses against a bound of 3: %d paused, %d refused; want 3 and 27", n, len(refused))
		}
		if got := string(out[29][0].Data); got != `{"held":3}` {
			t.Errorf("the last run's refusal: %s, want it to see 3 held", got)
		}
		// A run that resumes one of them and pauses it again fits.
		again, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		c := pausingCommit("ex_w-0", 3)
		c.Resume = "ex_w-0"
		if _, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: again, Commit: c}}); err != nil {
			t.Fatal(err)
		}
		if n := countPaused(t, b, "p_w"); n != 3 {
			t.Errorf("after a resume that paused again: %d paused, want 3", n)
		}
		// A lower bound than what is held removes nothing: it refuses more.
		lower, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "http"})
		if _, err := b.CompleteRun(ctx, lower, pausingCommit("ex_w-lower", 1)); err != nil {
			t.Fatal(err)
		}
		if n := countPaused(t, b, "p_w"); n != 3 {
			t.Errorf("under a lowered bound: %d paused, want the 3 kept", n)
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
		for i := range 12 {
			inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_c", Kind: "http"})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				if _, err := b.CompleteRun(ctx, inv, pausingCommit(fmt.Sprint("ex_c-", i), 3)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		refused, _ := b.ListEvents(ctx, "p_c", model.ChannelErrors, 100)
		if n := countPaused(t, b, "p_c"); n != 3 || len(refused) != 9 {
			t.Fatalf("12 concurrent pauses against a bound of 3: %d paused, %d refused", n, len(refused))
		}
	})
}

// TestPausedTable: a commit that pauses an execution stores its state
// and its entry (due time, URLs' hash), read apart; a resume removes
// them, and a resume of one gone already applies nothing; pausing it
// again replaces it, counted once; the events of the workflow's $in are
// not touched; a deleted workflow takes its paused executions along.
func TestPausedTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		if _, err := b.CreateWorkflow(ctx, workflow("p_ix", "u_a", "indexed"), nil); err != nil {
			t.Fatal(err)
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
		for i := range 5 {
			commit(RunCommit{Pause: paused(fmt.Sprint("ex_ix-", i), int64(1000*i), fmt.Sprint("h", i))})
		}
		e, found, err := b.PausedEntry(ctx, "p_ix", "ex_ix-2")
		if err != nil || !found || e.DueMs != 2000 || e.SecretHash != "h2" {
			t.Fatalf("the entry of a paused execution: %+v, %v, %v", e, found, err)
		}
		if state, err := b.PausedState(ctx, "p_ix", "ex_ix-2"); err != nil || string(state) != `{"execution":{"id":"ex_ix-2"}}` {
			t.Errorf("its state: %s, %v", state, err)
		}
		if _, found, _ := b.PausedEntry(ctx, "p_ix", "ex_ix-9"); found {
			t.Error("an execution never paused has an entry")
		}
		if _, err := b.PausedState(ctx, "p_ix", "ex_ix-9"); !isNotFound(err) {
			t.Errorf("the state of one never paused: %v, want ErrNotFound", err)
		}
		// Paused again (a rerun): replaced, counted once.
		again := RunCommit{Resume: "ex_ix-1", Pause: paused("ex_ix-1", 9000, "h9"), Events: []model.Event{{Name: "out", Data: json.RawMessage(`1`)}}}
		if out := commit(again); len(out) != 1 {
			t.Errorf("a resume that paused again stored %d events, want 1", len(out))
		}
		if e, _, _ := b.PausedEntry(ctx, "p_ix", "ex_ix-1"); e.DueMs != 9000 || e.SecretHash != "h9" {
			t.Errorf("after a pause again: %+v", e)
		}
		if n := countPaused(t, b, "p_ix"); n != 5 {
			t.Errorf("%d paused, want 5", n)
		}
		// Resumed: gone; a second resume of it applies nothing.
		commit(RunCommit{Resume: "ex_ix-3", Events: []model.Event{{Name: "out", Data: json.RawMessage(`2`)}}})
		if out := commit(RunCommit{Resume: "ex_ix-3", Events: []model.Event{{Name: "out", Data: json.RawMessage(`3`)}}}); len(out) != 0 {
			t.Errorf("a second resume of one execution stored %v", out)
		}
		if _, found, _ := b.PausedEntry(ctx, "p_ix", "ex_ix-3"); found {
			t.Error("a resumed execution still has an entry")
		}
		if n := countPaused(t, b, "p_ix"); n != 4 {
			t.Errorf("%d paused after a resume, want 4", n)
		}
		if evs, _ := b.ListEvents(ctx, "p_ix", model.ChannelDelayed, 10); len(evs) != 0 {
			t.Errorf("$in holds %d events: paused executions are not kept there", len(evs))
		}
		if err := b.DeleteWorkflow(ctx, "p_ix"); err != nil {
			t.Fatal(err)
		}
		wait.Until(t, "the deleted workflow's paused executions to go", wait.Short, func() bool {
			entries, err := b.PausedEntries(ctx, "p_ix")
			n, err2 := b.CountPaused(ctx, "p_ix")
			_, err3 := b.PausedState(ctx, "p_ix", "ex_ix-4")
			return err == nil && err2 == nil && len(entries) == 0 && n == 0 && isNotFound(err3)
		})
	})
}

func isNotFound(err error) bool { return errors.Is(err, model.ErrNotFound) }

// forgetPausedMoved takes the mark of a done move away, as a store of
// the layout before the paused table has none.
func (r rules) forgetPausedMoved(ctx context.Context) error {
	return r.kv.Update(ctx, func(tx kv.Tx) error { return tx.DeleteValue(kv.Meta, pausedMovedMark) })
}

// oldPausedEvent is a paused execution as the engine kept it on $in
// before the paused table.
func oldPausedEvent(wf, x string, dueMs int64, hash string) model.Event {
	return model.Event{Name: model.ChannelDelayed, Data: json.RawMessage(fmt.Sprintf(
		`{"v":1,"due_ms":%d,"paused":{"kind":"delay","step":"a","next":"b","steps":{},"context":{},"event":{},"execution":{"id":%q,"workflow_id":%q},"secret_hash":%q}}`,
		dueMs, x, wf, hash))}
}

// TestPausedMoveFromIn: the paused executions of a store from before the
// table, on their workflows' $in, are moved into it once: with their due
// times, hashes and states, $in left with only what is not one; a
// second move, or one after it was done, moves nothing again.
func TestPausedMoveFromIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		type mover interface {
			movePaused(ctx context.Context, events pagedEvents, log *slog.Logger) error
			forgetPausedMoved(ctx context.Context) error
		}
		m := b.(mover)
		if _, err := b.CreateWorkflow(ctx, workflow("p_old", "u_a", "old"), nil); err != nil {
			t.Fatal(err)
		}
		var old []model.Event
		for i := range 2*movePausedBatch + 7 { // more than a batch
			old = append(old, oldPausedEvent("p_old", fmt.Sprint("ex_old-", i), int64(1000+i), fmt.Sprint("h", i)))
		}
		old = append(old, model.Event{Name: model.ChannelDelayed, Data: json.RawMessage(`{"v":1,"due_ms":5}`)}) // not a paused execution
		if _, err := b.AppendEvents(ctx, "p_old", old, len(old)); err != nil {
			t.Fatal(err)
		}
		if err := m.forgetPausedMoved(ctx); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := m.movePaused(ctx, b, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
		}
		if n := countPaused(t, b, "p_old"); n != 2*movePausedBatch+7 {
			t.Fatalf("%d moved, want %d", n, 2*movePausedBatch+7)
		}
		e, found, err := b.PausedEntry(ctx, "p_old", "ex_old-3")
		if err != nil || !found || e.DueMs != 1003 || e.SecretHash != "h3" {
			t.Errorf("a moved entry: %+v %v %v", e, found, err)
		}
		state, err := b.PausedState(ctx, "p_old", "ex_old-3")
		var p struct {
			Execution struct{ ID string } `json:"execution"`
			Next      string              `json:"next"`
		}
		if err != nil || json.Unmarshal(state, &p) != nil || p.Execution.ID != "ex_old-3" || p.Next != "b" {
			t.Errorf("a moved state: %s, %v", state, err)
		}
		if left, _ := b.ListEvents(ctx, "p_old", model.ChannelDelayed, 1000); len(left) != 1 {
			t.Errorf("$in holds %d events after the move, want the one that is not a paused execution", len(left))
		}
		// A new $in event after the move is not one of the old form's.
		if _, err := b.AppendEvents(ctx, "p_old", []model.Event{oldPausedEvent("p_old", "ex_old-late", 1, "")}, 10); err != nil {
			t.Fatal(err)
		}
		if err := m.movePaused(ctx, b, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := b.PausedEntry(ctx, "p_old", "ex_old-late"); found {
			t.Error("a move ran again after it was done")
		}
	})
}

// TestBoltUpgradeMovesPausedExecutions: a bbolt file of version 7 whose
// workflow holds paused executions on $in opens as version 8 with them
// in the table, the old index of their URLs emptied.
func TestBoltUpgradeMovesPausedExecutions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fount.db")
	old, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.CreateWorkflow(ctx, workflow("p_up", "u_a", "up"), nil); err != nil {
		t.Fatal(err)
	}
	var events []model.Event
	for i := range 3 {
		events = append(events, oldPausedEvent("p_up", fmt.Sprint("ex_up-", i), int64(100+i), "h"))
	}
	if _, err := old.AppendEvents(ctx, "p_up", events, 10); err != nil {
		t.Fatal(err)
	}
	err = old.kv.Update(ctx, func(tx kv.Tx) error {
		if err := tx.PutValue(kv.PausedURLs, []byte(`{"event_id":"1-1","secret_hash":"h"}`), "p_up", "ex_up-0"); err != nil {
			return err
		}
		return tx.DeleteValue(kv.Meta, pausedMovedMark)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	setSchemaVersion(t, path, "7")

	st, err := OpenBolt(path)
	if err != nil {
		t.Fatalf("open a version 7 file: %v", err)
	}
	if n := countPaused(t, st, "p_up"); n != 3 {
		t.Errorf("%d paused executions after the upgrade, want 3", n)
	}
	if e, found, _ := st.PausedEntry(ctx, "p_up", "ex_up-2"); !found || e.DueMs != 102 {
		t.Errorf("a moved entry: %+v, %v", e, found)
	}
	if left, _ := st.ListEvents(ctx, "p_up", model.ChannelDelayed, 10); len(left) != 0 {
		t.Errorf("$in holds %d events after the upgrade", len(left))
	}
	err = st.kv.View(ctx, func(tx kv.Tx) error {
		if _, found, err := tx.Value(kv.PausedURLs, "p_up", "ex_up-0"); err != nil || found {
			return fmt.Errorf("the old index of URLs kept its entry (%v)", err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if v := schemaVersion(t, path); v != "8" {
		t.Errorf("the upgraded file is of version %s, want 8", v)
	}
}

// setSchemaVersion writes the layout version of the bbolt file at path.
func setSchemaVersion(t *testing.T, path, v string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(kv.Meta.Bucket).Put([]byte("schema_version"), []byte(v)) }); err != nil {
		t.Fatal(err)
	}
}

// schemaVersion reads the layout version of the bbolt file at path.
func schemaVersion(t *testing.T, path string) string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	_ = db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(kv.Meta.Bucket).Get([]byte("schema_version")))
		return nil
	})
	return v
}
