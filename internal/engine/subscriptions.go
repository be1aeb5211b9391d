package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// Subscriptions are written here: the API checks that the emitter and
// listener exist and whose they are, the engine stores the subscription.

// CreateSubscription subscribes listener to emitter's channel event for owner,
// and returns the subscription (the one that existed, when it did).
func (e *Engine) CreateSubscription(ctx context.Context, owner, emitter string, listener model.Listener, event string) (model.Subscription, error) {
	return e.store.PutSubscription(ctx, model.Subscription{
		ID: ids.New(ids.Subscription), OwnerID: owner, EmitterID: emitter, ListenerID: listener.ID, ListenerKind: listener.Kind,
		EventName: event, CreatedAt: e.clock.Now().Unix(),
	})
}

// DeleteSubscription removes owner's subscription of listener to emitter's
// channel event; model.ErrNotFound when there is none.
func (e *Engine) DeleteSubscription(ctx context.Context, owner, emitter, listener, event string) error {
	return e.store.DeleteSubscription(ctx, owner, emitter, listener, event)
}

// CreateAutoSubscription subscribes listener to channel event of every emitter
// owner creates from now on.
func (e *Engine) CreateAutoSubscription(ctx context.Context, owner string, listener model.Listener, event string) (model.AutoSubscription, error) {
	return e.store.PutAutoSubscription(ctx, model.AutoSubscription{
		ID: ids.New(ids.Subscription), OwnerID: owner, ListenerID: listener.ID, ListenerKind: listener.Kind,
		EventName: event, CreatedAt: e.clock.Now().Unix(),
	})
}
