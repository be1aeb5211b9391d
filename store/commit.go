package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/ids"
	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// Bounds of one write transaction of CompleteRuns. bbolt has one writer:
// while a transaction is open, every other write of every tenant waits.
// A run may emit a few MiB in a hundred thousand events, and a batch
// holds several runs, so CompleteRuns ends its transaction once it has
// written this much and goes on in the next. Either bound makes a
// transaction of 10 to 20 ms on a busy 2-core machine; another writer
// waits for at most about two of them (BenchmarkCommitStall: 100,000
// events in one transaction held it for 300 to 450 ms).
const (
	txMaxEvents = 2048
	txMaxBytes  = 2 << 20
)

// routedOverhead estimates the bytes of a routed invocation's or
// delivery's record besides its event.
const routedOverhead = 256

// txBudget counts what one write transaction has written.
type txBudget struct {
	maxEvents, maxBytes int // <= 0: no bound
	events, bytes       int
}

func (b *txBudget) spend(events, bytes int) {
	if b != nil {
		b.events += events
		b.bytes += bytes
	}
}

// spent reports whether the transaction should end; a nil budget never is.
func (b *txBudget) spent() bool {
	return b != nil && ((b.maxEvents > 0 && b.events >= b.maxEvents) || (b.maxBytes > 0 && b.bytes >= b.maxBytes))
}

// CompleteRun commits a finished run of inv in one write transaction:
//
//  1. it removes inv (by SourceID and ID) from the queue;
//  2. it appends c.Events to the log of inv.SourceID exactly as
//     AppendEvents does (ids continue the emitter's sequence, each
//     channel trimmed to c.Keep, <= 0: 100);
//  3. for each stored event, in order, it calls c.Route (when not nil) and
//     enqueues what it returns: invocations as EnqueueInvocation does,
//     deliveries with ID assigned, Status DeliveryPending when empty,
//     CreatedAtMs now and NextAttemptMs now when zero;
//  4. it replaces the source's dedupe state with c.Dedupe when not nil;
//  5. when c.UsageAccount is not empty, it adds c.Invocations and
//     c.ComputeMs to the account's counters for c.UsageDay (empty: today,
//     UTC, by the store's clock).
//
// It returns the stored events, ids assigned. A run that emitted nothing
// still removes inv and counts usage.
//
// # Errors
//
// ErrNotFound when inv is no longer queued (already completed, or its
// source deleted); nothing changes then. An error from any step, such as
// a routed delivery with an unknown status, also changes nothing.
func (b *Bolt) CompleteRun(ctx context.Context, inv model.Invocation, c RunCommit) ([]model.Event, error) {
	var out []model.Event
	err := b.update(ctx, func(tx *bolt.Tx) error {
		if err := dequeue(tx, inv); err != nil {
			return fmt.Errorf("invocation %q: %w", inv.ID, err)
		}
		var err error
		out, err = b.applyCommit(tx, inv.SourceID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: complete run of %q: %w", inv.SourceID, err)
	}
	return out, nil
}

// CompleteRuns is CompleteRun for several runs, in order, in as few write
// transactions as the bounds of one allow (txMaxEvents, txMaxBytes), so
// that a worker that ran a batch pays for few commits and no commit holds
// the writer for long. A run whose invocation is no longer queued is
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
func (b *Bolt) CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]model.Event, error) {
	return completeInParts(ctx, runs, func(at commitPos) (next commitPos, stored [][]model.Event, err error) {
		err = b.write(func(tx *bolt.Tx) error {
			var err error
			next, stored, err = b.completePart(tx, runs, at)
			return err
		})
		return next, stored, err
	})
}

// completeInParts is CompleteRuns of every backend: it calls part, one
// transaction of the backend, from the start of runs until every run is
// committed, and gathers the events each stored. ctx is checked before
// the first part only.
func completeInParts(ctx context.Context, runs []CompletedRun, part func(at commitPos) (commitPos, [][]model.Event, error)) ([][]model.Event, error) {
	out := make([][]model.Event, len(runs))
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("store: complete %d runs: %w", len(runs), err)
	}
	for at := (commitPos{}); at.run < len(runs); {
		next, stored, err := part(at)
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

// completePart commits runs from at on, in tx, until the transaction's
// budget is spent, and returns where the next transaction starts and the
// events stored for runs[at.run], runs[at.run+1], ...
func (b *Bolt) completePart(tx *bolt.Tx, runs []CompletedRun, at commitPos) (commitPos, [][]model.Event, error) {
	budget := &txBudget{maxEvents: b.txMaxEvents, maxBytes: b.txMaxBytes}
	var stored [][]model.Event
	for at.run < len(runs) && !budget.spent() {
		r := runs[at.run]
		if !queued(tx, r.Invocation) {
			stored = append(stored, nil)
			at = commitPos{run: at.run + 1}
			continue
		}
		if err := checkRelease(r.Commit); err != nil {
			return at, nil, err
		}
		nowMs := b.now().UnixMilli()
		events, end, err := b.applyEvents(tx, nowMs, r.Invocation.SourceID, r.Commit, at.event, budget)
		if err != nil {
			return at, nil, err
		}
		stored = append(stored, events)
		if end < len(r.Commit.Events) { // the run goes on in the next transaction
			if f := r.Commit.DedupeAfter; f != nil {
				if err := putDedupe(tx, r.Invocation.SourceID, f(end)); err != nil {
					return at, nil, err
				}
			}
			return commitPos{run: at.run, event: end}, stored, nil
		}
		if err := dequeue(tx, r.Invocation); err != nil {
			return at, nil, fmt.Errorf("invocation %q: %w", r.Invocation.ID, err)
		}
		if err := b.finishCommit(tx, r.Invocation.SourceID, r.Commit); err != nil {
			return at, nil, err
		}
		budget.spend(1, 0)
		at = commitPos{run: at.run + 1}
	}
	return at, stored, nil
}

// CommitEvents applies c for sourceID as CompleteRun does, without an
// invocation to remove: events a source's lifecycle produced outside its
// runs (a hook re-run after a failed update).
func (b *Bolt) CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]model.Event, error) {
	if sourceID == "" {
		return nil, errors.New("store: commit events: empty source id")
	}
	var out []model.Event
	err := b.update(ctx, func(tx *bolt.Tx) error {
		var err error
		out, err = b.applyCommit(tx, sourceID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: commit events of %q: %w", sourceID, err)
	}
	return out, nil
}

// applyCommit applies all of c for the source inside tx and returns the
// stored events.
func (b *Bolt) applyCommit(tx *bolt.Tx, sourceID string, c RunCommit) ([]model.Event, error) {
	if err := checkRelease(c); err != nil {
		return nil, err
	}
	out, _, err := b.applyEvents(tx, b.now().UnixMilli(), sourceID, c, 0, nil)
	if err != nil {
		return nil, err
	}
	return out, b.finishCommit(tx, sourceID, c)
}

// checkRelease refuses a commit whose Release does not pair with Events.
func checkRelease(c RunCommit) error {
	if len(c.Release) > 0 && len(c.Release) != len(c.Events) {
		return fmt.Errorf("release: %d ids for %d events", len(c.Release), len(c.Events))
	}
	return nil
}

// applyEvents stores c.Events[from:] for the source, releasing and routing
// each, until budget is spent (a nil budget never is; at least one event
// is stored). It returns the stored events and the index of the first
// event it left for later (len(c.Events) when none).
func (b *Bolt) applyEvents(tx *bolt.Tx, nowMs int64, sourceID string, c RunCommit, from int, budget *txBudget) ([]model.Event, int, error) {
	if from >= len(c.Events) {
		return nil, from, nil
	}
	a, err := newAppender(tx, nowMs, sourceID, c.Keep)
	if err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	var out []model.Event
	i := from
	for ; i < len(c.Events) && (i == from || !budget.spent()); i++ {
		if len(c.Release) > 0 {
			ok, err := release(tx, sourceID, c.Release[i])
			if err != nil {
				return nil, from, err
			}
			if !ok {
				continue // cancelled meanwhile
			}
		}
		e := c.Events[i]
		n, err := a.add(&e)
		if err != nil {
			return nil, from, fmt.Errorf("append events: %w", err)
		}
		budget.spend(1, n)
		if c.Route != nil {
			n, err := b.enqueueRouted(tx, nowMs, c.Route(e))
			if err != nil {
				return nil, from, fmt.Errorf("route event %s: %w", e.ID, err)
			}
			budget.spend(0, n)
		}
		out = append(out, e)
	}
	if err := a.close(); err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	return out, i, nil
}

// finishCommit writes what a commit changes besides its events: the
// dedupe state, a workflow's execution and deliveries, and the usage.
func (b *Bolt) finishCommit(tx *bolt.Tx, sourceID string, c RunCommit) error {
	if err := putDedupe(tx, sourceID, c.Dedupe); err != nil {
		return err
	}
	if c.Execution != nil {
		if err := putExecution(tx, c.Execution, c.ExecutionsKept); err != nil {
			return err
		}
	}
	if len(c.Deliveries) > 0 {
		if _, err := b.enqueueRouted(tx, b.now().UnixMilli(), Routed{Deliveries: c.Deliveries}); err != nil {
			return err
		}
	}
	if c.UsageAccount != "" {
		day := c.UsageDay
		if day == "" {
			day = b.now().UTC().Format(time.DateOnly)
		}
		if err := addUsage(tx, c.UsageAccount, day, model.Usage{Invocations: c.Invocations, ComputeMs: c.ComputeMs}); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	return nil
}

// putDedupe replaces the source's dedupe state with st, unless st is nil.
func putDedupe(tx *bolt.Tx, sourceID string, st *model.DedupeState) error {
	if st == nil {
		return nil
	}
	if err := putJSON(tx.Bucket(bucketDedupe), sourceID, st); err != nil {
		return fmt.Errorf("dedupe: %w", err)
	}
	return nil
}

// enqueueRouted enqueues what routing one event returned and returns
// about how many bytes it wrote.
func (b *Bolt) enqueueRouted(tx *bolt.Tx, nowMs int64, r Routed) (int, error) {
	n := 0
	for _, inv := range r.Invocations {
		if _, err := enqueueInvocation(tx, nowMs, inv); err != nil {
			return n, fmt.Errorf("enqueue invocation for %q: %w", inv.SourceID, err)
		}
		n += len(inv.Event) + routedOverhead
	}
	for _, d := range r.Deliveries {
		if ids.Is(d.ListenerID, ids.Webhook) && tx.Bucket(bucketWebhooks).Get([]byte(d.ListenerID)) == nil {
			continue // deleted since the route was computed: nobody to deliver to
		}
		if _, err := b.createDelivery(tx, nowMs, d); err != nil {
			return n, fmt.Errorf("enqueue delivery to %q: %w", d.ListenerID, err)
		}
		n += len(d.Payload) + routedOverhead
	}
	return n, nil
}

// release removes the event id from sourceID's ChannelDelayed; false when
// it is not there (cancelled).
func release(tx *bolt.Tx, sourceID, id string) (bool, error) {
	ms, seq, err := model.ParseEventID(id)
	if err != nil {
		return false, fmt.Errorf("release: %w", err)
	}
	ch := channelBucket(tx, sourceID, model.ChannelDelayed)
	key := eventKey(ms, seq)
	if ch == nil || ch.Get(key) == nil {
		return false, nil
	}
	if err := ch.Delete(key); err != nil {
		return false, err
	}
	return true, forgetEvents(tx.Bucket(bucketEvents).Bucket([]byte(sourceID)), model.ChannelDelayed, 1)
}
