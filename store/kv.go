package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fount-dev/fount/model"
)

// The store's rules (limits, cascades, lookups by tuple, pages) are
// written once, in methods of rules, against kvTx: what every engine's
// transaction offers. An engine lays each shape out its own way: bbolt in
// buckets whose index keys are scanned by prefix, JetStream in subjects
// whose sets and lists are records rewritten with their revision checked
// (docs/nats.md). Both layouts are the ones stored before the rules were
// shared, so no data moves.

// table names one kind of record on both engines: its bbolt bucket and
// its JetStream table (the second token of a subject).
type table struct {
	bucket []byte
	name   string
	// large records may pass what one NATS message holds: JetStream
	// stores them in parts (js_parts.go), which costs a read of the
	// record before each write.
	large bool
}

// Tables the shared rules use.
var (
	webhooksTable      = table{bucket: bucketWebhooks, name: tblWebhooks}
	accountsTable      = table{bucket: bucketAccounts, name: tblAccounts}
	usersTable         = table{bucket: bucketUsers, name: tblUsers}
	userKeysTable      = table{bucket: bucketUserKeys, name: tblUserKeys} // key hash → user id
	orgsTable          = table{bucket: bucketOrgs, name: tblOrgs}
	metaTable          = table{bucket: bucketMeta, name: tblMeta}
	dedupeTable        = table{bucket: bucketDedupe, name: tblDedupe}
	usageTable         = table{bucket: bucketUsage, name: tblUsage} // account, day → Usage
	subsTable          = table{bucket: bucketSubs, name: tblSubs}
	subTuplesTable     = table{bucket: bucketSubTuple, name: tblSubTuples}
	subEndsTable       = table{bucket: bucketSubEnds, name: tblSubEnds}
	autoSubsTable      = table{bucket: bucketAutoSubs, name: tblAutoSubs}
	autoTuplesTable    = table{bucket: bucketAutoTuple, name: tblAutoTuples}
	autoListenersTable = table{bucket: bucketAutoListeners, name: tblAutoListeners}
	sourcesTable       = table{bucket: bucketSources, name: tblSources}
	workflowsTable     = table{bucket: bucketWorkflows, name: tblWorkflows, large: true}   // steps bundle SDKs
	workflowSlugsTable = table{bucket: bucketWorkflowSlugs, name: tblWorkflowSlugs}        // owner, slug → workflow id
	sourceSlugsTable   = table{bucket: bucketSourceSlugs, name: tblSourceSlugs}            // owner, slug → source id
	componentsTable    = table{bucket: bucketComponents, name: tblComponents, large: true} // code, bundle and maps
	componentUsesTable = table{bucket: bucketComponentUses, name: tblComponentUses}        // set: component id → the sources running it
	componentKeysTable = table{bucket: bucketComponentKeys, name: tblComponentKeys}        // owner, key → component id
	componentCodeTable = table{bucket: bucketComponentCode, name: tblComponentCode}        // map: owner → code → component id
)

// kvTx is one transaction of an engine, as the rules see it. Records
// are JSON by id; a value is filed under a tuple of strings (an id: a
// lookup); a set holds the ids filed under one string; a map the ids
// filed under an owner and a key; a list (orderIndex) keeps an owner's
// ids in creation order, with cursors.
type kvTx interface {
	// record returns the record id of t; found is false when there is
	// none. The bytes are the caller's.
	record(t table, id string) (data []byte, found bool, err error)
	putRecord(t table, id string, data []byte) error
	deleteRecord(t table, id string) error
	countRecords(t table) (int, error)
	// records returns every record of t, in no particular order.
	records(t table) ([][]byte, error)

	// A value is filed under a tuple of strings: most often an id (a
	// lookup), or a small record (an account's usage of a day).
	value(t table, parts ...string) (v []byte, found bool, err error)
	putValue(t table, v []byte, parts ...string) error
	deleteValue(t table, parts ...string) error

	// lookupIDs returns the ids of every lookup of t whose first part
	// is first.
	lookupIDs(t table, first string) (map[string]bool, error)

	members(t table, of string) ([]string, error)
	addMember(t table, of, id string) error
	removeMember(t table, of, id string) error

	// A map files ids by owner and a key: bbolt as lookups, JetStream as
	// one record per owner, so that dropping every key of an id is one
	// read and one write.
	mapGet(t table, owner, k string) (id string, found bool, err error)
	mapPut(t table, owner, k, id string) error
	mapDropValue(t table, owner, id string) error

	listAdd(ix orderIndex, owner, id string) (uint64, error)
	listRemove(ix orderIndex, owner, id string) error
	listIDs(ix orderIndex, owner string) ([]string, error)
	listCount(ix orderIndex, owner string) (int, error)
	// listSeq returns the seq id got from listAdd; false when none.
	listSeq(ix orderIndex, owner, id string) (uint64, bool, error)
	// listInsert files id at seq, in seq order: a list ordered as
	// another (the orgs a user belongs to, in the orgs' order).
	listInsert(ix orderIndex, owner, id string, seq uint64) error
	// listPage returns one page of owner's list by the rules of Page, and
	// the list's size.
	listPage(ix orderIndex, owner string, p Page) (ids, cursors []string, total int, err error)

	// nextOrder returns the next creation order, shared by sources,
	// workflows and auto-subscriptions so that they compare.
	nextOrder() (uint64, error)

	// deleteDeliveriesOf removes every delivery to listener: in the
	// transaction, or (JetStream, where they may be more than one batch
	// holds) once it has committed.
	deleteDeliveriesOf(listener string) error
	// deleteRunnerData removes what source or workflow id keeps beyond
	// its record: its events, db, queued invocations, timer and dedupe
	// state and, for a workflow, its executions and deliveries. JetStream
	// removes the larger of them once the transaction has committed.
	deleteRunnerData(id string, workflow bool) error

	// lastFire returns when id's timer (prop "") or its timer prop last
	// fired, in epoch ms; 0 when never.
	lastFire(id, prop string) (int64, error)
	setLastFire(id, prop string, ms int64) error
	// enqueue queues inv for its source, queued at nowMs.
	enqueue(nowMs int64, inv model.Invocation) error
	// queued reports whether inv is still queued; dequeue removes it, or
	// returns ErrNotFound.
	queued(inv model.Invocation) (bool, error)
	dequeue(inv model.Invocation) error

	// appendEvents opens the event log of emitterID for appending, each
	// channel trimmed to keep; its close writes what it holds back.
	appendEvents(nowMs int64, emitterID string, keep int) (eventAppender, error)
	// putExecution stores x and trims its workflow's executions to the
	// newest keep (0: no trim); execution reads one back, and
	// newestExecutions up to limit of them, newest first.
	putExecution(x *model.Execution, keep int) error
	execution(workflowID string, seq uint64) ([]byte, bool, error)
	newestExecutions(workflowID string, limit int) ([][]byte, error)
	// createDelivery queues d for its listener, within the listener's
	// bounds of deliveries.
	createDelivery(nowMs int64, d model.Delivery) (model.Delivery, error)

	// spend counts what the transaction wrote against the bound of one
	// batch (kvEngine.batchKV); full reports whether it is reached. A
	// transaction not of a batch is never full.
	spend(events, bytes int)
	full() bool
}

// eventAppender adds events to one emitter's log in a transaction.
type eventAppender interface {
	// add stores e, its ID assigned, and returns about how many bytes it
	// wrote.
	add(e *model.Event) (int, error)
	// release removes the event id from the emitter's ChannelDelayed;
	// false when it is not there (cancelled).
	release(id string) (bool, error)
	close() error
}

// kvEngine runs the rules' transactions: view's writes nothing, update's
// commits atomically what fn wrote, or nothing when fn fails.
type kvEngine interface {
	viewKV(ctx context.Context, fn func(tx kvTx) error) error
	updateKV(ctx context.Context, fn func(tx kvTx) error) error
	// batchKV is updateKV bounded to what one commit of a batch of runs
	// should hold (its tx reports full), and, once begun, carried out
	// whatever ctx says.
	batchKV(ctx context.Context, fn func(tx kvTx) error) error
}

// rules are the store's rules written once; Bolt and JetStream embed
// them, so their methods are both engines'.
type rules struct {
	kv     kvEngine
	limits Limits           // set once at open, read-only after
	now    func() time.Time // the clock of event ids and queue times; tests replace it
}

// getRecord decodes the record id of t into v, or returns ErrNotFound.
func getRecord(tx kvTx, t table, id string, v any) error {
	data, ok, err := tx.record(t, id)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s %q: %w", t.name, id, err)
	}
	return nil
}

// putRecord encodes v as the record id of t.
func putRecord(tx kvTx, t table, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", t.name, id, err)
	}
	return tx.putRecord(t, id, data)
}

// lookup returns the id filed under parts in t.
func lookup(tx kvTx, t table, parts ...string) (string, bool, error) {
	id, ok, err := tx.value(t, parts...)
	return string(id), ok, err
}

// hasRecord reports whether t holds id.
func hasRecord(tx kvTx, t table, id string) (bool, error) {
	_, ok, err := tx.record(t, id)
	return ok, err
}

// createRecord stores v as the new record id of t, filed last in
// owner's list ix, unless id is taken or owner holds its limit of kind.
func (r rules) createRecord(tx kvTx, t table, ix orderIndex, kind Counted, owner, id string, v any) error {
	if ok, err := hasRecord(tx, t, id); err != nil || ok {
		return errors.Join(err, idTaken(ok))
	}
	if err := r.checkRoom(tx, kind, owner); err != nil {
		return err
	}
	if _, err := tx.listAdd(ix, owner, id); err != nil {
		return err
	}
	return putRecord(tx, t, id, v)
}

// listAllOf returns every record of owner's list ix, from t.
func listAllOf[T any](ctx context.Context, r rules, ix orderIndex, t table, owner string) ([]T, error) {
	out := []T{}
	err := r.kv.viewKV(ctx, func(tx kvTx) error {
		ids, err := tx.listIDs(ix, owner)
		if err != nil {
			return err
		}
		for _, id := range ids {
			var v T
			if err := getRecord(tx, t, id, &v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// allOf returns every record of t, ordered by id.
func allOf[T any](ctx context.Context, r rules, t table, id func(T) string) ([]T, error) {
	var out []T
	err := r.kv.viewKV(ctx, func(tx kvTx) error {
		records, err := tx.records(t)
		if err != nil {
			return err
		}
		out = make([]T, len(records))
		for i, data := range records {
			if err := json.Unmarshal(data, &out[i]); err != nil {
				return fmt.Errorf("decode a record of %s: %w", t.name, err)
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(id(a), id(b)) })
	return out, err
}

// pageOfList returns one page of owner's list ix, records from t.
func pageOfList[T any](ctx context.Context, r rules, ix orderIndex, t table, owner string, p Page) (PageOf[T], error) {
	var pg PageOf[T]
	err := r.kv.viewKV(ctx, func(tx kvTx) error {
		ids, cursors, total, err := tx.listPage(ix, owner, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[T](func(id string) ([]byte, error) {
			data, ok, err := tx.record(t, id)
			if err == nil && !ok {
				err = fmt.Errorf("record %q of %s: %w", id, t.name, ErrNotFound)
			}
			return data, err
		}, p, ids, cursors, total)
		return err
	})
	return pg, err
}
