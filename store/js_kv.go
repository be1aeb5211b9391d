package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/fount-dev/fount/model"
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

func (s *JetStream) viewKV(ctx context.Context, fn func(tx kvTx) error) error {
	return s.view(ctx, func(tx *jsTx) error { return fn(jsKV{tx: tx}) })
}

func (s *JetStream) updateKV(ctx context.Context, fn func(tx kvTx) error) error {
	return s.update(ctx, func(tx *jsTx) error { return fn(jsKV{tx: tx}) })
}

// batchKV bounds a transaction by jsTxMaxWrites messages, well under the
// server's bound of an atomic batch.
func (s *JetStream) batchKV(ctx context.Context, fn func(tx kvTx) error) error {
	return s.update(context.WithoutCancel(ctx), func(tx *jsTx) error { return fn(jsKV{tx: tx, maxWrites: jsTxMaxWrites}) })
}

// spend counts nothing: the transaction counts its messages itself.
func (k jsKV) spend(int, int) {}

func (k jsKV) full() bool {
	return k.maxWrites > 0 && k.tx.messages() >= k.maxWrites
}

func (k jsKV) record(t table, id string) ([]byte, bool, error) {
	if t.large {
		return k.tx.getWhole(t.name, id)
	}
	data, ok, err := k.tx.get(k.tx.s.key(t.name, id))
	return clone(data), ok, err
}

func (k jsKV) putRecord(t table, id string, data []byte) error {
	if t.large {
		return k.tx.putWhole(t.name, id, data)
	}
	k.tx.put(k.tx.s.key(t.name, id), data)
	return nil
}

func (k jsKV) deleteRecord(t table, id string) error {
	if t.large {
		return k.tx.delWhole(t.name, id)
	}
	k.tx.del(k.tx.s.key(t.name, id))
	return nil
}

func (k jsKV) countRecords(t table) (int, error) {
	records, err := k.tx.s.scan(k.tx.ctx, k.tx.s.key(t.name)+".*")
	return len(records), err
}

// records scans t; a record of a large table stored in parts is read
// whole, its scanned value being only the names of its parts.
func (k jsKV) records(t table) ([][]byte, error) {
	s := k.tx.s
	entries, err := s.scan(k.tx.ctx, s.key(t.name)+".*")
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(entries))
	for i, e := range entries {
		out[i] = e.value
		if !t.large || !bytes.HasPrefix(e.value, partsPrefix) {
			continue
		}
		parts, err := s.keyParts(t.name, e.subject)
		if err != nil {
			return nil, err
		}
		if out[i], _, err = k.tx.getWhole(t.name, parts[0]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (k jsKV) value(t table, parts ...string) ([]byte, bool, error) {
	v, ok, err := k.tx.get(k.tx.s.key(t.name, parts...))
	return clone(v), ok, err
}

func (k jsKV) putValue(t table, v []byte, parts ...string) error {
	k.tx.put(k.tx.s.key(t.name, parts...), v)
	return nil
}

func (k jsKV) deleteValue(t table, parts ...string) error {
	k.tx.del(k.tx.s.key(t.name, parts...))
	return nil
}

// lookupIDs reads the lookups by a scan, and adds those this
// transaction wrote. The scan's result is not checked at commit: callers
// hold a record that every writer of these lookups rewrites (a
// component's key is written only with its owner's list of components).
func (k jsKV) lookupIDs(t table, first string) (map[string]bool, error) {
	s := k.tx.s
	ids := map[string]bool{}
	entries, err := s.scan(k.tx.ctx, s.key(t.name, first)+".>")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		ids[string(e.value)] = true
	}
	for subject, w := range k.tx.write {
		if parts, err := s.keyParts(t.name, subject); err == nil && len(parts) > 0 && parts[0] == first && !w.deleted {
			ids[string(w.value)] = true
		}
	}
	return ids, nil
}

func (k jsKV) members(t table, of string) ([]string, error) {
	return k.tx.ids(k.tx.s.key(t.name, of))
}

func (k jsKV) addMember(t table, of, id string) error {
	return k.tx.addID(k.tx.s.key(t.name, of), id)
}

func (k jsKV) removeMember(t table, of, id string) error {
	return k.tx.removeID(k.tx.s.key(t.name, of), id)
}

// jsMap is the record of an owner's map. Its field is named for the
// first map stored so (a component's code), so that records written
// before maps were shared read as they are.
type jsMap struct {
	IDs map[string]string `json:"code"`
}

func (k jsKV) ownerMap(t table, owner string) (jsMap, error) {
	m := jsMap{}
	if err := k.tx.getJSON(k.tx.s.key(t.name, owner), &m); err != nil && !errors.Is(err, ErrNotFound) {
		return jsMap{}, err
	}
	if m.IDs == nil {
		m.IDs = map[string]string{}
	}
	return m, nil
}

func (k jsKV) mapGet(t table, owner, mk string) (string, bool, error) {
	m, err := k.ownerMap(t, owner)
	id, ok := m.IDs[mk]
	return id, ok, err
}

func (k jsKV) mapPut(t table, owner, mk, id string) error {
	m, err := k.ownerMap(t, owner)
	if err != nil {
		return err
	}
	m.IDs[mk] = id
	return k.tx.putJSON(k.tx.s.key(t.name, owner), m)
}

func (k jsKV) mapDropValue(t table, owner, id string) error {
	m, err := k.ownerMap(t, owner)
	if err != nil {
		return err
	}
	maps.DeleteFunc(m.IDs, func(_, v string) bool { return v == id })
	return k.tx.putJSON(k.tx.s.key(t.name, owner), m)
}

func (k jsKV) listAdd(ix orderIndex, owner, id string) (uint64, error) {
	return k.tx.listAdd(ix, owner, id)
}

func (k jsKV) listRemove(ix orderIndex, owner, id string) error {
	return k.tx.listRemove(ix, owner, id)
}

func (k jsKV) listIDs(ix orderIndex, owner string) ([]string, error) {
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

func (k jsKV) listCount(ix orderIndex, owner string) (int, error) {
	l, err := k.tx.list(ix, owner)
	return len(l.Items), err
}

func (k jsKV) listSeq(ix orderIndex, owner, id string) (uint64, bool, error) {
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

func (k jsKV) listInsert(ix orderIndex, owner, id string, seq uint64) error {
	return k.tx.listInsert(ix, owner, id, seq)
}

func (k jsKV) listPage(ix orderIndex, owner string, p Page) ([]string, []string, int, error) {
	l, err := k.tx.list(ix, owner)
	if err != nil {
		return nil, nil, 0, err
	}
	ids, cursors, err := pageList(ix, owner, l.Items, p)
	return ids, cursors, len(l.Items), err
}

func (k jsKV) nextOrder() (uint64, error) {
	return k.tx.s.nextOrder(k.tx)
}

// A timer's last fire is its epoch ms in decimal, at (timer, id) or, for
// a timer prop, (timer, id, prop).
func (k jsKV) lastFire(id, prop string) (int64, error) {
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

func (k jsKV) setLastFire(id, prop string, ms int64) error {
	k.tx.put(k.timerKey(id, prop), strconv.AppendInt(nil, ms, 10))
	return nil
}

func (k jsKV) timerKey(id, prop string) string {
	if prop == "" {
		return k.tx.s.key(tblTimers, id)
	}
	return k.tx.s.key(tblTimers, id, prop)
}

func (k jsKV) enqueue(nowMs int64, inv model.Invocation) error {
	_, err := k.tx.s.putInvocation(k.tx, nowMs, inv)
	return err
}

func (k jsKV) queued(inv model.Invocation) (bool, error) {
	_, err := k.tx.s.invocationKey(k.tx, inv)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (k jsKV) dequeue(inv model.Invocation) error {
	return k.tx.s.dequeue(k.tx, inv)
}

func (k jsKV) appendEvents(nowMs int64, emitterID string, keep int) (eventAppender, error) {
	a, err := k.tx.s.newAppender(k.tx, nowMs, emitterID, keep)
	return jsEvents{a}, err
}

// jsEvents is JetStream's appender with the release of delayed events.
type jsEvents struct{ *jsAppender }

func (e jsEvents) release(id string) (bool, error) {
	return e.s.release(e.tx, e.jsAppender, id)
}

func (k jsKV) putExecution(x *model.Execution, keep int) error {
	return k.tx.s.putExecution(k.tx, x, keep)
}

func (k jsKV) createDelivery(nowMs int64, d model.Delivery) (model.Delivery, error) {
	return k.tx.s.createDelivery(k.tx, nowMs, d)
}

func (k jsKV) deleteDeliveriesOf(listener string) error {
	k.tx.afterCommit = append(k.tx.afterCommit, func(ctx context.Context) error {
		return k.tx.s.deleteDeliveriesAfter(ctx, listener)
	})
	return nil
}

// deleteRunnerData deletes the dedupe and timer records in the
// transaction, and purges the rest, which may be more than one batch
// holds, once it has committed.
func (k jsKV) deleteRunnerData(id string, workflow bool) error {
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
