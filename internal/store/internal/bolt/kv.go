package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// boltKV is a bbolt transaction as the rules see it. A record's key is
// its id; a value's key is key(parts...); a set is the keys key(of, id),
// found by a scan of the prefix key(of); a map's keys are key(owner) and
// the map's key after it; a list is boltList's two buckets.
type boltKV struct {
	tx     *bbolt.Tx
	b      *Engine
	budget *txBudget // nil: no bound
}

func (b *Engine) View(ctx context.Context, fn func(tx kv.Tx) error) error {
	return b.view(ctx, func(tx *bbolt.Tx) error { return fn(boltKV{tx: tx, b: b}) })
}

func (b *Engine) Update(ctx context.Context, fn func(tx kv.Tx) error) error {
	return b.update(ctx, func(tx *bbolt.Tx) error { return fn(boltKV{tx: tx, b: b}) })
}

// MaxRunEvents is the bound of events of one transaction of Batch.
func (b *Engine) MaxRunEvents() int { return b.txMaxEvents }

// Batch bounds a transaction by txMaxEvents and txMaxBytes: bbolt has
// one writer, so every other write waits while it is open.
func (b *Engine) Batch(_ context.Context, fn func(tx kv.Tx) error) error {
	return b.write(func(tx *bbolt.Tx) error {
		return fn(boltKV{tx: tx, b: b, budget: &txBudget{maxEvents: b.txMaxEvents, maxBytes: b.txMaxBytes}})
	})
}

func (k boltKV) Spend(events, bytes int) { k.budget.spend(events, bytes) }
func (k boltKV) Full() bool              { return k.budget.spent() }

func (k boltKV) Record(t kv.Table, id string) ([]byte, bool, error) {
	data := k.tx.Bucket(t.Bucket).Get([]byte(id))
	return kv.Clone(data), data != nil, nil
}

func (k boltKV) PutRecord(t kv.Table, id string, data []byte) error {
	return k.tx.Bucket(t.Bucket).Put([]byte(id), data)
}

func (k boltKV) DeleteRecord(t kv.Table, id string) error {
	return k.tx.Bucket(t.Bucket).Delete([]byte(id))
}

func (k boltKV) CountRecords(t kv.Table) (int, error) {
	return k.tx.Bucket(t.Bucket).Stats().KeyN, nil
}

func (k boltKV) Records(t kv.Table) ([][]byte, error) {
	var out [][]byte
	err := k.tx.Bucket(t.Bucket).ForEach(func(_, v []byte) error {
		out = append(out, kv.Clone(v))
		return nil
	})
	return out, err
}

func (k boltKV) Value(t kv.Table, parts ...string) ([]byte, bool, error) {
	v := k.tx.Bucket(t.Bucket).Get(kv.Key(parts...))
	return kv.Clone(v), v != nil, nil
}

func (k boltKV) PutValue(t kv.Table, v []byte, parts ...string) error {
	return k.tx.Bucket(t.Bucket).Put(kv.Key(parts...), v)
}

func (k boltKV) DeleteValue(t kv.Table, parts ...string) error {
	return k.tx.Bucket(t.Bucket).Delete(kv.Key(parts...))
}

func (k boltKV) DeleteValuesUnder(t kv.Table, first string) error {
	bk := k.tx.Bucket(t.Bucket)
	keys, _ := scanPrefix(bk, kv.Key(first))
	for _, key := range keys {
		if err := bk.Delete(key); err != nil {
			return err
		}
	}
	return nil
}

func (k boltKV) LookupIDs(t kv.Table, first string) (map[string]bool, error) {
	return idsUnder(k.tx.Bucket(t.Bucket), kv.Key(first)), nil
}

func (k boltKV) ValuesUnder(t kv.Table, first string) (map[string][]byte, error) {
	prefix := kv.Key(first)
	keys, values := scanPrefix(k.tx.Bucket(t.Bucket), prefix)
	out := make(map[string][]byte, len(keys))
	for i, key := range keys {
		second, err := lastPart(key[len(prefix):])
		if err != nil {
			return nil, err
		}
		out[second] = values[i]
	}
	return out, nil
}

// idsUnder returns the values (ids) of bk's keys under prefix.
func idsUnder(bk *bbolt.Bucket, prefix []byte) map[string]bool {
	ids := map[string]bool{}
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		ids[string(v)] = true
	}
	return ids
}

func (k boltKV) Members(t kv.Table, of string) ([]string, error) {
	prefix := kv.Key(of)
	keys, _ := scanPrefix(k.tx.Bucket(t.Bucket), prefix)
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

func (k boltKV) AddMember(t kv.Table, of, id string) error {
	return k.tx.Bucket(t.Bucket).Put(kv.Key(of, id), nil)
}

func (k boltKV) RemoveMember(t kv.Table, of, id string) error {
	return k.tx.Bucket(t.Bucket).Delete(kv.Key(of, id))
}

// A map's key is key(owner) and the map's own key after it.
func (k boltKV) MapGet(t kv.Table, owner, mk string) (string, bool, error) {
	id := k.tx.Bucket(t.Bucket).Get(append(kv.Key(owner), mk...))
	return string(id), id != nil, nil
}

func (k boltKV) MapPut(t kv.Table, owner, mk, id string) error {
	return k.tx.Bucket(t.Bucket).Put(append(kv.Key(owner), mk...), []byte(id))
}

func (k boltKV) MapDropValue(t kv.Table, owner, id string) error {
	bk := k.tx.Bucket(t.Bucket)
	keys, values := scanPrefix(bk, kv.Key(owner))
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

func (k boltKV) ListAdd(ix kv.List, owner, id string) (uint64, error) {
	return boltList{ix}.add(k.tx, owner, id)
}

// ListRemove needs no owner: bbolt's index maps each id to its key.
func (k boltKV) ListRemove(ix kv.List, _, id string) error {
	return boltList{ix}.remove(k.tx, id)
}

func (k boltKV) ListIDs(ix kv.List, owner string) ([]string, error) {
	return boltList{ix}.ids(k.tx, owner), nil
}

func (k boltKV) ListCount(ix kv.List, owner string) (int, error) {
	return boltList{ix}.count(k.tx, owner), nil
}

func (k boltKV) ListSeq(ix kv.List, _, id string) (uint64, bool, error) {
	seq, ok := boltList{ix}.seq(k.tx, id)
	return seq, ok, nil
}

// ListInsert writes the order key alone: the lists it serves (a user's
// orgs) have no pos bucket, and nothing removes from them.
func (k boltKV) ListInsert(ix kv.List, owner, id string, seq uint64) error {
	return k.tx.Bucket(ix.Order).Put(append(kv.Key(owner), kv.BE8(seq)...), []byte(id))
}

func (k boltKV) ListPage(ix kv.List, owner string, p kv.Page) ([]string, []string, int, error) {
	return boltList{ix}.page(k.tx, owner, p)
}

func (k boltKV) NextOrder() (uint64, error) {
	return nextOrder(k.tx)
}

// nextOrder returns the next creation order, shared by sources,
// workflows and auto-subscriptions so that they compare.
func nextOrder(tx *bbolt.Tx) (uint64, error) {
	n, err := tx.Bucket(bucketMeta).NextSequence()
	if err != nil {
		return 0, fmt.Errorf("creation order: %w", err)
	}
	return n, nil
}

// A timer's last fire is 8 big-endian bytes of epoch ms, under timerKey.
func (k boltKV) LastFire(id, prop string) (int64, error) {
	v := k.tx.Bucket(bucketTimers).Get(timerKey(id, prop))
	switch {
	case v == nil:
		return 0, nil
	case len(v) != 8:
		return 0, fmt.Errorf("corrupt timer record %x", v)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

func (k boltKV) SetLastFire(id, prop string, ms int64) error {
	return k.tx.Bucket(bucketTimers).Put(timerKey(id, prop), kv.BE8(uint64(ms)))
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

func (k boltKV) Enqueue(nowMs int64, inv model.Invocation) error {
	_, err := enqueueInvocation(k.tx, nowMs, inv)
	return err
}

func (k boltKV) Queued(inv model.Invocation) (bool, error) {
	return queued(k.tx, inv), nil
}

func (k boltKV) Dequeue(inv model.Invocation) error {
	return dequeue(k.tx, inv)
}

func (k boltKV) AppendEvents(nowMs int64, emitterID string, keep int) (kv.EventAppender, error) {
	a, err := newAppender(k.tx, nowMs, emitterID, keep)
	return boltEvents{a, k.tx, emitterID}, err
}

func (k boltKV) EventCount(emitterID, channel string) (int, error) {
	return int(eventsIn(k.tx, emitterID, channel)), nil
}

// boltEvents is bbolt's appender with the release of delayed events.
type boltEvents struct {
	*appender
	tx        *bbolt.Tx
	emitterID string
}

// Release removes the event id from sourceID's ChannelDelayed; false when
// it is not there (cancelled).
func (e boltEvents) Release(id string) (bool, error) {
	tx, sourceID := e.tx, e.emitterID
	ms, seq, err := model.ParseEventID(id)
	if err != nil {
		return false, fmt.Errorf("release: %w", err)
	}
	ch := channelBucket(tx, sourceID, model.ChannelDelayed)
	key := kv.EventKey(ms, seq)
	if ch == nil || ch.Get(key) == nil {
		return false, nil
	}
	if err := ch.Delete(key); err != nil {
		return false, err
	}
	return true, forgetEvents(tx.Bucket(bucketEvents).Bucket([]byte(sourceID)), model.ChannelDelayed, 1)
}

func (k boltKV) PutExecution(x *model.Execution, keep int) error {
	return putExecution(k.tx, x, keep)
}

func (k boltKV) CreateDelivery(nowMs int64, d model.Delivery) (model.Delivery, error) {
	return k.b.createDelivery(k.tx, nowMs, d)
}

func (k boltKV) UpdateDelivery(d model.Delivery) (model.Delivery, error) {
	return k.b.updateDelivery(k.tx, d)
}

func (k boltKV) DeleteDeliveriesOf(listener string) error {
	return deleteDeliveriesOf(k.tx, listener)
}

func (k boltKV) DeleteRunnerData(id string, workflow bool) error {
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
func deleteSourceQueues(tx *bbolt.Tx, sourceID string) error {
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
func deleteNested(parent *bbolt.Bucket, name string) error {
	if name == "" || parent.Bucket([]byte(name)) == nil {
		return nil
	}
	return parent.DeleteBucket([]byte(name))
}
