package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// Deliveries live in three buckets: the records by 8-byte sequence
// number (the ID is its decimal form), the per-listener order index
// key(listener)+seq that ListDeliveries pages through, and the
// per-listener due index key(listener)+next-attempt-ms+seq holding pending
// deliveries only. In the due index a listener's first key is its
// earliest due delivery, so DueDeliveries takes one delivery per listener
// by seeking from listener to listener: a poll costs one seek per
// listener with pending deliveries, however long any listener's backlog.

// orderKey is the key of delivery seq in its listener's list.
func orderKey(listenerID string, seq uint64) []byte {
	return append(kv.Key(listenerID), kv.BE8(seq)...)
}

// dueKey is the key of a pending delivery seq in the due index: its
// listener, its next attempt (negative counts as 0), then seq, so that
// within a listener byte order is due order.
func dueKey(d model.Delivery, seq uint64) []byte {
	k := binary.BigEndian.AppendUint64(kv.Key(d.ListenerID), uint64(max(d.NextAttemptMs, 0)))
	return binary.BigEndian.AppendUint64(k, seq)
}

// splitDueKey decodes a due index key into its listener, next attempt
// and sequence number.
func splitDueKey(k []byte) (listener string, dueMs, seq uint64, err error) {
	if len(k) < 16 {
		return "", 0, 0, fmt.Errorf("corrupt due key %x", k)
	}
	listener, err = lastPart(k[:len(k)-16])
	if err != nil {
		return "", 0, 0, fmt.Errorf("corrupt due key %x: %w", k, err)
	}
	return listener, binary.BigEndian.Uint64(k[len(k)-16:]), binary.BigEndian.Uint64(k[len(k)-8:]), nil
}

// pastListener is a key after every due key of listener and before those
// of the listeners after it: key() is prefix-free, so a listener that
// sorts later differs from this one within key(listener).
func pastListener(listener string) []byte {
	return append(kv.Key(listener), bytes.Repeat([]byte{0xff}, 17)...)
}

// createDelivery stores d as a new delivery at clock nowMs and returns
// it: ID assigned, Status DeliveryPending when empty, CreatedAtMs nowMs,
// NextAttemptMs nowMs when zero. A pending delivery past its listener's
// backlog bound is stored failed instead, with an attempt saying why, and
// a settled one may remove the listener's oldest settled ones.
func (b *Engine) createDelivery(tx *bbolt.Tx, nowMs int64, d model.Delivery) (model.Delivery, error) {
	d, err := kv.NewDelivery(d, nowMs, b.maxPendingDeliveries, func() int {
		return countPrefix(tx.Bucket(bucketDeliveryDue), kv.Key(d.ListenerID))
	})
	if err != nil {
		return model.Delivery{}, err
	}
	seq, err := tx.Bucket(bucketDeliveries).NextSequence()
	if err != nil {
		return model.Delivery{}, err
	}
	d.ID = kv.SeqID(seq)
	if err := putDelivery(tx, seq, d); err != nil {
		return model.Delivery{}, err
	}
	if d.Status != model.DeliveryPending {
		return d, b.trimSettledDeliveries(tx, d.ListenerID)
	}
	return d, nil
}

// putDelivery writes the record of d (sequence seq), its order index
// entry and, when pending, its due index entry.
func putDelivery(tx *bbolt.Tx, seq uint64, d model.Delivery) error {
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode delivery: %w", err)
	}
	if err := tx.Bucket(bucketDeliveries).Put(kv.BE8(seq), data); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDeliveryOrder).Put(orderKey(d.ListenerID, seq), []byte(d.ID)); err != nil {
		return err
	}
	if d.Status != model.DeliveryPending {
		return nil
	}
	return tx.Bucket(bucketDeliveryDue).Put(dueKey(d, seq), []byte(d.ID))
}

// getDelivery decodes delivery seq; kv.ErrNotFound when absent.
func getDelivery(tx *bbolt.Tx, seq uint64) (model.Delivery, error) {
	data := tx.Bucket(bucketDeliveries).Get(kv.BE8(seq))
	if data == nil {
		return model.Delivery{}, kv.ErrNotFound
	}
	var d model.Delivery
	if err := json.Unmarshal(data, &d); err != nil {
		return model.Delivery{}, fmt.Errorf("decode delivery %d: %w", seq, err)
	}
	return d, nil
}

// removeDelivery deletes the record of d (sequence seq) and its index
// entries.
func removeDelivery(tx *bbolt.Tx, seq uint64, d model.Delivery) error {
	if d.Status == model.DeliveryPending {
		if err := tx.Bucket(bucketDeliveryDue).Delete(dueKey(d, seq)); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketDeliveryOrder).Delete(orderKey(d.ListenerID, seq)); err != nil {
		return err
	}
	return tx.Bucket(bucketDeliveries).Delete(kv.BE8(seq))
}

// trimSettledDeliveries removes listener's oldest settled deliveries past
// the newest b.deliveriesKept of them. It decodes no record: the due
// index tells the pending ones, whose payloads may be megabytes each.
func (b *Engine) trimSettledDeliveries(tx *bbolt.Tx, listener string) error {
	if b.deliveriesKept <= 0 {
		return nil
	}
	prefix := kv.Key(listener)
	pending := map[uint64]bool{}
	due := tx.Bucket(bucketDeliveryDue).Cursor()
	for k, _ := due.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = due.Next() {
		pending[binary.BigEndian.Uint64(k[len(k)-8:])] = true
	}
	excess := countPrefix(tx.Bucket(bucketDeliveryOrder), prefix) - len(pending) - b.deliveriesKept
	var victims []uint64
	c := tx.Bucket(bucketDeliveryOrder).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(victims) < excess; k, _ = c.Next() {
		if seq := binary.BigEndian.Uint64(k[len(k)-8:]); !pending[seq] {
			victims = append(victims, seq)
		}
	}
	settled := model.Delivery{ListenerID: listener, Status: model.DeliveryDelivered} // what removeDelivery needs of one
	for _, seq := range victims {
		if err := removeDelivery(tx, seq, settled); err != nil {
			return fmt.Errorf("trim the deliveries of %q: %w", listener, err)
		}
	}
	return nil
}

// DueDeliveries returns up to limit (<= 0: 100) pending deliveries whose
// NextAttemptMs is at or before nowMs, at most one per listener: the
// listener's earliest due (by NextAttemptMs, then creation order).
// Listeners are taken in key order starting after afterListener and
// wrapping around, so a caller that passes the last listener it got
// serves every listener in turn. Listeners for which skip (nil: none)
// returns true are passed over without reading their deliveries.
//
// It reads the due index only, never the delivered or failed records, and
// decodes only the deliveries it returns.
func (b *Engine) DueDeliveries(ctx context.Context, nowMs int64, afterListener string, limit int, skip func(listenerID string) bool) ([]model.Delivery, error) {
	if limit <= 0 {
		limit = kv.DefaultQueueLimit
	}
	out := []model.Delivery{}
	if nowMs < 0 {
		return out, nil
	}
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketDeliveryDue).Cursor()
		var start []byte // nil: from the first listener, no wrap
		if afterListener != "" {
			start = pastListener(afterListener)
		}
		k, _ := c.First()
		if start != nil {
			k, _ = c.Seek(start)
		}
		wrapped := start == nil
		for len(out) < limit {
			if k == nil {
				if wrapped {
					return nil
				}
				wrapped = true
				if k, _ = c.First(); k == nil {
					return nil
				}
			}
			if wrapped && start != nil && bytes.Compare(k, start) >= 0 {
				return nil // back where the walk began
			}
			listener, dueMs, seq, err := splitDueKey(k)
			if err != nil {
				return err
			}
			if dueMs <= uint64(nowMs) && (skip == nil || !skip(listener)) {
				d, err := getDelivery(tx, seq)
				if err != nil {
					return fmt.Errorf("due delivery %d of %q: %w", seq, listener, err)
				}
				out = append(out, d)
			}
			k, _ = c.Seek(pastListener(listener))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: due deliveries: %w", err)
	}
	return out, nil
}

// updateDelivery replaces the stored delivery d.ID with d (status,
// attempts, next attempt...) and moves its index entries to match: only
// a DeliveryPending delivery is ever due again. A delivery settled
// (delivered or failed) may remove the listener's oldest settled ones, so
// that it keeps the newest deliveriesKept. It returns the delivery as it
// was.
//
// # Errors
//
// kv.ErrNotFound for an unknown id (also once its webhook is deleted); an
// error for an empty listener or a status that is not a delivery state.
func (b *Engine) updateDelivery(tx *bbolt.Tx, d model.Delivery) (model.Delivery, error) {
	seq, ok := kv.ParseSeqID(d.ID)
	if !ok {
		return model.Delivery{}, kv.ErrNotFound
	}
	old, err := getDelivery(tx, seq)
	if err != nil {
		return model.Delivery{}, err
	}
	if err := kv.CheckDeliveryUpdate(old, d); err != nil {
		return model.Delivery{}, err
	}
	if err := removeDelivery(tx, seq, old); err != nil {
		return model.Delivery{}, err
	}
	if err := putDelivery(tx, seq, d); err != nil {
		return model.Delivery{}, err
	}
	if d.Status == model.DeliveryPending {
		return old, nil
	}
	return old, b.trimSettledDeliveries(tx, d.ListenerID)
}

// ListDeliveries returns one page of listenerID's deliveries, newest
// first. Cursors run in that direction: After gives the deliveries older
// than the cursor, Before those newer than it, both newest first.
// TotalCount counts all the listener's deliveries.
//
// # Errors
//
// kv.ErrBadCursor for a cursor not made by this list, or both After and
// Before.
func (b *Engine) ListDeliveries(ctx context.Context, listenerID string, p kv.Page) (kv.PageOf[model.Delivery], error) {
	var pg kv.PageOf[model.Delivery]
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		seqs, total, err := pageNewestFirst(tx.Bucket(bucketDeliveryOrder), listenerID, p)
		if err != nil {
			return err
		}
		if p.Before != "" {
			slices.Reverse(seqs) // nearest the cursor first
		}
		pg, err = kv.PageOfSeqs[model.Delivery](seqs, total, p, kv.DeliveryList.Tag(listenerID), func(seq uint64) ([]byte, error) {
			data := tx.Bucket(bucketDeliveries).Get(kv.BE8(seq))
			if data == nil {
				return nil, fmt.Errorf("delivery %d: %w", seq, kv.ErrNotFound)
			}
			return data, nil
		})
		return err
	})
	if err != nil {
		return kv.PageOf[model.Delivery]{}, fmt.Errorf("store: list deliveries of %q: %w", listenerID, err)
	}
	return pg, nil
}

// pageNewestFirst returns the sequence numbers of one page of
// listenerID's keys key(listenerID)+8-byte seq in bk, newest (largest
// seq) first, and how many keys the listener has. Cursors are
// deliveryList's.
func pageNewestFirst(bk *bbolt.Bucket, listenerID string, p kv.Page) (seqs []uint64, total int, err error) {
	if p.After != "" && p.Before != "" {
		return nil, 0, fmt.Errorf("%w: after and before are mutually exclusive", kv.ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = kv.DefaultPageLimit
	}
	prefix := kv.Key(listenerID)
	tag := kv.DeliveryList.Tag(listenerID)
	seqOf := func(k []byte) uint64 { return binary.BigEndian.Uint64(k[len(k)-8:]) }
	inList := func(k []byte) bool { return k != nil && len(k) == len(prefix)+8 && bytes.HasPrefix(k, prefix) }
	c := bk.Cursor()
	if p.Before != "" {
		seq, err := kv.DecodeCursor(tag, p.Before)
		if err != nil {
			return nil, 0, err
		}
		if seq != ^uint64(0) { // nothing is newer than the last sequence
			for k, _ := c.Seek(append(kv.Clone(prefix), kv.BE8(seq+1)...)); inList(k) && len(seqs) < limit; k, _ = c.Next() {
				seqs = append(seqs, seqOf(k))
			}
		}
		slices.Reverse(seqs)
	} else {
		from := ^uint64(0) // newest first: from the largest sequence down, inclusive
		skip := false
		if p.After != "" {
			seq, err := kv.DecodeCursor(tag, p.After)
			if err != nil {
				return nil, 0, err
			}
			from, skip = seq-1, seq == 0 // nothing is older than sequence 0
		}
		if !skip {
			start := append(kv.Clone(prefix), kv.BE8(from)...)
			k, _ := c.Seek(start)
			if k == nil {
				k, _ = c.Last()
			} else if !bytes.Equal(k, start) {
				k, _ = c.Prev()
			}
			for ; inList(k) && len(seqs) < limit; k, _ = c.Prev() {
				seqs = append(seqs, seqOf(k))
			}
		}
	}
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		total++
	}
	return seqs, total, nil
}

// deleteDeliveriesOf removes every delivery to listenerID and its index
// entries.
func deleteDeliveriesOf(tx *bbolt.Tx, listenerID string) error {
	keys, _ := scanPrefix(tx.Bucket(bucketDeliveryOrder), kv.Key(listenerID))
	for _, k := range keys {
		seq := binary.BigEndian.Uint64(k[len(k)-8:])
		d, err := getDelivery(tx, seq)
		if errors.Is(err, kv.ErrNotFound) {
			if err := tx.Bucket(bucketDeliveryOrder).Delete(k); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if err := removeDelivery(tx, seq, d); err != nil {
			return err
		}
	}
	return nil
}

// GetDelivery implements Queues.
func (b *Engine) GetDelivery(ctx context.Context, id string) (model.Delivery, error) {
	var d model.Delivery
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		seq, ok := kv.ParseSeqID(id)
		if !ok {
			return kv.ErrNotFound
		}
		var err error
		d, err = getDelivery(tx, seq)
		return err
	})
	if err != nil {
		return model.Delivery{}, fmt.Errorf("store: get delivery %q: %w", id, err)
	}
	return d, nil
}
