package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fount-dev/fount/ids"
	bolt "go.etcd.io/bbolt"
)

// defaultQueueLimit is the limit of PendingInvocations and DueDeliveries
// when given <= 0.
const defaultQueueLimit = 100

// seqID is the id of sequence number seq: its decimal form.
func seqID(seq uint64) string {
	return strconv.FormatUint(seq, 10)
}

// parseSeqID returns the sequence number of an id made by seqID, or
// false for anything else (so no other string aliases a key).
func parseSeqID(id string) (uint64, bool) {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || seqID(seq) != id {
		return 0, false
	}
	return seq, true
}

// EnqueueInvocation stores inv at the end of the store's invocation
// queue, with ID (decimal, increasing per store, so id order is enqueue
// order) and EnqueuedAtMs (the store's clock) assigned, and returns it.
//
// The store does not check that the source exists: an invocation queued
// for a source deleted meanwhile is dropped by calling CompleteRun with an
// empty RunCommit.
//
// Concurrent calls are coalesced into one write transaction (bbolt's
// Batch), so that many requests arriving together share one fsync.
func (b *Bolt) EnqueueInvocation(ctx context.Context, inv Invocation) (Invocation, error) {
	if err := ctx.Err(); err != nil {
		return Invocation{}, err
	}
	in := inv
	err := b.db.Batch(func(tx *bolt.Tx) error {
		var err error
		inv, err = enqueueInvocation(tx, b.now().UnixMilli(), in)
		return err
	})
	if err != nil {
		return Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", inv.SourceID, err)
	}
	return inv, nil
}

// enqueueInvocation is EnqueueInvocation inside tx at clock nowMs.
func enqueueInvocation(tx *bolt.Tx, nowMs int64, inv Invocation) (Invocation, error) {
	if inv.SourceID == "" {
		return Invocation{}, errors.New("empty source id")
	}
	all := tx.Bucket(bucketInvocations)
	seq, err := all.NextSequence()
	if err != nil {
		return Invocation{}, err
	}
	inv.ID, inv.EnqueuedAtMs = seqID(seq), nowMs
	data, err := json.Marshal(inv)
	if err != nil {
		return Invocation{}, fmt.Errorf("encode invocation: %w", err)
	}
	queue, err := all.CreateBucketIfNotExists([]byte(inv.SourceID))
	if err != nil {
		return Invocation{}, err
	}
	return inv, queue.Put(be8(seq), data)
}

// PendingInvocations returns up to limit (<= 0: 100) queued invocations
// of sourceID, oldest first; none for a source with nothing queued.
func (b *Bolt) PendingInvocations(ctx context.Context, sourceID string, limit int) ([]Invocation, error) {
	if limit <= 0 {
		limit = defaultQueueLimit
	}
	out := []Invocation{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		if sourceID == "" {
			return nil
		}
		queue := tx.Bucket(bucketInvocations).Bucket([]byte(sourceID))
		if queue == nil {
			return nil
		}
		c := queue.Cursor()
		for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
			var inv Invocation
			if err := json.Unmarshal(v, &inv); err != nil {
				return fmt.Errorf("decode invocation %x: %w", k, err)
			}
			out = append(out, inv)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: pending invocations of %q: %w", sourceID, err)
	}
	return out, nil
}

// SourcesWithPending lists the ids of the sources that have queued
// invocations, in byte order of the id.
func (b *Bolt) SourcesWithPending(ctx context.Context) ([]string, error) {
	out := []string{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		all := tx.Bucket(bucketInvocations)
		return all.ForEachBucket(func(name []byte) error {
			if k, _ := all.Bucket(name).Cursor().First(); k != nil {
				out = append(out, string(name))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: sources with pending invocations: %w", err)
	}
	return out, nil
}

// dequeue removes the queued invocation inv (found by SourceID and ID),
// and its source's queue once empty. ErrNotFound when it is not queued.
func dequeue(tx *bolt.Tx, inv Invocation) error {
	seq, ok := parseSeqID(inv.ID)
	if inv.SourceID == "" || !ok {
		return ErrNotFound
	}
	all := tx.Bucket(bucketInvocations)
	queue := all.Bucket([]byte(inv.SourceID))
	if queue == nil || !has(queue, be8(seq)) {
		return ErrNotFound
	}
	if err := queue.Delete(be8(seq)); err != nil {
		return err
	}
	if k, _ := queue.Cursor().First(); k == nil {
		return all.DeleteBucket([]byte(inv.SourceID))
	}
	return nil
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
func (b *Bolt) CompleteRun(ctx context.Context, inv Invocation, c RunCommit) ([]Event, error) {
	var out []Event
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

// CompleteRuns is CompleteRun for several runs in one transaction, so that
// a worker that ran a batch of invocations pays for one commit. Runs are
// applied in order; a run whose invocation is no longer queued is skipped
// (its result is nil). Any other error changes nothing.
func (b *Bolt) CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]Event, error) {
	out := make([][]Event, len(runs))
	err := b.update(ctx, func(tx *bolt.Tx) error {
		for i, r := range runs {
			if err := dequeue(tx, r.Invocation); errors.Is(err, ErrNotFound) {
				out[i] = nil
				continue
			} else if err != nil {
				return fmt.Errorf("invocation %q: %w", r.Invocation.ID, err)
			}
			events, err := b.applyCommit(tx, r.Invocation.SourceID, r.Commit)
			if err != nil {
				return err
			}
			out[i] = events
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: complete %d runs: %w", len(runs), err)
	}
	return out, nil
}

// CommitEvents applies c for sourceID as CompleteRun does, without an
// invocation to remove: events a source's lifecycle produced outside its
// runs (a hook re-run after a failed update).
func (b *Bolt) CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]Event, error) {
	if sourceID == "" {
		return nil, errors.New("store: commit events: empty source id")
	}
	var out []Event
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

// applyCommit applies c for the source inside tx and returns the stored
// events.
func (b *Bolt) applyCommit(tx *bolt.Tx, sourceID string, c RunCommit) ([]Event, error) {
	out := make([]Event, len(c.Events))
	copy(out, c.Events)
	if len(c.Release) > 0 {
		var err error
		if out, err = release(tx, sourceID, c.Release, out); err != nil {
			return nil, err
		}
	}
	err := func() error {
		now := b.now()
		nowMs := now.UnixMilli()
		if err := appendEvents(tx, nowMs, sourceID, out, c.Keep); err != nil {
			return fmt.Errorf("append events: %w", err)
		}
		if c.Route != nil {
			for _, e := range out {
				if err := enqueueRouted(tx, nowMs, c.Route(e)); err != nil {
					return fmt.Errorf("route event %s: %w", e.ID, err)
				}
			}
		}
		if c.Dedupe != nil {
			if err := putJSON(tx.Bucket(bucketDedupe), sourceID, c.Dedupe); err != nil {
				return fmt.Errorf("dedupe: %w", err)
			}
		}
		if c.UsageAccount != "" {
			day := c.UsageDay
			if day == "" {
				day = now.UTC().Format(time.DateOnly)
			}
			if err := addUsage(tx, c.UsageAccount, day, c.Invocations, c.ComputeMs); err != nil {
				return fmt.Errorf("usage: %w", err)
			}
		}
		return nil
	}()
	return out, err
}

// enqueueRouted enqueues what routing one event returned.
func enqueueRouted(tx *bolt.Tx, nowMs int64, r Routed) error {
	for _, inv := range r.Invocations {
		if _, err := enqueueInvocation(tx, nowMs, inv); err != nil {
			return fmt.Errorf("enqueue invocation for %q: %w", inv.SourceID, err)
		}
	}
	for _, d := range r.Deliveries {
		if ids.Is(d.ListenerID, ids.Webhook) && tx.Bucket(bucketWebhooks).Get([]byte(d.ListenerID)) == nil {
			continue // deleted since the route was computed: nobody to deliver to
		}
		if _, err := createDelivery(tx, nowMs, d); err != nil {
			return fmt.Errorf("enqueue delivery to %q: %w", d.ListenerID, err)
		}
	}
	return nil
}

// deleteInvocationsOf removes every queued invocation of sourceID.
func deleteInvocationsOf(tx *bolt.Tx, sourceID string) error {
	return deleteNested(tx.Bucket(bucketInvocations), sourceID)
}

// release removes the named events from sourceID's ChannelDelayed and
// returns the events of out whose delayed original was still there.
func release(tx *bolt.Tx, sourceID string, ids []string, out []Event) ([]Event, error) {
	if len(ids) != len(out) {
		return nil, fmt.Errorf("release: %d ids for %d events", len(ids), len(out))
	}
	ch := channelBucket(tx, sourceID, ChannelDelayed)
	kept := out[:0]
	for i, id := range ids {
		ms, seq, err := ParseEventID(id)
		if err != nil {
			return nil, err
		}
		key := eventKey(ms, seq)
		if ch == nil || ch.Get(key) == nil {
			continue // cancelled meanwhile
		}
		if err := ch.Delete(key); err != nil {
			return nil, err
		}
		kept = append(kept, out[i])
	}
	return kept, nil
}
