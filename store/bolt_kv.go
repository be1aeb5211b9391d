package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// boltKV is a bbolt transaction as the rules see it. A record's key is
// its id; a value's key is key(parts...); a set is the keys key(of, id),
// found by a scan of the prefix key(of); a map's keys are key(owner) and
// the map's key after it; a list is orderIndex's two buckets.
type boltKV struct {
	tx     *bolt.Tx
	b      *Bolt
	budget *txBudget // nil: no bound
}

func (b *Bolt) viewKV(ctx context.Context, fn func(tx kvTx) error) error {
	return b.view(ctx, func(tx *bolt.Tx) error { return fn(boltKV{tx: tx, b: b}) })
}

func (b *Bolt) updateKV(ctx context.Context, fn func(tx kvTx) error) error {
	return b.update(ctx, func(tx *bolt.Tx) error { return fn(boltKV{tx: tx, b: b}) })
}

// batchKV bounds a transaction by txMaxEvents and txMaxBytes: bbolt has
// one writer, so every other write waits while it is open.
func (b *Bolt) batchKV(_ context.Context, fn func(tx kvTx) error) error {
	return b.write(func(tx *bolt.Tx) error {
		return fn(boltKV{tx: tx, b: b, budget: &txBudget{maxEvents: b.txMaxEvents, maxBytes: b.txMaxBytes}})
	})
}

func (k boltKV) spend(events, bytes int) { k.budget.spend(events, bytes) }
func (k boltKV) full() bool              { return k.budget.spent() }

func (k boltKV) record(t table, id string) ([]byte, bool, error) {
	data := k.tx.Bucket(t.bucket).Get([]byte(id))
	return clone(data), data != nil, nil
}

func (k boltKV) putRecord(t table, id string, data []byte) error {
	return k.tx.Bucket(t.bucket).Put([]byte(id), data)
}

func (k boltKV) deleteRecord(t table, id string) error {
	return k.tx.Bucket(t.bucket).Delete([]byte(id))
}

func (k boltKV) countRecords(t table) (int, error) {
	return k.tx.Bucket(t.bucket).Stats().KeyN, nil
}

func (k boltKV) records(t table) ([][]byte, error) {
	var out [][]byte
	err := k.tx.Bucket(t.bucket).ForEach(func(_, v []byte) error {
		out = append(out, clone(v))
		return nil
	})
	return out, err
}

func (k boltKV) value(t table, parts ...string) ([]byte, bool, error) {
	v := k.tx.Bucket(t.bucket).Get(key(parts...))
	return clone(v), v != nil, nil
}

func (k boltKV) putValue(t table, v []byte, parts ...string) error {
	return k.tx.Bucket(t.bucket).Put(key(parts...), v)
}

func (k boltKV) deleteValue(t table, parts ...string) error {
	return k.tx.Bucket(t.bucket).Delete(key(parts...))
}

func (k boltKV) lookupIDs(t table, first string) (map[string]bool, error) {
	return idsUnder(k.tx.Bucket(t.bucket), key(first)), nil
}

// idsUnder returns the values (ids) of bk's keys under prefix.
func idsUnder(bk *bolt.Bucket, prefix []byte) map[string]bool {
	ids := map[string]bool{}
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		ids[string(v)] = true
	}
	return ids
}

func (k boltKV) members(t table, of string) ([]string, error) {
	prefix := key(of)
	keys, _ := scanPrefix(k.tx.Bucket(t.bucket), prefix)
	ids := make([]string, len(keys))
	for i, kk := range keys {
		id, err := lastPart(kk[len(prefix):])
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

func (k boltKV) addMember(t table, of, id string) error {
	return k.tx.Bucket(t.bucket).Put(key(of, id), nil)
}

func (k boltKV) removeMember(t table, of, id string) error {
	return k.tx.Bucket(t.bucket).Delete(key(of, id))
}

// A map's key is key(owner) and the map's own key after it.
func (k boltKV) mapGet(t table, owner, mk string) (string, bool, error) {
	id := k.tx.Bucket(t.bucket).Get(append(key(owner), mk...))
	return string(id), id != nil, nil
}

func (k boltKV) mapPut(t table, owner, mk, id string) error {
	return k.tx.Bucket(t.bucket).Put(append(key(owner), mk...), []byte(id))
}

func (k boltKV) mapDropValue(t table, owner, id string) error {
	bk := k.tx.Bucket(t.bucket)
	keys, values := scanPrefix(bk, key(owner))
	for i, v := range values {
		if string(v) != id {
			continue
		}
		if err := bk.Delete(keys[i]); err != nil {
			return err
		}
	}
	return nil
}

func (k boltKV) listAdd(ix orderIndex, owner, id string) (uint64, error) {
	return ix.add(k.tx, owner, id)
}

// listRemove needs no owner: bbolt's index maps each id to its key.
func (k boltKV) listRemove(ix orderIndex, _, id string) error {
	return ix.remove(k.tx, id)
}

func (k boltKV) listIDs(ix orderIndex, owner string) ([]string, error) {
	return ix.ids(k.tx, owner), nil
}

func (k boltKV) listCount(ix orderIndex, owner string) (int, error) {
	return ix.count(k.tx, owner), nil
}

func (k boltKV) listSeq(ix orderIndex, _, id string) (uint64, bool, error) {
	seq, ok := ix.seq(k.tx, id)
	return seq, ok, nil
}

// listInsert writes the order key alone: the lists it serves (a user's
// orgs) have no pos bucket, and nothing removes from them.
func (k boltKV) listInsert(ix orderIndex, owner, id string, seq uint64) error {
	return k.tx.Bucket(ix.order).Put(append(key(owner), be8(seq)...), []byte(id))
}

func (k boltKV) listPage(ix orderIndex, owner string, p Page) ([]string, []string, int, error) {
	return ix.page(k.tx, owner, p)
}

func (k boltKV) nextOrder() (uint64, error) {
	return nextOrder(k.tx)
}

// nextOrder returns the next creation order, shared by sources,
// workflows and auto-subscriptions so that they compare.
func nextOrder(tx *bolt.Tx) (uint64, error) {
	n, err := tx.Bucket(bucketMeta).NextSequence()
	if err != nil {
		return 0, fmt.Errorf("creation order: %w", err)
	}
	return n, nil
}

// A timer's last fire is 8 big-endian bytes of epoch ms, under timerKey.
func (k boltKV) lastFire(id, prop string) (int64, error) {
	v := k.tx.Bucket(bucketTimers).Get(timerKey(id, prop))
	switch {
	case v == nil:
		return 0, nil
	case len(v) != 8:
		return 0, fmt.Errorf("corrupt timer record %x", v)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

func (k boltKV) setLastFire(id, prop string, ms int64) error {
	return k.tx.Bucket(bucketTimers).Put(timerKey(id, prop), be8(uint64(ms)))
}

// timerKey is where the last fire of a source's timer (prop "") or of a
// timer prop of it is kept: the id, then a 0 byte (which no id holds)
// and the prop's name.
func timerKey(id, prop string) []byte {
	if prop == "" {
		return []byte(id)
	}
	return []byte(id + "\x00" + prop)
}

func (k boltKV) enqueue(nowMs int64, inv model.Invocation) error {
	_, err := enqueueInvocation(k.tx, nowMs, inv)
	return err
}

func (k boltKV) queued(inv model.Invocation) (bool, error) {
	return queued(k.tx, inv), nil
}

func (k boltKV) dequeue(inv model.Invocation) error {
	return dequeue(k.tx, inv)
}

func (k boltKV) appendEvents(nowMs int64, emitterID string, keep int) (eventAppender, error) {
	a, err := newAppender(k.tx, nowMs, emitterID, keep)
	return boltEvents{a, k.tx, emitterID}, err
}

// boltEvents is bbolt's appender with the release of delayed events.
type boltEvents struct {
	*appender
	tx        *bolt.Tx
	emitterID string
}

// release removes the event id from sourceID's ChannelDelayed; false when
// it is not there (cancelled).
func (e boltEvents) release(id string) (bool, error) {
	tx, sourceID := e.tx, e.emitterID
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

func (k boltKV) putExecution(x *model.Execution, keep int) error {
	return putExecution(k.tx, x, keep)
}

func (k boltKV) createDelivery(nowMs int64, d model.Delivery) (model.Delivery, error) {
	return k.b.createDelivery(k.tx, nowMs, d)
}

func (k boltKV) deleteDeliveriesOf(listener string) error {
	return deleteDeliveriesOf(k.tx, listener)
}

func (k boltKV) deleteRunnerData(id string, workflow bool) error {
	if err := deleteEmitter(k.tx, id); err != nil {
		return err
	}
	if workflow {
		if err := deleteExecutionsOf(k.tx, id); err != nil {
			return err
		}
		if err := deleteDeliveriesOf(k.tx, id); err != nil {
			return err
		}
	}
	if err := deleteNested(k.tx.Bucket(bucketDB), id); err != nil {
		return err
	}
	return deleteSourceQueues(k.tx, id)
}

// deleteSourceQueues removes sourceID's queued invocations, dedupe state
// and timer state.
func deleteSourceQueues(tx *bolt.Tx, sourceID string) error {
	if err := deleteInvocationsOf(tx, sourceID); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDedupe).Delete([]byte(sourceID)); err != nil {
		return err
	}
	timers := tx.Bucket(bucketTimers)
	keys, _ := scanPrefix(timers, []byte(sourceID+"\x00")) // its props' last fires
	for _, k := range keys {
		if err := timers.Delete(k); err != nil {
			return err
		}
	}
	return timers.Delete([]byte(sourceID))
}

// deleteNested removes the nested bucket name of parent if it exists.
func deleteNested(parent *bolt.Bucket, name string) error {
	if name == "" || parent.Bucket([]byte(name)) == nil {
		return nil
	}
	return parent.DeleteBucket([]byte(name))
}
