package jetstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// jsKV is a JetStream transaction as the rules see it. Records and
// values are subjects key(table, parts...) (a large record in parts); a
// set is one record holding its ids (jsIDs), a map one record per owner
// (jsMap), and a list one record per owner (jsList), each rewritten with
// its revision checked, because JetStream has no cheap scan of a prefix.
type jsKV struct {
	tx        *jsTx
	maxWrites int // > 0: the messages a transaction of a batch holds
}

func (s *Engine) View(ctx context.Context, fn func(tx kv.Tx) error) error {
	return s.view(ctx, func(tx *jsTx) error { return fn(jsKV{tx: tx}) })
}

func (s *Engine) Update(ctx context.Context, fn func(tx kv.Tx) error) error {
	return s.update(ctx, func(tx *jsTx) error { return fn(jsKV{tx: tx}) })
}

// Batch bounds a transaction by txMaxWrites messages, well under the
// server's bound of an atomic batch.
func (s *Engine) Batch(ctx context.Context, fn func(tx kv.Tx) error) error {
	return s.update(context.WithoutCancel(ctx), func(tx *jsTx) error { return fn(jsKV{tx: tx, maxWrites: txMaxWrites}) })
}

// MaxRunEvents is txMaxWrites: a run's events are a message each.
func (s *Engine) MaxRunEvents() int { return txMaxWrites }

// Spend counts nothing: the transaction counts its messages itself.
func (k jsKV) Spend(int, int) {}

func (k jsKV) Full() bool {
	return k.maxWrites > 0 && k.tx.messages() >= k.maxWrites
}

func (k jsKV) Record(t kv.Table, id string) ([]byte, bool, error) {
	if t.Large {
		return k.tx.getWhole(t.Subject, id)
	}
	data, ok, err := k.tx.get(k.tx.s.key(t.Subject, id))
	return kv.Clone(data), ok, err
}

func (k jsKV) PutRecord(t kv.Table, id string, data []byte) error {
	if t.Large {
		return k.tx.putWhole(t.Subject, id, data)
	}
	k.tx.put(k.tx.s.key(t.Subject, id), data)
	return nil
}

func (k jsKV) DeleteRecord(t kv.Table, id string) error {
	if t.Large {
		return k.tx.delWhole(t.Subject, id)
	}
	k.tx.del(k.tx.s.key(t.Subject, id))
	return nil
}

func (k jsKV) CountRecords(t kv.Table) (int, error) {
	records, err := k.tx.s.scan(k.tx.ctx, k.tx.s.key(t.Subject)+".*")
	return len(records), err
}

// Records scans t; a record of a large table stored in parts is read
// whole, its scanned value being only the names of its parts.
func (k jsKV) Records(t kv.Table) ([][]byte, error) {
	s := k.tx.s
	entries, err := s.scan(k.tx.ctx, s.key(t.Subject)+".*")
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(entries))
	for i, e := range entries {
		out[i] = e.value
		if !t.Large || !bytes.HasPrefix(e.value, partsPrefix) {
			continue
		}
		parts, err := s.keyParts(t.Subject, e.subject)
		if err != nil {
			return nil, err
		}
		if out[i], _, err = k.tx.getWhole(t.Subject, parts[0]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (k jsKV) Value(t kv.Table, parts ...string) ([]byte, bool, error) {
	v, ok, err := k.tx.get(k.tx.s.key(t.Subject, parts...))
	return kv.Clone(v), ok, err
}

func (k jsKV) PutValue(t kv.Table, v []byte, parts ...string) error {
	k.tx.put(k.tx.s.key(t.Subject, parts...), v)
	return nil
}

func (k jsKV) DeleteValue(t kv.Table, parts ...string) error {
	k.tx.del(k.tx.s.key(t.Subject, parts...))
	return nil
}

// DeleteValuesUnder purges the values' subjects once the transaction has
// committed: they may be more than one atomic batch holds.
func (k jsKV) DeleteValuesUnder(t kv.Table, first string) error {
	s := k.tx.s
	k.tx.afterCommit = append(k.tx.afterCommit, func(ctx context.Context) error {
		return s.purge(ctx, s.key(t.Subject, first)+".>")
	})
	return nil
}

// LookupIDs reads the lookups by a scan, and adds those this
// transaction wrote. The scan's result is not checked at commit: callers
// hold a record that every writer of these lookups rewrites (a
// component's key is written only with its owner's list of components).
func (k jsKV) LookupIDs(t kv.Table, first string) (map[string]bool, error) {
	s := k.tx.s
	ids := map[string]bool{}
	entries, err := s.scan(k.tx.ctx, s.key(t.Subject, first)+".>")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		ids[string(e.value)] = true
	}
	for subject, w := range k.tx.write {
		if parts, err := s.keyParts(t.Subject, subject); err == nil && len(parts) > 0 && parts[0] == first && !w.deleted {
			ids[string(w.value)] = true
		}
	}
	return ids, nil
}

// ValuesUnder reads the values by a scan, with what this transaction
// wrote over them; as LookupIDs', the scan is not checked at commit.
func (k jsKV) ValuesUnder(t kv.Table, first string) (map[string][]byte, error) {
	s := k.tx.s
	entries, err := s.scan(k.tx.ctx, s.key(t.Subject, first)+".*")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(entries))
	for _, e := range entries {
		if parts, err := s.keyParts(t.Subject, e.subject); err == nil && len(parts) == 2 {
			out[parts[1]] = e.value
		}
	}
	for subject, w := range k.tx.write {
		parts, err := s.keyParts(t.Subject, subject)
		if err != nil || len(parts) != 2 || parts[0] != first {
			continue
		}
		if w.deleted {
			delete(out, parts[1])
		} else {
			out[parts[1]] = kv.Clone(w.value)
		}
	}
	return out, nil
}

func (k jsKV) Members(t kv.Table, of string) ([]string, error) {
	return k.tx.ids(k.tx.s.key(t.Subject, of))
}

func (k jsKV) AddMember(t kv.Table, of, id string) error {
	return k.tx.addID(k.tx.s.key(t.Subject, of), id)
}

func (k jsKV) RemoveMember(t kv.Table, of, id string) error {
	return k.tx.removeID(k.tx.s.key(t.Subject, of), id)
}

// jsMap is the record of an owner's map. Its field is named for the
// first map stored so (a component's code), so that records written
// before maps were shared read as they are.
type jsMap struct {
	IDs map[string]string `json:"code"`
}

func (k jsKV) ownerMap(t kv.Table, owner string) (jsMap, error) {
	m := jsMap{}
	if err := k.tx.getJSON(k.tx.s.key(t.Subject, owner), &m); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return jsMap{}, err
	}
	if m.IDs == nil {
		m.IDs = map[string]string{}
	}
	return m, nil
}

func (k jsKV) MapGet(t kv.Table, owner, mk string) (string, bool, error) {
	m, err := k.ownerMap(t, owner)
	id, ok := m.IDs[mk]
	return id, ok, err
}

func (k jsKV) MapPut(t kv.Table, owner, mk, id string) error {
	m, err := k.ownerMap(t, owner)
	if err != nil {
		return err
	}
	m.IDs[mk] = id
	return k.tx.putJSON(k.tx.s.key(t.Subject, owner), m)
}

func (k jsKV) MapDropValue(t kv.Table, owner, id string) error {
	m, err := k.ownerMap(t, owner)
	if err != nil {
		return err
	}
	maps.DeleteFunc(m.IDs, func(_, v string) bool { return v == id })
	return k.tx.putJSON(k.tx.s.key(t.Subject, owner), m)
}

func (k jsKV) ListAdd(ix kv.List, owner, id string) (uint64, error) {
	return k.tx.listAdd(ix, owner, id)
}

func (k jsKV) ListRemove(ix kv.List, owner, id string) error {
	return k.tx.listRemove(ix, owner, id)
}

func (k jsKV) ListIDs(ix kv.List, owner string) ([]string, error) {
	l, err := k.tx.list(ix, owner)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(l.Items))
	for i, it := range l.Items {
		ids[i] = it.ID
	}
	return ids, nil
}

func (k jsKV) ListCount(ix kv.List, owner string) (int, error) {
	l, err := k.tx.list(ix, owner)
	return len(l.Items), err
}

func (k jsKV) ListSeq(ix kv.List, owner, id string) (uint64, bool, error) {
	l, err := k.tx.list(ix, owner)
	if err != nil {
		return 0, false, err
	}
	i := slices.IndexFunc(l.Items, func(it jsListItem) bool { return it.ID == id })
	if i < 0 {
		return 0, false, nil
	}
	return l.Items[i].Seq, true, nil
}

func (k jsKV) ListInsert(ix kv.List, owner, id string, seq uint64) error {
	return k.tx.listInsert(ix, owner, id, seq)
}

func (k jsKV) ListPage(ix kv.List, owner string, p kv.Page) ([]string, []string, int, error) {
	l, err := k.tx.list(ix, owner)
	if err != nil {
		return nil, nil, 0, err
	}
	ids, cursors, err := pageList(ix, owner, l.Items, p)
	return ids, cursors, len(l.Items), err
}

func (k jsKV) NextOrder() (uint64, error) {
	return k.tx.s.nextOrder(k.tx)
}

// A timer's last fire is its epoch ms in decimal, at (timer, id) or, for
// a timer prop, (timer, id, prop).
func (k jsKV) LastFire(id, prop string) (int64, error) {
	v, ok, err := k.tx.get(k.timerKey(id, prop))
	if err != nil || !ok {
		return 0, err
	}
	ms, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("timer record %q: %w", v, err)
	}
	return ms, nil
}

func (k jsKV) SetLastFire(id, prop string, ms int64) error {
	k.tx.put(k.timerKey(id, prop), strconv.AppendInt(nil, ms, 10))
	return nil
}

func (k jsKV) timerKey(id, prop string) string {
	if prop == "" {
		return k.tx.s.key(tblTimers, id)
	}
	return k.tx.s.key(tblTimers, id, prop)
}

func (k jsKV) Enqueue(nowMs int64, inv model.Invocation) error {
	_, err := k.tx.s.putInvocation(k.tx, nowMs, inv)
	return err
}

func (k jsKV) Queued(inv model.Invocation) (bool, error) {
	_, err := k.tx.s.invocationKey(k.tx, inv)
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (k jsKV) Dequeue(inv model.Invocation) error {
	return k.tx.s.dequeue(k.tx, inv)
}

func (k jsKV) AppendEvents(nowMs int64, emitterID string, keep int) (kv.EventAppender, error) {
	a, err := k.tx.s.newAppender(k.tx, nowMs, emitterID, keep)
	return jsEvents{a}, err
}

// EventCount reads the channel's record, and so its revision: a commit
// that another changed meanwhile is refused, and run again.
func (k jsKV) EventCount(emitterID, channel string) (int, error) {
	ch, err := k.tx.s.readChannel(k.tx, emitterID, channel)
	if err != nil {
		return 0, err
	}
	return int(ch.Count), nil
}

// jsEvents is JetStream's appender with the release of delayed events.
type jsEvents struct{ *jsAppender }

func (e jsEvents) Release(id string) (bool, error) {
	return e.s.release(e.tx, e.jsAppender, id)
}

func (k jsKV) PutExecution(x *model.Execution, keep int) error {
	return k.tx.s.putExecution(k.tx, x, keep)
}

func (k jsKV) CreateDelivery(nowMs int64, d model.Delivery) (model.Delivery, error) {
	return k.tx.s.createDelivery(k.tx, nowMs, d)
}

func (k jsKV) UpdateDelivery(d model.Delivery) (model.Delivery, error) {
	return k.tx.s.updateDelivery(k.tx, d)
}

func (k jsKV) DeleteDeliveriesOf(listener string) error {
	k.tx.afterCommit = append(k.tx.afterCommit, func(ctx context.Context) error {
		return k.tx.s.deleteDeliveriesAfter(ctx, listener)
	})
	return nil
}

// DeleteRunnerData deletes the dedupe and timer records in the
// transaction, and purges the rest, which may be more than one batch
// holds, once it has committed.
func (k jsKV) DeleteRunnerData(id string, workflow bool) error {
	s := k.tx.s
	k.tx.del(s.key(tblDedupe, id))
	k.tx.del(s.key(tblTimers, id))
	k.tx.afterCommit = append(k.tx.afterCommit, func(ctx context.Context) error {
		if workflow {
			return s.purgeWorkflowData(ctx, id)
		}
		return s.purgeSourceData(ctx, id)
	})
	return nil
}
