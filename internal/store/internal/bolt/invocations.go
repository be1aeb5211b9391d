package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// EnqueueInvocation stores inv at the end of the store's invocation
// queue, with ID (decimal, increasing per store, so id order is enqueue
// order) and EnqueuedAtMs (the store's clock) assigned, and returns it.
//
// The store does not check that the source exists: an invocation queued
// for a source deleted meanwhile is dropped by calling CompleteRun with an
// empty RunCommit.
//
// Concurrent calls are coalesced into one write transaction (see
// groupCommit), so that many requests arriving together share one fsync,
// and a lone call waits for nothing but its own.
func (b *Engine) EnqueueInvocation(ctx context.Context, inv model.Invocation) (model.Invocation, error) {
	if err := ctx.Err(); err != nil {
		return model.Invocation{}, err
	}
	in := inv
	err := b.grouped(func(tx *bbolt.Tx) error {
		var err error
		inv, err = enqueueInvocation(tx, b.now().UnixMilli(), in)
		return err
	})
	if err != nil {
		return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", in.TargetID, err)
	}
	return inv, nil
}

// EnqueueInvocationWithin is EnqueueInvocation refused with
// kv.ErrQueueFull when inv's target holds limit queued invocations
// already (limit <= 0: no bound), counted in the enqueue's transaction.
// A refusal writes nothing and fails no other writer of its group.
func (b *Engine) EnqueueInvocationWithin(ctx context.Context, inv model.Invocation, limit int) (model.Invocation, error) {
	if limit <= 0 {
		return b.EnqueueInvocation(ctx, inv)
	}
	if err := ctx.Err(); err != nil {
		return model.Invocation{}, err
	}
	in := inv
	var full bool
	err := b.grouped(func(tx *bbolt.Tx) error {
		full = false
		if countQueued(tx, in.TargetID, limit) >= limit {
			full = true
			return nil
		}
		var err error
		inv, err = enqueueInvocation(tx, b.now().UnixMilli(), in)
		return err
	})
	switch {
	case err != nil:
		return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", in.TargetID, err)
	case full:
		return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", in.TargetID, kv.ErrQueueFull)
	}
	return inv, nil
}

// countQueued counts sourceID's queued invocations in tx, up to limit.
func countQueued(tx *bbolt.Tx, sourceID string, limit int) int {
	queue := tx.Bucket(bucketInvocations).Bucket([]byte(sourceID))
	if queue == nil || sourceID == "" {
		return 0
	}
	n := 0
	c := queue.Cursor()
	for k, _ := c.First(); k != nil && n < limit; k, _ = c.Next() {
		n++
	}
	return n
}

// enqueueInvocation is EnqueueInvocation inside tx at clock nowMs.
func enqueueInvocation(tx *bbolt.Tx, nowMs int64, inv model.Invocation) (model.Invocation, error) {
	if inv.TargetID == "" {
		return model.Invocation{}, errors.New("empty source id")
	}
	all := tx.Bucket(bucketInvocations)
	seq, err := all.NextSequence()
	if err != nil {
		return model.Invocation{}, err
	}
	inv.ID, inv.EnqueuedAtMs = kv.SeqID(seq), nowMs
	data, err := json.Marshal(inv)
	if err != nil {
		return model.Invocation{}, fmt.Errorf("encode invocation: %w", err)
	}
	queue, err := all.CreateBucketIfNotExists([]byte(inv.TargetID))
	if err != nil {
		return model.Invocation{}, err
	}
	return inv, queue.Put(kv.BE8(seq), data)
}

// PendingInvocations returns up to limit (<= 0: 100) queued invocations
// of sourceID, oldest first; none for a source with nothing queued.
func (b *Engine) PendingInvocations(ctx context.Context, sourceID string, limit int) ([]model.Invocation, error) {
	if limit <= 0 {
		limit = kv.DefaultQueueLimit
	}
	out := []model.Invocation{}
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		if sourceID == "" {
			return nil
		}
		queue := tx.Bucket(bucketInvocations).Bucket([]byte(sourceID))
		if queue == nil {
			return nil
		}
		c := queue.Cursor()
		for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
			var inv model.Invocation
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

// CountPending counts sourceID's queued invocations, up to limit; it
// reads their keys only.
func (b *Engine) CountPending(ctx context.Context, sourceID string, limit int) (int, error) {
	n := 0
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		n = countQueued(tx, sourceID, limit)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count pending invocations of %q: %w", sourceID, err)
	}
	return n, nil
}

// TargetsWithPending lists the sources and workflows that have queued
// invocations, in byte order of the id; each is named by its first
// queued invocation.
func (b *Engine) TargetsWithPending(ctx context.Context) ([]model.Target, error) {
	out := []model.Target{}
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		all := tx.Bucket(bucketInvocations)
		return all.ForEachBucket(func(name []byte) error {
			k, v := all.Bucket(name).Cursor().First()
			if k == nil {
				return nil
			}
			var inv model.Invocation
			if err := json.Unmarshal(v, &inv); err != nil {
				return fmt.Errorf("decode an invocation of %s: %w", name, err)
			}
			out = append(out, inv.Target())
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: targets with pending invocations: %w", err)
	}
	return out, nil
}

// queued reports whether inv (found by SourceID and ID) is queued.
func queued(tx *bbolt.Tx, inv model.Invocation) bool {
	seq, ok := kv.ParseSeqID(inv.ID)
	if inv.TargetID == "" || !ok {
		return false
	}
	queue := tx.Bucket(bucketInvocations).Bucket([]byte(inv.TargetID))
	return queue != nil && has(queue, kv.BE8(seq))
}

// dequeue removes the queued invocation inv (found by SourceID and ID),
// and its source's queue once empty. kv.ErrNotFound when it is not queued.
func dequeue(tx *bbolt.Tx, inv model.Invocation) error {
	seq, ok := kv.ParseSeqID(inv.ID)
	if inv.TargetID == "" || !ok {
		return kv.ErrNotFound
	}
	all := tx.Bucket(bucketInvocations)
	queue := all.Bucket([]byte(inv.TargetID))
	if queue == nil || !has(queue, kv.BE8(seq)) {
		return kv.ErrNotFound
	}
	if err := queue.Delete(kv.BE8(seq)); err != nil {
		return err
	}
	if k, _ := queue.Cursor().First(); k == nil {
		return all.DeleteBucket([]byte(inv.TargetID))
	}
	return nil
}

// deleteInvocationsOf removes every queued invocation of sourceID.
func deleteInvocationsOf(tx *bbolt.Tx, sourceID string) error {
	return deleteNested(tx.Bucket(bucketInvocations), sourceID)
}
