package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// schemaVersion is the layout of the bbolt file this code writes and reads.
const schemaVersion = 8

// ErrLocked is returned by Open when another process holds the file.
var ErrLocked = errors.New("the store file is locked by another process")

// lockTimeout bounds the wait for another process's lock on the file.
const lockTimeout = 5 * time.Second

// errSchemaTooNew is returned by Open when the file was written by a
// newer fount.
var errSchemaTooNew = errors.New("store: schema version too new")

// Bucket names. Index keys are built by kv.Key.
var (
	bucketMeta = kv.Meta.Bucket // schema_version

	bucketUsers    = kv.Users.Bucket    // user id -> User
	bucketUserKeys = kv.UserKeys.Bucket // key hash -> user id

	bucketOrgs       = kv.Orgs.Bucket         // org id -> Org
	bucketOrgOrder   = kv.OrgList.Order       // key("")+seq -> org id
	bucketOrgPos     = kv.OrgList.Pos         // org id -> its org_order key
	bucketOrgMembers = kv.OrgMemberList.Order // key(user)+org seq -> org id

	bucketComponents     = kv.Components.Bucket    // component id -> Component
	bucketComponentKeys  = kv.ComponentKeys.Bucket // key(owner, key) -> component id
	bucketComponentOrder = kv.ComponentList.Order  // key(owner)+seq -> component id
	bucketComponentPos   = kv.ComponentList.Pos    // component id -> its component_order key
	bucketComponentCode  = kv.ComponentCode.Bucket // key(owner, code hash, component url) -> component id
	bucketComponentUses  = kv.ComponentUses.Bucket // key(component id, source id) -> nothing: the source runs it

	bucketSources     = kv.Sources.Bucket     // source id -> Source
	bucketSourceOrder = kv.SourceList.Order   // key(owner)+seq -> source id
	bucketSourcePos   = kv.SourceList.Pos     // source id -> its source_order key
	bucketSourceSlugs = kv.SourceSlugs.Bucket // key(owner, slug) -> source id

	bucketSubs     = kv.Subs.Bucket      // subscription id -> Subscription
	bucketSubOrder = kv.SubList.Order    // key(owner)+seq -> subscription id
	bucketSubPos   = kv.SubList.Pos      // subscription id -> its sub_order key
	bucketSubTuple = kv.SubTuples.Bucket // key(owner, emitter, listener, event) -> subscription id
	bucketSubEnds  = kv.SubEnds.Bucket   // key(emitter or listener, subscription id) -> ""

	bucketAutoSubs      = kv.AutoSubs.Bucket      // id -> AutoSubscription
	bucketAutoOrder     = kv.AutoList.Order       // key(owner)+seq -> id
	bucketAutoPos       = kv.AutoList.Pos         // id -> its auto_order key
	bucketAutoTuple     = kv.AutoTuples.Bucket    // key(owner, listener, event) -> id
	bucketAutoListeners = kv.AutoListeners.Bucket // key(listener, id) -> ""

	bucketWorkflows     = kv.Workflows.Bucket     // workflow id -> Workflow
	bucketWorkflowOrder = kv.WorkflowList.Order   // key(owner)+seq -> workflow id
	bucketWorkflowPos   = kv.WorkflowList.Pos     // workflow id -> its workflow_order key
	bucketWorkflowSlugs = kv.WorkflowSlugs.Bucket // key(owner, slug) -> workflow id
	bucketExecutions    = []byte("executions")    // key(workflow id)+8-byte invocation seq -> Execution

	bucketWebhooks     = kv.Webhooks.Bucket   // webhook id -> Webhook
	bucketWebhookOrder = kv.WebhookList.Order // key(owner)+seq -> webhook id
	bucketWebhookPos   = kv.WebhookList.Pos   // webhook id -> its webhook_order key

	bucketEvents      = []byte("events")       // emitter id -> channel buckets -> ms+seq -> Event
	bucketEventClocks = []byte("event_clocks") // emitter id -> last ms+seq

	bucketDB = []byte("db") // source id -> key -> JSON text

	// The engine's queues (see internal/store/queue.go). The invocations bucket's own
	// sequence numbers invocations, the deliveries bucket's deliveries.
	bucketInvocations   = []byte("invocations")              // source id -> 8-byte seq -> Invocation
	bucketDeliveries    = []byte("deliveries")               // 8-byte seq -> Delivery
	bucketDeliveryOrder = []byte("delivery_order")           // key(listener)+8-byte seq -> delivery id
	bucketDeliveryDue   = []byte("delivery_due_by_listener") // key(listener)+8-byte next attempt ms+8-byte seq -> delivery id, pending only
	bucketDedupe        = kv.Dedupe.Bucket                   // source id -> DedupeState
	bucketUsage         = kv.Usage.Bucket                    // key(account, day) -> Usage
	bucketTimers        = []byte("timers")                   // source id -> 8-byte last fire ms
	bucketStats         = kv.Stats.Bucket                    // key(resource, unix hour) -> its minutes' statistics

	bucketAccounts     = kv.Accounts.Bucket   // connected account id -> ConnectedAccount
	bucketAccountOrder = kv.AccountList.Order // key(owner)+seq -> connected account id
	bucketAccountPos   = kv.AccountList.Pos   // connected account id -> its account_order key

	bucketDataStores     = kv.DataStores.Bucket    // data store id -> DataStore
	bucketDataStoreOrder = kv.DataStoreList.Order  // key(owner)+seq -> data store id
	bucketDataStorePos   = kv.DataStoreList.Pos    // data store id -> its data_store_order key
	bucketDataStoreNames = kv.DataStoreKeys.Bucket // key(owner, name) -> data store id
	bucketDataEntries    = kv.DataEntries.Bucket   // key(data store id, key) -> entry
	bucketPausedURLs     = kv.PausedURLs.Bucket    // key(workflow id, execution id) -> a paused execution's event on $in, before version 8
	bucketPaused         = kv.Paused.Bucket        // key(workflow id, execution id) -> a paused execution's state
	bucketPausedIndex    = kv.PausedIndex.Bucket   // key(workflow id, execution id) -> its due time and URLs' hash
	bucketPausedCounts   = kv.PausedCounts.Bucket  // key(workflow id) -> how many it holds paused

	keySchemaVersion = []byte("schema_version")
)

// allBuckets are created by Open.
var allBuckets = [][]byte{
	bucketMeta,
	bucketUsers, bucketUserKeys,
	bucketOrgs, bucketOrgOrder, bucketOrgPos, bucketOrgMembers,
	bucketComponents, bucketComponentKeys, bucketComponentOrder, bucketComponentPos, bucketComponentCode, bucketComponentUses,
	bucketSources, bucketSourceOrder, bucketSourcePos, bucketSourceSlugs,
	bucketSubs, bucketSubOrder, bucketSubPos, bucketSubTuple, bucketSubEnds,
	bucketAutoSubs, bucketAutoOrder, bucketAutoPos, bucketAutoTuple, bucketAutoListeners,
	bucketWebhooks, bucketWebhookOrder, bucketWebhookPos,
	bucketWorkflows, bucketWorkflowOrder, bucketWorkflowPos, bucketWorkflowSlugs, bucketExecutions,
	bucketEvents, bucketEventClocks,
	bucketDB,
	bucketInvocations, bucketDeliveries, bucketDeliveryOrder, bucketDeliveryDue,
	bucketDedupe, bucketUsage, bucketTimers, bucketStats,
	bucketAccounts, bucketAccountOrder, bucketAccountPos,
	bucketDataStores, bucketDataStoreOrder, bucketDataStorePos, bucketDataStoreNames, bucketDataEntries,
	bucketPausedURLs, bucketPaused, bucketPausedIndex, bucketPausedCounts,
}

// Engine keeps fount's state in a bbolt file: the transactions the
// store's rules run in (kv.Engine) and what bbolt lays out its own way
// (the event log, the queues, the db, backups). It is safe for
// concurrent use.
type Engine struct {
	db  *bbolt.DB
	now func() time.Time // the clock of event ids and queue times
	// Bounds of one transaction of CompleteRuns: txMaxEvents and
	// txMaxBytes; tests lower them.
	txMaxEvents, txMaxBytes int
	// Bounds of a listener's deliveries (deliveriesKept and
	// maxPendingDeliveries; 0: none); tests change them.
	deliveriesKept, maxPendingDeliveries int
	// onCommit is told how long each commit of update and CompleteRuns
	// took (write and fsync), and how many page writes it made; nil:
	// nobody.
	onCommit func(d time.Duration, pageWrites int64)
	group    groupCommit // of EnqueueInvocation
}

var _ kv.Engine = (*Engine)(nil)

// Open opens or creates the bbolt file at path (mode 0600), creates its
// buckets and records the schema version on first open, upgrading a file
// of an older version. now is the clock of event ids and queue times;
// onCommit, when not nil, is told of each write transaction's commit.
//
// # Errors
//
// Open fails when another process holds the file for longer than a few
// seconds (ErrLocked), or when the file was written by a newer schema
// than this code knows.
func Open(path string, now func() time.Time, onCommit func(d time.Duration, pageWrites int64)) (*Engine, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("store: open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.Update(initSchema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return &Engine{db: db, now: now, onCommit: onCommit,
		txMaxEvents: txMaxEvents, txMaxBytes: txMaxBytes,
		deliveriesKept: kv.DeliveriesKept, maxPendingDeliveries: kv.MaxPendingDeliveries}, nil
}

// Stats are the store's cumulative write figures and its size.
type Stats struct {
	WriteTime time.Duration // spent writing and syncing pages, every commit
	Writes    int64         // page writes
	SizeBytes int64         // the file's data size
}

// Stats reads the store's write figures and size.
func (b *Engine) Stats() Stats {
	st := b.db.Stats()
	out := Stats{WriteTime: st.TxStats.GetWriteTime(), Writes: st.TxStats.GetWrite()}
	_ = b.db.View(func(tx *bbolt.Tx) error { out.SizeBytes = tx.Size(); return nil })
	return out
}

// initSchema checks the schema version, creates missing buckets, and
// upgrades a file of an older version with the migrations in order.
func initSchema(tx *bbolt.Tx) error {
	var version uint64 // 0: a new file
	if meta := tx.Bucket(bucketMeta); meta != nil {
		if v := meta.Get(keySchemaVersion); v != nil {
			n, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				return fmt.Errorf("unreadable schema version %q: %w", v, err)
			}
			if n > schemaVersion {
				return fmt.Errorf("%w: the file has version %d, this fount knows %d; upgrade fount",
					errSchemaTooNew, n, schemaVersion)
			}
			version = n
		}
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	for v := version; v > 0 && v < schemaVersion; v++ {
		if err := migrations[v](tx); err != nil {
			return fmt.Errorf("upgrade schema from version %d: %w", v, err)
		}
	}
	if version != schemaVersion {
		if err := tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(strconv.Itoa(schemaVersion))); err != nil {
			return fmt.Errorf("write schema version: %w", err)
		}
	}
	return nil
}

// Close closes the file. Calling it twice is safe.
func (b *Engine) Close() error {
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// view runs fn in a read transaction unless ctx is already done.
func (b *Engine) view(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.View(fn)
}

// update runs fn in a write transaction unless ctx is already done.
func (b *Engine) update(ctx context.Context, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.write(fn)
}

// write is bolt's Update, with its commit timed for the observer: the
// clock starts when fn returns, and stops when the commit has synced.
func (b *Engine) write(fn func(tx *bbolt.Tx) error) error {
	return b.db.Update(func(tx *bbolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if b.onCommit != nil {
			start := time.Now()
			tx.OnCommit(func() {
				stats := tx.Stats()
				b.onCommit(time.Since(start), stats.GetWrite())
			})
		}
		return nil
	})
}

// getJSON decodes the record at key into v; kv.ErrNotFound when absent.
func getJSON(bk *bbolt.Bucket, key string, v any) error {
	data := bk.Get([]byte(key))
	if data == nil {
		return kv.ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode record %q: %w", key, err)
	}
	return nil
}

// putJSON encodes v and stores it at key.
func putJSON(bk *bbolt.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", key, err)
	}
	return bk.Put([]byte(key), data)
}

// has reports whether bk holds key.
func has(bk *bbolt.Bucket, key []byte) bool {
	return bk.Get(key) != nil
}

// lastPart decodes rest, the end of a key made by key(), as one part.
func lastPart(rest []byte) (string, error) {
	n, w := binary.Uvarint(rest)
	if w <= 0 || uint64(len(rest)-w) != n {
		return "", fmt.Errorf("corrupt index key %x", rest)
	}
	return string(rest[w:]), nil
}

// scanPrefix returns copies of the keys and values of bk that start with
// prefix, in key order, so the caller may change bk while using them.
func scanPrefix(bk *bbolt.Bucket, prefix []byte) (keys, values [][]byte) {
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		keys = append(keys, kv.Clone(k))
		values = append(values, kv.Clone(v))
	}
	return keys, values
}

// Ping reports whether the store answers a read.
func (b *Engine) Ping(ctx context.Context) error {
	return b.view(ctx, func(*bbolt.Tx) error { return nil })
}

// Backup writes a consistent copy of the whole store file, from one read
// transaction: writers go on meanwhile, and the copy is the store as it
// was when the transaction began. header is given the copy's size first,
// from the same transaction, and returns where to write it.
func (b *Engine) Backup(ctx context.Context, header func(size int64) (io.Writer, error)) error {
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		w, err := header(tx.Size())
		if err != nil {
			return err
		}
		_, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}

// QueueDepths counts the queued invocations and the pending deliveries,
// for metrics. Each count walks its index: a scrape's cost grows with
// the backlog it reports.
func (b *Engine) QueueDepths(ctx context.Context) (invocations, deliveries int, err error) {
	err = b.view(ctx, func(tx *bbolt.Tx) error {
		err := tx.Bucket(bucketInvocations).ForEachBucket(func(k []byte) error {
			invocations += tx.Bucket(bucketInvocations).Bucket(k).Stats().KeyN
			return nil
		})
		if err != nil {
			return err
		}
		deliveries = tx.Bucket(bucketDeliveryDue).Stats().KeyN
		return nil
	})
	return invocations, deliveries, err
}
