package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// routedOverhead estimates the bytes of a routed invocation's or
// delivery's record besides its event.
const routedOverhead = 256

// CompleteRun commits a finished run of inv:
//
//  1. it removes inv (by TargetID and ID) from the queue;
//  2. it appends c.Events to the log of inv.TargetID exactly as
//     AppendEvents does (ids continue the emitter's sequence, each
//     channel trimmed to c.Keep, <= 0: 100);
//  3. for each stored event, in order, it calls c.Route (when not nil) and
//     enqueues what it returns: invocations as EnqueueInvocation does,
//     deliveries with ID assigned, Status DeliveryPending when empty,
//     CreatedAtMs now and NextAttemptMs now when zero;
//  4. it replaces the source's dedupe state with c.Dedupe when not nil;
//  5. when c.UsageAccount is not empty, it adds c.Invocations and
//     c.ComputeMs to the account's counters for c.UsageDay (empty: today,
//     UTC, by the store's clock);
//  6. it adds the events stored and the run's outcome to the source's
//     statistics of the minute (stats.go).
//
// It returns the stored events, ids assigned. A run that emitted nothing
// still removes inv and counts usage. It is one transaction, but for a
// run of more events than the engine commits at once (MaxRunEvents),
// which is committed as CompleteRuns commits it: in parts.
//
// # Errors
//
// ErrNotFound when inv is no longer queued (already completed, or its
// source deleted); nothing changes then. An error from any step, such as
// a routed delivery with an unknown status, also changes nothing.
func (r rules) CompleteRun(ctx context.Context, inv model.Invocation, c RunCommit) ([]model.Event, error) {
	if len(c.Events) > r.kv.MaxRunEvents() {
		out, err := r.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: c}})
		if err == nil && out[0] == nil { // it had events to store: its invocation was gone
			err = fmt.Errorf("invocation %q: %w", inv.ID, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("store: complete run of %q: %w", inv.TargetID, err)
		}
		return out[0], nil
	}
	var out []model.Event
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if err := tx.Dequeue(inv); err != nil {
			return fmt.Errorf("invocation %q: %w", inv.ID, err)
		}
		var err error
		out, err = r.applyCommit(tx, inv.TargetID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: complete run of %q: %w", inv.TargetID, err)
	}
	return out, nil
}

// CompleteRuns is CompleteRun for several runs, in order, in as few
// transactions as the bounds of one allow (kv.Engine.Batch), so that a
// worker that ran a batch pays for few commits: the records the runs
// share (the source's channels and clock, the account's usage) are read
// once per transaction. A run whose invocation is no longer queued is
// skipped (its result is nil).
//
// A run's completion (removing its invocation, its final dedupe state,
// its usage) is committed with its last events. A run too large for one
// transaction has its first events committed before, each transaction
// with the dedupe state that c.DedupeAfter gives for the events stored so
// far: after a crash in between, the invocation is still queued and runs
// again, and what it emits again is deduplicated as the first part was
// (with no dedupe strategy it is stored twice). Once begun, CompleteRuns
// goes on to the end whatever ctx says, so that no run is left half
// committed but by a crash.
//
// # Errors
//
// An error of a transaction changes nothing of it; the results of the
// runs completed before it are returned with the error.
func (r rules) CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]model.Event, error) {
	out := make([][]model.Event, len(runs))
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("store: complete %d runs: %w", len(runs), err)
	}
	for at := (commitPos{}); at.run < len(runs); {
		var next commitPos
		var stored [][]model.Event
		err := r.kv.Batch(ctx, func(tx kv.Tx) error {
			var err error
			next, stored, err = r.completePart(tx, runs, at)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("store: complete %d runs: %w", len(runs), err)
		}
		for i, events := range stored {
			out[at.run+i] = append(out[at.run+i], events...)
		}
		at = next
	}
	return out, nil
}

// commitPos is how far CompleteRuns has come: runs before run are done,
// and run's events before event are stored.
type commitPos struct{ run, event int }

// completePart commits runs from at on, in tx, until tx is full, and
// returns where the next transaction starts and the events stored for
// runs[at.run], runs[at.run+1], ...
func (r rules) completePart(tx kv.Tx, runs []CompletedRun, at commitPos) (commitPos, [][]model.Event, error) {
	var stored [][]model.Event
	var err error
	tally := statsTally{}
	for at.run < len(runs) && (len(stored) == 0 || !tx.Full()) {
		run := runs[at.run]
		if err := checkRun(run); err != nil {
			return at, nil, err
		}
		resumed := run.Invocation.ID == "" // its paused record stands for its invocation
		queued := resumed
		if !resumed {
			if queued, err = tx.Queued(run.Invocation); err != nil {
				return at, nil, err
			}
		}
		sourceID := run.Invocation.TargetID
		if queued && at.event == 0 {
			if queued, err = consumePaused(tx, sourceID, run.Commit); err != nil {
				return at, nil, err
			}
			if !queued && !resumed { // resumed elsewhere: the invocation goes, with nothing of its run
				if err := tx.Dequeue(run.Invocation); err != nil {
					return at, nil, fmt.Errorf("invocation %q: %w", run.Invocation.ID, err)
				}
			}
		}
		if !queued {
			stored = append(stored, nil)
			at = commitPos{run: at.run + 1}
			continue
		}
		bounded := true
		if at.event == 0 {
			var over bool
			if run.Commit, over, err = boundPaused(tx, sourceID, run.Commit); err != nil {
				return at, nil, err
			}
			bounded = !over // the commit that replaced it is applied whole: the next part would read the first
		}
		events, end, err := applyEvents(tx, r.now().UnixMilli(), sourceID, run.Commit, at.event, bounded)
		if err != nil {
			return at, nil, err
		}
		stored = append(stored, events)
		tally.countEvents(sourceID, events)
		if end < len(run.Commit.Events) { // the run goes on in the next transaction
			if f := run.Commit.DedupeAfter; f != nil {
				if err := putDedupe(tx, sourceID, f(end)); err != nil {
					return at, nil, err
				}
			}
			return commitPos{run: at.run, event: end}, stored, r.writeStats(tx, r.now(), tally)
		}
		if !resumed {
			if err := tx.Dequeue(run.Invocation); err != nil {
				return at, nil, fmt.Errorf("invocation %q: %w", run.Invocation.ID, err)
			}
		}
		if err := r.finishCommit(tx, sourceID, run.Commit); err != nil {
			return at, nil, err
		}
		tally.countRun(sourceID, run.Commit)
		tx.Spend(1, 0)
		at = commitPos{run: at.run + 1}
	}
	return at, stored, r.writeStats(tx, r.now(), tally)
}

// CommitEvents applies c for sourceID as CompleteRun does, without an
// invocation to remove: events a source's lifecycle produced outside its
// runs (a hook re-run after a failed update).
func (r rules) CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]model.Event, error) {
	if sourceID == "" {
		return nil, errors.New("store: commit events: empty source id")
	}
	var out []model.Event
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var err error
		out, err = r.applyCommit(tx, sourceID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: commit events of %q: %w", sourceID, err)
	}
	return out, nil
}

// applyCommit applies all of c for the source inside tx, however much it
// writes, and returns the stored events.
func (r rules) applyCommit(tx kv.Tx, sourceID string, c RunCommit) ([]model.Event, error) {
	if err := checkRelease(c); err != nil {
		return nil, err
	}
	if ok, err := consumePaused(tx, sourceID, c); err != nil || !ok {
		return nil, err
	}
	c, _, err := boundPaused(tx, sourceID, c)
	if err != nil {
		return nil, err
	}
	out, _, err := applyEvents(tx, r.now().UnixMilli(), sourceID, c, 0, false)
	if err != nil {
		return nil, err
	}
	if err := r.finishCommit(tx, sourceID, c); err != nil {
		return nil, err
	}
	tally := statsTally{}
	tally.countEvents(sourceID, out)
	tally.countRun(sourceID, c)
	return out, r.writeStats(tx, r.now(), tally)
}

// checkRun refuses a run that cannot be committed as it is: one without
// an invocation that resumes no paused execution, or whose Release does
// not pair with its Events.
func checkRun(run CompletedRun) error {
	if run.Invocation.ID == "" && run.Commit.Resume == "" {
		return fmt.Errorf("a run of %q has neither an invocation nor a paused execution it resumes", run.Invocation.TargetID)
	}
	return checkRelease(run.Commit)
}

// consumePaused removes the paused execution c resumes, if any; false
// when it is gone already, and c must then apply nothing.
func consumePaused(tx kv.Tx, workflowID string, c RunCommit) (bool, error) {
	if c.Resume == "" {
		return true, nil
	}
	ok, err := removePaused(tx, workflowID, c.Resume)
	if err != nil {
		return false, fmt.Errorf("resume %s: %w", c.Resume, err)
	}
	return ok, nil
}

// boundPaused is c, or what c.OverPaused gives instead when c's Pause
// would make the workflow hold more than c.MaxPaused paused executions
// (true then); counted in tx, after c's Resume was removed.
func boundPaused(tx kv.Tx, workflowID string, c RunCommit) (RunCommit, bool, error) {
	if c.MaxPaused <= 0 || c.OverPaused == nil || c.Pause == nil {
		return c, false, nil
	}
	held, err := pausedCount(tx, workflowID)
	if err != nil {
		return c, false, fmt.Errorf("count the paused executions: %w", err)
	}
	if held+1 <= c.MaxPaused {
		return c, false, nil
	}
	over := c.OverPaused(c, held)
	over.Resume, over.MaxPaused, over.OverPaused, over.Pause = c.Resume, 0, nil, nil // its paused record is removed already
	return over, true, checkRelease(over)
}

// checkRelease refuses a commit whose Release does not pair with Events.
func checkRelease(c RunCommit) error {
	if len(c.Release) > 0 && len(c.Release) != len(c.Events) {
		return fmt.Errorf("release: %d ids for %d events", len(c.Release), len(c.Events))
	}
	return nil
}

// applyEvents stores c.Events[from:] for the source, releasing and routing
// each, until tx is full when bounded (at least one event is stored). It
// returns the stored events and the index of the first event it left for
// later (len(c.Events) when none).
func applyEvents(tx kv.Tx, nowMs int64, sourceID string, c RunCommit, from int, bounded bool) ([]model.Event, int, error) {
	if from >= len(c.Events) {
		return nil, from, nil
	}
	a, err := tx.AppendEvents(nowMs, sourceID, c.Keep)
	if err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	var out []model.Event
	i := from
	for ; i < len(c.Events) && (i == from || !bounded || !tx.Full()); i++ {
		if len(c.Release) > 0 {
			ok, err := a.Release(c.Release[i])
			if err != nil {
				return nil, from, err
			}
			if !ok {
				continue // cancelled meanwhile
			}
		}
		e := c.Events[i]
		n, err := a.Add(&e)
		if err != nil {
			return nil, from, fmt.Errorf("append events: %w", err)
		}
		tx.Spend(1, n)
		if c.Route != nil {
			if err := enqueueRouted(tx, nowMs, c.Route(e)); err != nil {
				return nil, from, fmt.Errorf("route event %s: %w", e.ID, err)
			}
		}
		out = append(out, e)
	}
	if err := a.Close(); err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	return out, i, nil
}

// finishCommit writes what a commit changes besides its events: the
// dedupe state, a workflow's execution, its pause and its deliveries,
// and the usage.
func (r rules) finishCommit(tx kv.Tx, sourceID string, c RunCommit) error {
	if err := putDedupe(tx, sourceID, c.Dedupe); err != nil {
		return err
	}
	if c.Execution != nil {
		if err := tx.PutExecution(c.Execution, c.ExecutionsKept); err != nil {
			return err
		}
	}
	if c.Pause != nil {
		if err := putPaused(tx, sourceID, c.Pause); err != nil {
			return fmt.Errorf("pause execution %s: %w", c.Pause.ExecutionID, err)
		}
		tx.Spend(0, len(c.Pause.State))
	}
	if len(c.Deliveries) > 0 {
		if err := enqueueRouted(tx, r.now().UnixMilli(), Routed{Deliveries: c.Deliveries}); err != nil {
			return err
		}
	}
	if c.UsageAccount != "" {
		day := c.UsageDay
		if day == "" {
			day = r.now().UTC().Format(time.DateOnly)
		}
		if err := addUsage(tx, c.UsageAccount, day, model.Usage{Invocations: c.Invocations, ComputeMs: c.ComputeMs}); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	return nil
}

// enqueueRouted enqueues what routing one event returned, and spends
// about the bytes it wrote from tx's bound.
func enqueueRouted(tx kv.Tx, nowMs int64, r Routed) error {
	for _, inv := range r.Invocations {
		if err := tx.Enqueue(nowMs, inv); err != nil {
			return fmt.Errorf("enqueue invocation for %q: %w", inv.TargetID, err)
		}
		tx.Spend(0, len(inv.Event)+routedOverhead)
	}
	for _, d := range r.Deliveries {
		if d.What() == model.DeliveryToWebhook {
			ok, err := hasRecord(tx, kv.Webhooks, d.ListenerID)
			if err != nil {
				return err
			}
			if !ok {
				continue // deleted since the route was computed: nobody to deliver to
			}
		}
		if _, err := tx.CreateDelivery(nowMs, d); err != nil {
			return fmt.Errorf("enqueue delivery to %q: %w", d.ListenerID, err)
		}
		tx.Spend(0, len(d.Payload)+routedOverhead)
	}
	return nil
}
