package records

import (
	"context"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// The API checks that a subscription's emitter and listener exist and
// whose they are; the Service stores the subscription.

// CreateSubscription subscribes listener to emitter's channel event for owner,
// and returns the subscription (the one that existed, when it did).
func (s *Service) CreateSubscription(ctx context.Context, owner, emitter string, listener model.Listener, event string) (model.Subscription, error) {
	return s.store.PutSubscription(ctx, model.Subscription{
		ID: ids.New(ids.Subscription), OwnerID: owner, EmitterID: emitter, ListenerID: listener.ID, ListenerKind: listener.Kind,
		EventName: event, CreatedAt: s.now().Unix(),
	})
}

// DeleteSubscription removes owner's subscription of listener to emitter's
// channel event; model.ErrNotFound when there is none.
func (s *Service) DeleteSubscription(ctx context.Context, owner, emitter, listener, event string) error {
	return s.store.DeleteSubscription(ctx, owner, emitter, listener, event)
}

// CreateAutoSubscription subscribes listener to channel event of every emitter
// owner creates from now on.
func (s *Service) CreateAutoSubscription(ctx context.Context, owner string, listener model.Listener, event string) (model.AutoSubscription, error) {
	return s.store.PutAutoSubscription(ctx, model.AutoSubscription{
		ID: ids.New(ids.Subscription), OwnerID: owner, ListenerID: listener.ID, ListenerKind: listener.Kind,
		EventName: event, CreatedAt: s.now().Unix(),
	})
}
