package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/model"
)

// Records is what the API reads of fount's stored records. It holds
// reads only: every change goes through the engine's methods, which own
// what a change implies (hooks, timers, queued work, signing secrets).
type Records interface {
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

// Records returns the stored records, for reading.
func (e *Engine) Records() Records { return e.store }
