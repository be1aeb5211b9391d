package kv

import (
	"context"

	"github.com/fount-dev/fount/internal/model"
)

// Table names one kind of record on both engines: its bbolt bucket and
// its JetStream table (the second token of a subject).
type Table struct {
	Bucket  []byte
	Subject string
	// Large records may pass what one NATS message holds: JetStream
	// stores them in parts (store/internal/jetstream/parts.go), which costs a read of the
	// record before each write.
	Large bool
}

// Tx is one transaction of an engine, as the rules see it. Records
// are JSON by id; a value is filed under a tuple of strings (an id: a
// lookup); a set holds the ids filed under one string; a map the ids
// filed under an owner and a key; a list (List) keeps an owner's
// ids in creation order, with cursors.
type Tx interface {
	// Record returns the record id of t; found is false when there is
	// none. The bytes are the caller's.
	Record(t Table, id string) (data []byte, found bool, err error)
	PutRecord(t Table, id string, data []byte) error
	DeleteRecord(t Table, id string) error
	CountRecords(t Table) (int, error)
	// Records returns every record of t, in no particular order.
	Records(t Table) ([][]byte, error)

	// A value is filed under a tuple of strings: most often an id (a
	// lookup), or a small record (an account's usage of a day).
	Value(t Table, parts ...string) (v []byte, found bool, err error)
	PutValue(t Table, v []byte, parts ...string) error
	DeleteValue(t Table, parts ...string) error

	// DeleteValuesUnder removes every value of t whose first part is
	// first: in the transaction (bbolt), or once it has committed
	// (JetStream, where they may be more than one transaction holds).
	DeleteValuesUnder(t Table, first string) error

	// LookupIDs returns the ids of every lookup of t whose first part
	// is first.
	LookupIDs(t Table, first string) (map[string]bool, error)
	// ValuesUnder returns the values of t filed under two parts whose
	// first is first, by their second part.
	ValuesUnder(t Table, first string) (map[string][]byte, error)

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
	// ListSeq returns the seq id got from ListAdd; false when none.
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

	// UpdateDelivery replaces the stored delivery d.ID with d and moves
	// it in its listener's due and settled lists; it returns the
	// delivery as it was. ErrNotFound for an unknown id.
	UpdateDelivery(d model.Delivery) (old model.Delivery, err error)
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
	// EventCount is how many events a channel of emitterID holds, with
	// what the transaction appended so far (once its appenders closed):
	// a bound checked on it holds however many runs commit at once.
	EventCount(emitterID, channel string) (int, error)
	// PutExecution stores x and trims its workflow's executions to the
	// newest keep (0: no trim); Execution reads one back, and
	// NewestExecutions up to limit of them, newest first.
	PutExecution(x *model.Execution, keep int) error
	Execution(workflowID string, seq uint64) ([]byte, bool, error)
	NewestExecutions(workflowID string, limit int) ([][]byte, error)
	// CreateDelivery queues d for its listener, within the listener's
	// bounds of deliveries.
	CreateDelivery(nowMs int64, d model.Delivery) (model.Delivery, error)

	// Spend counts what the transaction wrote against the bound of one
	// batch (Engine.Batch); Full reports whether it is reached. A
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

// Engine runs the rules' transactions: View's writes nothing, Update's
// commits atomically what fn wrote, or nothing when fn fails.
type Engine interface {
	View(ctx context.Context, fn func(tx Tx) error) error
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Batch is Update bounded to what one commit of a batch of runs
	// should hold (its tx reports Full), and, once begun, carried out
	// whatever ctx says.
	Batch(ctx context.Context, fn func(tx Tx) error) error
	// MaxRunEvents is the most events of one run that one transaction
	// commits: a run of more is committed in parts, as Batch bounds them.
	MaxRunEvents() int
}
