package records

import (
	"cmp"
	"context"
	"time"

	"github.com/fount-dev/fount/internal/keyed"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// Reader is what the API reads of fount's stored records. It holds
// reads only: every change goes through a Service's methods or the
// engine's, which own what a change implies (hooks, timers, queued
// work, signing secrets, bounds).
type Reader interface {
	GetUser(ctx context.Context, id string) (model.User, error)
	UserByKeyHash(ctx context.Context, keyHash string) (model.User, error)
	GetOrg(ctx context.Context, id string) (model.Org, error)
	OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error)

	GetConnectedAccount(ctx context.Context, id string) (model.ConnectedAccount, error)
	ListConnectedAccounts(ctx context.Context, ownerID string, p model.Page) (model.PageOf[model.ConnectedAccount], error)
	GetDataStore(ctx context.Context, id string) (model.DataStore, error)
	ListDataStores(ctx context.Context, owner string, p model.Page) (model.PageOf[model.DataStore], error)
	DataGet(ctx context.Context, id, key string) (model.DataEntry, bool, error)
	DataEntries(ctx context.Context, id string) ([]model.DataEntry, error)

	GetComponent(ctx context.Context, id string) (model.Component, error)
	ComponentByKey(ctx context.Context, ownerID, key string) (model.Component, error)
	GetSource(ctx context.Context, id string) (model.Source, error)
	ListSources(ctx context.Context, ownerID string, p model.Page) (model.PageOf[model.Source], error)
	GetWorkflow(ctx context.Context, id string) (model.Workflow, error)
	ListWorkflows(ctx context.Context, ownerID string, p model.Page) (model.PageOf[model.Workflow], error)
	GetExecution(ctx context.Context, id string) (model.Execution, error)
	CountPaused(ctx context.Context, workflowID string) (int, error)
	ListExecutions(ctx context.Context, workflowID string, limit int) ([]model.Execution, error)
	GetWebhook(ctx context.Context, id string) (model.Webhook, error)
	ListWebhooks(ctx context.Context, ownerID string, p model.Page) (model.PageOf[model.Webhook], error)
	ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error)

	PageEvents(ctx context.Context, emitterID, channel string, p model.EventPage) ([]model.Event, error)
	CountEvents(ctx context.Context, emitterID, channel string) (int, error)
	// CheckLimit returns a *model.LimitError when account already holds
	// its limit of kind; writes check again, atomically.
	CheckLimit(ctx context.Context, kind model.Counted, account string) error
}

// Config configures a Service. Store is required.
type Config struct {
	Store store.Store
	// Now is the time records are stamped with. Default time.Now.
	Now func() time.Time
	// Secrets seals connected accounts' fields; required to create one.
	Secrets *secret.Sealer
	// DataStoreMaxKeys and DataStoreMaxBytes bound one data store.
	// Defaults DefaultDataStoreMaxKeys and DefaultDataStoreMaxBytes.
	DataStoreMaxKeys  int
	DataStoreMaxBytes int64
}

// Defaults of Config.
const (
	DefaultDataStoreMaxKeys = 10_000
	// DefaultDataStoreMaxBytes lets entries() fit one message to the
	// guest.
	DefaultDataStoreMaxBytes = 2 << 20
)

// Service writes the records no running code is made of: users and
// organizations, subscriptions, webhooks, connected accounts, data
// stores and their entries. What it writes takes effect where it is
// next read: a subscription at the next routing, a webhook at its next
// delivery, an account at the next $auth.
type Service struct {
	store    store.Store
	now      func() time.Time
	secrets  *secret.Sealer
	bounds   store.DataBounds
	webhooks keyed.Mutex // two edits of a webhook do not lose one
}

// New returns a Service.
func New(cfg Config) *Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{store: cfg.Store, now: now, secrets: cfg.Secrets, bounds: store.DataBounds{
		MaxKeys:  cmp.Or(max(cfg.DataStoreMaxKeys, 0), DefaultDataStoreMaxKeys),
		MaxBytes: cmp.Or(max(cfg.DataStoreMaxBytes, 0), DefaultDataStoreMaxBytes),
	}}
}

// Reader returns the stored records, for reading.
func (s *Service) Reader() Reader { return s.store }
