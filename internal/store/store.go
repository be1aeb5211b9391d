package store

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/fount-dev/fount/internal/model"
)

// Store is fount's durable state. Lists return records in creation order
// (events: newest first). Implementations are safe for concurrent use.
type Store interface {
	// Users and API keys. Keys are stored as the hex sha256 of the key.
	CreateUser(ctx context.Context, u model.User, keyHash string) error
	GetUser(ctx context.Context, id string) (model.User, error)
	UserByKeyHash(ctx context.Context, keyHash string) (model.User, error)
	AddKeyHash(ctx context.Context, userID, keyHash string) error
	CountUsers(ctx context.Context) (int, error)

	// Organizations.
	CreateOrg(ctx context.Context, o model.Org) error
	GetOrg(ctx context.Context, id string) (model.Org, error)
	AddOrgMember(ctx context.Context, orgID, userID string) (model.Org, error)
	OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error)

	// Connected accounts: apps' credentials, sealed by the engine.
	CreateConnectedAccount(ctx context.Context, a model.ConnectedAccount) (model.ConnectedAccount, error)
	GetConnectedAccount(ctx context.Context, id string) (model.ConnectedAccount, error)
	ListConnectedAccounts(ctx context.Context, ownerID string, p Page) (PageOf[model.ConnectedAccount], error)
	DeleteConnectedAccount(ctx context.Context, id string) error

	// Data stores: an account's named key-value stores, shared by its
	// sources and workflows.
	CreateDataStore(ctx context.Context, ds model.DataStore) (model.DataStore, error)
	GetDataStore(ctx context.Context, id string) (model.DataStore, error)
	DataStoreByName(ctx context.Context, owner, name string) (model.DataStore, error)
	ListDataStores(ctx context.Context, owner string, p Page) (PageOf[model.DataStore], error)
	DeleteDataStore(ctx context.Context, id string) error
	DataGet(ctx context.Context, id, key string) (model.DataEntry, bool, error)
	DataEntries(ctx context.Context, id string) ([]model.DataEntry, error)
	DataSet(ctx context.Context, id string, e model.DataEntry, bounds DataBounds) error
	DataDelete(ctx context.Context, id, key string) (bool, error)
	DataClear(ctx context.Context, id string) error

	// Components. A component's (OwnerID, Key) points at the newest
	// component saved with that key. CreateComponent returns the stored
	// component: an equal one saved before, when there is one.
	CreateComponent(ctx context.Context, c model.Component) (model.Component, error)
	GetComponent(ctx context.Context, id string) (model.Component, error)
	// ComponentByCode returns owner's component of the code with
	// codeHash from codeURL, the one CreateComponent would find the same
	// (ErrNotFound when none): its lock is what the code was bundled with.
	ComponentByCode(ctx context.Context, owner, codeHash, codeURL string) (model.Component, error)
	ComponentByKey(ctx context.Context, ownerID, key string) (model.Component, error)

	// Sources. Each write also commits what the source's lifecycle hooks
	// emitted (hooks, applied as a run's commit is), in the same
	// transaction. CreateSource assigns Order and fails with ErrConflict
	// when the slug is taken for the owner; SlugTaken lets callers pick a
	// free one first.
	CreateSource(ctx context.Context, s model.Source, hooks RunCommit) (model.Source, []model.Event, error)
	GetSource(ctx context.Context, id string) (model.Source, error)
	UpdateSource(ctx context.Context, s model.Source, hooks RunCommit) ([]model.Event, error)
	// DeleteSource applies hooks, then removes the source, its events, its
	// db and every subscription naming it (as emitter or listener), in one
	// transaction.
	DeleteSource(ctx context.Context, id string, hooks RunCommit) ([]model.Event, error)
	ListSources(ctx context.Context, ownerID string, p Page) (PageOf[model.Source], error)
	SlugTaken(ctx context.Context, ownerID, slug string) (bool, error)

	// Subscriptions. PutSubscription is idempotent: an identical
	// (owner, emitter, listener, event name) returns the existing one.
	PutSubscription(ctx context.Context, s model.Subscription) (model.Subscription, error)
	DeleteSubscription(ctx context.Context, ownerID, emitterID, listenerID, eventName string) error
	ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error)
	// PutAutoSubscription assigns Order to a new auto-subscription.
	PutAutoSubscription(ctx context.Context, a model.AutoSubscription) (model.AutoSubscription, error)
	ListAutoSubscriptions(ctx context.Context, ownerID string) ([]model.AutoSubscription, error)

	// Workflows. CreateWorkflow and UpdateWorkflow store the
	// subscription of a source trigger (sub, or nil) with the workflow;
	// DeleteWorkflow removes the workflow with its events, executions,
	// queues, deliveries and the subscriptions naming it.
	CreateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error)
	GetWorkflow(ctx context.Context, id string) (model.Workflow, error)
	WorkflowBySlug(ctx context.Context, ownerID, slug string) (model.Workflow, error)
	UpdateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error)
	// SetWorkflowActive switches a workflow on or off, changing nothing
	// else (its version stays: its steps are the same).
	SetWorkflowActive(ctx context.Context, id string, active bool, updatedAt int64) (model.Workflow, error)
	// SetWorkflowStep replaces the step of step.Name, keeping the rest
	// of the workflow: a new version.
	SetWorkflowStep(ctx context.Context, id string, step model.WorkflowStep, updatedAt int64) (model.Workflow, error)
	// SetWorkflowControls replaces a workflow's execution controls,
	// changing nothing else but UpdatedAt.
	SetWorkflowControls(ctx context.Context, id string, c model.Controls, updatedAt int64) (model.Workflow, error)
	// SetSourceControls replaces a source's controls, changing nothing
	// else but UpdatedAt.
	SetSourceControls(ctx context.Context, id string, c model.Controls, updatedAt int64) (model.Source, error)
	DeleteWorkflow(ctx context.Context, id string) error
	ListWorkflows(ctx context.Context, ownerID string, p Page) (PageOf[model.Workflow], error)
	// Executions of workflows, stored by the commit of their run
	// (RunCommit.Execution). ListExecutions is newest first.
	GetExecution(ctx context.Context, id string) (model.Execution, error)
	ListExecutions(ctx context.Context, workflowID string, limit int) ([]model.Execution, error)
	// Paused executions, stored by the commit that pauses one
	// (RunCommit.Pause) and removed by the one that goes on with it
	// (paused.go). PausedEntry reads one's index entry (its due time and
	// URLs' hash), one small read; PausedState its state; PausedEntries
	// every entry of a workflow; CountPaused how many it holds.
	PausedEntry(ctx context.Context, workflowID, executionID string) (entry PausedEntry, found bool, err error)
	PausedState(ctx context.Context, workflowID, executionID string) (json.RawMessage, error)
	PausedEntries(ctx context.Context, workflowID string) (map[string]PausedEntry, error)
	CountPaused(ctx context.Context, workflowID string) (int, error)

	// Webhooks.
	CreateWebhook(ctx context.Context, w model.Webhook) error
	GetWebhook(ctx context.Context, id string) (model.Webhook, error)
	// UpdateWebhook replaces a webhook's record (ErrNotFound when gone).
	UpdateWebhook(ctx context.Context, w model.Webhook) error
	// RecordWebhookOutcome counts a delivery of webhook id that settled:
	// delivered resets its failures; a failure adds one, and when there
	// are at least maxFailures (> 0) in a row spanning at least minAge,
	// deactivates it with a reason. It returns the webhook as stored, and
	// whether this call deactivated it.
	RecordWebhookOutcome(ctx context.Context, id string, delivered bool, nowMs int64, maxFailures int, minAge time.Duration) (model.Webhook, bool, error)
	DeleteWebhook(ctx context.Context, id string) error
	ListWebhooks(ctx context.Context, ownerID string, p Page) (PageOf[model.Webhook], error)

	// Events. AppendEvents assigns ids (<ms>-<seq>, strictly increasing
	// per emitter) and IndexedAtMs, stores the events, and trims each
	// channel of the emitter to its newest keep events.
	AppendEvents(ctx context.Context, emitterID string, events []model.Event, keep int) ([]model.Event, error)
	// ListEvents returns up to limit events of a channel, newest first.
	ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]model.Event, error)
	// PageEvents returns a page of a channel's events, newest first,
	// bounded in number and in bytes (see EventPage).
	PageEvents(ctx context.Context, emitterID, channel string, p EventPage) ([]model.Event, error)
	// DeleteEvents deletes a channel's events with ids in [startID,
	// endID]; an empty bound is open.
	DeleteEvents(ctx context.Context, emitterID, channel, startID, endID string) (int, error)
	// CountEvents returns how many events a channel holds.
	CountEvents(ctx context.Context, emitterID, channel string) (int, error)
	// Channels names the channels of an emitter that hold events.
	Channels(ctx context.Context, emitterID string) ([]string, error)

	// The db KV of a source ($.service.db); values are JSON text.
	DBGet(ctx context.Context, sourceID, key string) ([]byte, bool, error)
	DBSet(ctx context.Context, sourceID, key string, value []byte) error
	// DBClear removes a source's whole db (what the hooks of a source
	// whose create failed wrote).
	DBClear(ctx context.Context, sourceID string) error

	// CheckLimit returns a *LimitError when account already holds its
	// limit of kind (see WithLimits); the writes that add a record check
	// again, atomically.
	CheckLimit(ctx context.Context, kind Counted, account string) error

	Close() error
}

// What some stores can do beyond Store and Queues. The server asks a
// store for each of them, and offers what it finds.
type (
	// Backuper is a store that writes a consistent copy of itself (Bolt;
	// JetStream's own tools back up its streams).
	Backuper interface {
		// Backup calls header with the size of a copy of the store as it
		// is now, then writes that copy to the writer header returns, all
		// from one read transaction: writers go on meanwhile, and the size
		// given is the size written.
		Backup(ctx context.Context, header func(size int64) (io.Writer, error)) error
	}

	// StatsReporter is a store that reports its write transactions and
	// its size (Bolt), for metrics.
	StatsReporter interface {
		Stats() StoreStats
	}

	// Stopper is a store that waits for a lost server to come back
	// (JetStream); told that the node stops, it no longer waits, so that
	// the node stops in seconds without its store.
	Stopper interface {
		Stopping()
	}

	// Shared is a store that several nodes share (JetStream): leases of
	// the work, the nodes alive, and the messages between them.
	Shared interface {
		// Lease takes or renews the lease name for holder for ttl, or
		// with ttl 0 gives it up if holder has it; it returns who holds
		// it after the call ("" for nobody).
		Lease(ctx context.Context, name, holder string, ttl time.Duration) (string, error)
		// Heartbeat records that node is alive for ttl; Leave, that it
		// stopped; Nodes names the nodes alive.
		Heartbeat(ctx context.Context, node string, ttl time.Duration) error
		Leave(ctx context.Context, node string) error
		Nodes(ctx context.Context) ([]string, error)
		// Conn is the connection the nodes' messages travel on, and
		// BusSubject the subject of a kind of message in this store's
		// namespace.
		Conn() *nats.Conn
		BusSubject(parts ...string) string
	}
)
