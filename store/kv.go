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

// Table names one kind of record on both engines: its bbolt bucket and
// its JetStream Table (the second token of a subject).
type Table struct {
	Bucket []byte
	Subject   string
	// Large records may pass what one NATS message holds: JetStream
	// stores them in parts (js_parts.go), which costs a read of the
	// record before each write.
	Large bool
}

// Tables the shared rules use.
var (
	webhooksTable      = Table{Bucket: bucketWebhooks, Subject: tblWebhooks}
	accountsTable      = Table{Bucket: bucketAccounts, Subject: tblAccounts}
	usersTable         = Table{Bucket: bucketUsers, Subject: tblUsers}
	userKeysTable      = Table{Bucket: bucketUserKeys, Subject: tblUserKeys} // key hash → user id
	orgsTable          = Table{Bucket: bucketOrgs, Subject: tblOrgs}
	metaTable          = Table{Bucket: bucketMeta, Subject: tblMeta}
	dedupeTable        = Table{Bucket: bucketDedupe, Subject: tblDedupe}
	usageTable         = Table{Bucket: bucketUsage, Subject: tblUsage} // account, day → Usage
	subsTable          = Table{Bucket: bucketSubs, Subject: tblSubs}
	subTuplesTable     = Table{Bucket: bucketSubTuple, Subject: tblSubTuples}
	subEndsTable       = Table{Bucket: bucketSubEnds, Subject: tblSubEnds}
	autoSubsTable      = Table{Bucket: bucketAutoSubs, Subject: tblAutoSubs}
	autoTuplesTable    = Table{Bucket: bucketAutoTuple, Subject: tblAutoTuples}
	autoListenersTable = Table{Bucket: bucketAutoListeners, Subject: tblAutoListeners}
	sourcesTable       = Table{Bucket: bucketSources, Subject: tblSources}
	workflowsTable     = Table{Bucket: bucketWorkflows, Subject: tblWorkflows, Large: true}   // steps bundle SDKs
	workflowSlugsTable = Table{Bucket: bucketWorkflowSlugs, Subject: tblWorkflowSlugs}        // owner, slug → workflow id
	sourceSlugsTable   = Table{Bucket: bucketSourceSlugs, Subject: tblSourceSlugs}            // owner, slug → source id
	componentsTable    = Table{Bucket: bucketComponents, Subject: tblComponents, Large: true} // code, bundle and maps
	componentUsesTable = Table{Bucket: bucketComponentUses, Subject: tblComponentUses}        // set: component id → the sources running it
	componentKeysTable = Table{Bucket: bucketComponentKeys, Subject: tblComponentKeys}        // owner, key → component id
	componentCodeTable = Table{Bucket: bucketComponentCode, Subject: tblComponentCode}        // map: owner → code → component id
)

// Tx is one transaction of an engine, as the rules see it. Records
// are JSON by id; a value is filed under a tuple of strings (an id: a
// lookup); a set holds the ids filed under one string; a map the ids
// filed under an owner and a key; a list (orderIndex) keeps an owner's
// ids in creation order, with cursors.
type Tx interface {
	// Record returns the Record id of t; found is false when there is
	// none. The bytes are the caller's.
	Record(t Table, id string) (data []byte, found bool, err error)
	PutRecord(t Table, id string, data []byte) error
	DeleteRecord(t Table, id string) error
	CountRecords(t Table) (int, error)
	// Records returns every record of t, in no particular order.
	Records(t Table) ([][]byte, error)

	// A Value is filed under a tuple of strings: most often an id (a
	// lookup), or a small record (an account's usage of a day).
	Value(t Table, parts ...string) (v []byte, found bool, err error)
	PutValue(t Table, v []byte, parts ...string) error
	DeleteValue(t Table, parts ...string) error

	// LookupIDs returns the ids of every lookup of t whose first part
	// is first.
	LookupIDs(t Table, first string) (map[string]bool, error)

	Members(t Table, of string) ([]string, error)
	AddMember(t Table, of, id string) error
	RemoveMember(t Table, of, id string) error

	// A map files ids by owner and a key: bbolt as lookups, JetStream as
	// one record per owner, so that dropping every key of an id is one
	// read and one write.
	MapGet(t Table, owner, k string) (id string, found bool, err error)
	MapPut(t Table, owner, k, id string) error
	MapDropValue(t Table, owner, id string) error

	ListAdd(ix List, owner, id string) (uint64, error)
	ListRemove(ix List, owner, id string) error
	ListIDs(ix List, owner string) ([]string, error)
	ListCount(ix List, owner string) (int, error)
	// ListSeq returns the seq id got from listAdd; false when none.
	ListSeq(ix List, owner, id string) (uint64, bool, error)
	// ListInsert files id at seq, in seq order: a list ordered as
	// another (the orgs a user belongs to, in the orgs' order).
	ListInsert(ix List, owner, id string, seq uint64) error
	// ListPage returns one page of owner's list by the rules of Page, and
	// the list's size.
	ListPage(ix List, owner string, p Page) (ids, cursors []string, total int, err error)

	// NextOrder returns the next creation order, shared by sources,
	// workflows and auto-subscriptions so that they compare.
	NextOrder() (uint64, error)

	// DeleteDeliveriesOf removes every delivery to listener: in the
	// transaction, or (JetStream, where they may be more than one batch
	// holds) once it has committed.
	DeleteDeliveriesOf(listener string) error
	// DeleteRunnerData removes what source or workflow id keeps beyond
	// its record: its events, db, queued invocations, timer and dedupe
	// state and, for a workflow, its executions and deliveries. JetStream
	// removes the larger of them once the transaction has committed.
	DeleteRunnerData(id string, workflow bool) error

	// LastFire returns when id's timer (prop "") or its timer prop last
	// fired, in epoch ms; 0 when never.
	LastFire(id, prop string) (int64, error)
	SetLastFire(id, prop string, ms int64) error
	// Enqueue queues inv for its source, queued at nowMs.
	Enqueue(nowMs int64, inv model.Invocation) error
	// Queued reports whether inv is still Queued; dequeue removes it, or
	// returns ErrNotFound.
	Queued(inv model.Invocation) (bool, error)
	Dequeue(inv model.Invocation) error

	// AppendEvents opens the event log of emitterID for appending, each
	// channel trimmed to keep; its close writes what it holds back.
	AppendEvents(nowMs int64, emitterID string, keep int) (EventAppender, error)
	// PutExecution stores x and trims its workflow's executions to the
	// newest keep (0: no trim); execution reads one back, and
	// newestExecutions up to limit of them, newest first.
	PutExecution(x *model.Execution, keep int) error
	Execution(workflowID string, seq uint64) ([]byte, bool, error)
	NewestExecutions(workflowID string, limit int) ([][]byte, error)
	// CreateDelivery queues d for its listener, within the listener's
	// bounds of deliveries.
	CreateDelivery(nowMs int64, d model.Delivery) (model.Delivery, error)

	// Spend counts what the transaction wrote against the bound of one
	// batch (kvEngine.batchKV); full reports whether it is reached. A
	// transaction not of a batch is never full.
	Spend(events, bytes int)
	Full() bool
}

// EventAppender adds events to one emitter's log in a transaction.
type EventAppender interface {
	// Add stores e, its ID assigned, and returns about how many bytes it
	// wrote.
	Add(e *model.Event) (int, error)
	// Release removes the event id from the emitter's ChannelDelayed;
	// false when it is not there (cancelled).
	Release(id string) (bool, error)
	Close() error
}

// Engine runs the rules' transactions: view's writes nothing, update's
// commits atomically what fn wrote, or nothing when fn fails.
type Engine interface {
	View(ctx context.Context, fn func(tx Tx) error) error
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Batch is updateKV bounded to what one commit of a batch of runs
	// should hold (its tx reports full), and, once begun, carried out
	// whatever ctx says.
	Batch(ctx context.Context, fn func(tx Tx) error) error
}

// rules are the store's rules written once; Bolt and JetStream embed
// them, so their methods are both engines'.
type rules struct {
	kv     Engine
	limits Limits           // set once at open, read-only after
	now    func() time.Time // the clock of event ids and queue times; tests replace it
}

// getRecord decodes the record id of t into v, or returns ErrNotFound.
func getRecord(tx Tx, t Table, id string, v any) error {
	data, ok, err := tx.Record(t, id)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s %q: %w", t.Subject, id, err)
	}
	return nil
}

// putRecord encodes v as the record id of t.
func putRecord(tx Tx, t Table, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", t.Subject, id, err)
	}
	return tx.PutRecord(t, id, data)
}

// lookup returns the id filed under parts in t.
func lookup(tx Tx, t Table, parts ...string) (string, bool, error) {
	id, ok, err := tx.Value(t, parts...)
	return string(id), ok, err
}

// hasRecord reports whether t holds id.
func hasRecord(tx Tx, t Table, id string) (bool, error) {
	_, ok, err := tx.Record(t, id)
	return ok, err
}

// createRecord stores v as the new record id of t, filed last in
// owner's list ix, unless id is taken or owner holds its limit of kind.
func (r rules) createRecord(tx Tx, t Table, ix List, kind Counted, owner, id string, v any) error {
	if ok, err := hasRecord(tx, t, id); err != nil || ok {
		return errors.Join(err, idTaken(ok))
	}
	if err := r.checkRoom(tx, kind, owner); err != nil {
		return err
	}
	if _, err := tx.ListAdd(ix, owner, id); err != nil {
		return err
	}
	return putRecord(tx, t, id, v)
}

// listAllOf returns every record of owner's list ix, from t.
func listAllOf[T any](ctx context.Context, r rules, ix List, t Table, owner string) ([]T, error) {
	out := []T{}
	err := r.kv.View(ctx, func(tx Tx) error {
		ids, err := tx.ListIDs(ix, owner)
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
func allOf[T any](ctx context.Context, r rules, t Table, id func(T) string) ([]T, error) {
	var out []T
	err := r.kv.View(ctx, func(tx Tx) error {
		records, err := tx.Records(t)
		if err != nil {
			return err
		}
		out = make([]T, len(records))
		for i, data := range records {
			if err := json.Unmarshal(data, &out[i]); err != nil {
				return fmt.Errorf("decode a record of %s: %w", t.Subject, err)
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(id(a), id(b)) })
	return out, err
}

// pageOfList returns one page of owner's list ix, records from t.
func pageOfList[T any](ctx context.Context, r rules, ix List, t Table, owner string, p Page) (PageOf[T], error) {
	var pg PageOf[T]
	err := r.kv.View(ctx, func(tx Tx) error {
		ids, cursors, total, err := tx.ListPage(ix, owner, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[T](func(id string) ([]byte, error) {
			data, ok, err := tx.Record(t, id)
			if err == nil && !ok {
				err = fmt.Errorf("record %q of %s: %w", id, t.Subject, ErrNotFound)
			}
			return data, err
		}, p, ids, cursors, total)
		return err
	})
	return pg, err
}
