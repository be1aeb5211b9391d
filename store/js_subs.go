package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fount-dev/fount/model"
)

// Subscriptions, auto-subscriptions and webhooks on JetStream. What
// bbolt indexes in buckets of keys, JetStream indexes in records of id
// lists (jsIDs), read and rewritten with their revision checked.
const (
	tblSubs          = "sub"         // subscription id → Subscription
	tblSubTuples     = "sub_tuple"   // owner, emitter, listener, event → subscription id
	tblSubEnds       = "sub_ends"    // emitter or listener id → jsIDs of its subscriptions
	tblAutoSubs      = "auto"        // auto-subscription id → AutoSubscription
	tblAutoTuples    = "auto_tuple"  // owner, listener, event → id
	tblAutoListeners = "auto_lsn"    // listener → jsIDs of its auto-subscriptions
	tblWebhooks      = "webhook"     // webhook id → Webhook
	tblMeta          = "meta"        // "order" → the last creation order given
	tblSourceSlugs   = "source_slug" // owner, slug → source id
)

// jsIDs is a record holding a set of ids.
type jsIDs struct {
	IDs []string `json:"ids"`
}

// addID adds id to the set of record k.
func (tx *jsTx) addID(k, id string) error {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if !slices.Contains(set.IDs, id) {
		set.IDs = append(set.IDs, id)
	}
	return tx.putJSON(k, set)
}

// removeID takes id out of the set of record k, deleting it once empty.
func (tx *jsTx) removeID(k, id string) error {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
	set.IDs = slices.DeleteFunc(set.IDs, func(s string) bool { return s == id })
	if len(set.IDs) == 0 {
		tx.del(k)
		return nil
	}
	return tx.putJSON(k, set)
}

// ids reads the set of record k (empty when none).
func (tx *jsTx) ids(k string) ([]string, error) {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return set.IDs, nil
}

// nextOrder returns the next creation order, shared by sources,
// workflows and auto-subscriptions so that they can be compared.
func (s *JetStream) nextOrder(tx *jsTx) (uint64, error) {
	var n uint64
	if err := tx.getJSON(s.key(tblMeta, "order"), &n); err != nil && !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("creation order: %w", err)
	}
	n++
	return n, tx.putJSON(s.key(tblMeta, "order"), n)
}

// PutSubscription stores s unless an identical one exists, which it
// returns instead.
func (s *JetStream) PutSubscription(ctx context.Context, sub model.Subscription) (model.Subscription, error) {
	if sub.ID == "" {
		return model.Subscription{}, errors.New("store: put subscription: empty id")
	}
	var out model.Subscription
	err := s.update(ctx, func(tx *jsTx) error {
		var err error
		out, err = s.putSubscription(tx, sub)
		return err
	})
	if err != nil {
		return model.Subscription{}, fmt.Errorf("store: put subscription %q: %w", sub.ID, err)
	}
	return out, nil
}

func (s *JetStream) putSubscription(tx *jsTx, sub model.Subscription) (model.Subscription, error) {
	tuple := s.key(tblSubTuples, sub.OwnerID, sub.EmitterID, sub.ListenerID, sub.EventName)
	if id, ok, err := tx.get(tuple); err != nil || ok {
		if err != nil {
			return model.Subscription{}, err
		}
		var out model.Subscription
		err := tx.getJSON(s.key(tblSubs, string(id)), &out)
		return out, err
	}
	if ok, err := tx.has(s.key(tblSubs, sub.ID)); err != nil || ok {
		return model.Subscription{}, errors.Join(err, idTaken(ok))
	}
	if err := s.checkRoom(tx, CountSubscriptions, sub.OwnerID); err != nil {
		return model.Subscription{}, err
	}
	if _, err := tx.listAdd(subIndex, sub.OwnerID, sub.ID); err != nil {
		return model.Subscription{}, err
	}
	tx.put(tuple, []byte(sub.ID))
	for _, end := range []string{sub.EmitterID, sub.ListenerID} {
		if err := tx.addID(s.key(tblSubEnds, end), sub.ID); err != nil {
			return model.Subscription{}, err
		}
	}
	return sub, tx.putJSON(s.key(tblSubs, sub.ID), sub)
}

func (s *JetStream) deleteSubscriptionByID(tx *jsTx, id string) error {
	var sub model.Subscription
	if err := tx.getJSON(s.key(tblSubs, id), &sub); err != nil {
		return err
	}
	return s.deleteSub(tx, sub)
}

func (s *JetStream) deleteSub(tx *jsTx, sub model.Subscription) error {
	if err := tx.listRemove(subIndex, sub.OwnerID, sub.ID); err != nil {
		return err
	}
	tx.del(s.key(tblSubTuples, sub.OwnerID, sub.EmitterID, sub.ListenerID, sub.EventName))
	for _, end := range []string{sub.EmitterID, sub.ListenerID} {
		if err := tx.removeID(s.key(tblSubEnds, end), sub.ID); err != nil {
			return err
		}
	}
	tx.del(s.key(tblSubs, sub.ID))
	return nil
}

// deleteSubsNaming deletes the subscriptions naming id as emitter or
// listener (listenerOnly: as listener).
func (s *JetStream) deleteSubsNaming(tx *jsTx, id string, listenerOnly bool) error {
	subIDs, err := tx.ids(s.key(tblSubEnds, id))
	if err != nil {
		return err
	}
	for _, subID := range subIDs {
		var sub model.Subscription
		if err := tx.getJSON(s.key(tblSubs, subID), &sub); err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // both ends were id; already deleted
			}
			return err
		}
		if listenerOnly && sub.ListenerID != id {
			continue
		}
		if err := s.deleteSub(tx, sub); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSubscription deletes the subscription of the tuple, or returns
// ErrNotFound.
func (s *JetStream) DeleteSubscription(ctx context.Context, ownerID, emitterID, listenerID, eventName string) error {
	err := s.update(ctx, func(tx *jsTx) error {
		id, ok, err := tx.get(s.key(tblSubTuples, ownerID, emitterID, listenerID, eventName))
		if err != nil || !ok {
			return errors.Join(err, notFound(ok))
		}
		return s.deleteSubscriptionByID(tx, string(id))
	})
	if err != nil {
		return fmt.Errorf("store: delete subscription %s -> %s: %w", emitterID, listenerID, err)
	}
	return nil
}

// ListSubscriptions returns ownerID's subscriptions in creation order.
func (s *JetStream) ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error) {
	out, err := listAll[model.Subscription](ctx, s, subIndex, tblSubs, ownerID)
	if err != nil {
		return nil, fmt.Errorf("store: list subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}

// listAll reads every record of owner's list ix from table.
func listAll[T any](ctx context.Context, s *JetStream, ix orderIndex, table, owner string) ([]T, error) {
	out := []T{}
	err := s.view(ctx, func(tx *jsTx) error {
		l, err := tx.list(ix, owner)
		if err != nil {
			return err
		}
		for _, it := range l.Items {
			var v T
			if err := tx.getJSON(s.key(table, it.ID), &v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// PutAutoSubscription stores a with Order assigned unless an identical
// one exists, which it returns instead.
func (s *JetStream) PutAutoSubscription(ctx context.Context, a model.AutoSubscription) (model.AutoSubscription, error) {
	if a.ID == "" {
		return model.AutoSubscription{}, errors.New("store: put auto-subscription: empty id")
	}
	var out model.AutoSubscription
	err := s.update(ctx, func(tx *jsTx) error {
		out = a
		tuple := s.key(tblAutoTuples, a.OwnerID, a.ListenerID, a.EventName)
		if id, ok, err := tx.get(tuple); err != nil || ok {
			if err != nil {
				return err
			}
			return tx.getJSON(s.key(tblAutoSubs, string(id)), &out)
		}
		if ok, err := tx.has(s.key(tblAutoSubs, a.ID)); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := s.checkRoom(tx, CountSubscriptions, a.OwnerID); err != nil {
			return err
		}
		if _, err := tx.listAdd(autoIndex, a.OwnerID, a.ID); err != nil {
			return err
		}
		tx.put(tuple, []byte(a.ID))
		if err := tx.addID(s.key(tblAutoListeners, a.ListenerID), a.ID); err != nil {
			return err
		}
		order, err := s.nextOrder(tx)
		if err != nil {
			return err
		}
		out.Order = order
		return tx.putJSON(s.key(tblAutoSubs, a.ID), out)
	})
	if err != nil {
		return model.AutoSubscription{}, fmt.Errorf("store: put auto-subscription %q: %w", a.ID, err)
	}
	return out, nil
}

// deleteAutoSubsOfListener deletes the auto-subscriptions of listener.
func (s *JetStream) deleteAutoSubsOfListener(tx *jsTx, listener string) error {
	autoIDs, err := tx.ids(s.key(tblAutoListeners, listener))
	if err != nil {
		return err
	}
	for _, id := range autoIDs {
		var a model.AutoSubscription
		if err := tx.getJSON(s.key(tblAutoSubs, id), &a); err != nil {
			return err
		}
		if err := tx.listRemove(autoIndex, a.OwnerID, id); err != nil {
			return err
		}
		tx.del(s.key(tblAutoTuples, a.OwnerID, a.ListenerID, a.EventName))
		tx.del(s.key(tblAutoSubs, id))
	}
	tx.del(s.key(tblAutoListeners, listener))
	return nil
}

// ListAutoSubscriptions returns ownerID's auto-subscriptions in creation
// order.
func (s *JetStream) ListAutoSubscriptions(ctx context.Context, ownerID string) ([]model.AutoSubscription, error) {
	out, err := listAll[model.AutoSubscription](ctx, s, autoIndex, tblAutoSubs, ownerID)
	if err != nil {
		return nil, fmt.Errorf("store: list auto-subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}

// CreateWebhook stores w.
//
// # Errors
//
// ErrConflict when w.ID exists; a *LimitError when the owner has its
// limit of webhooks.
func (s *JetStream) CreateWebhook(ctx context.Context, w model.Webhook) error {
	if w.ID == "" {
		return errors.New("store: create webhook: empty id")
	}
	err := s.update(ctx, func(tx *jsTx) error {
		if ok, err := tx.has(s.key(tblWebhooks, w.ID)); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := s.checkRoom(tx, CountWebhooks, w.OwnerID); err != nil {
			return err
		}
		if _, err := tx.listAdd(webhookIndex, w.OwnerID, w.ID); err != nil {
			return err
		}
		return tx.putJSON(s.key(tblWebhooks, w.ID), w)
	})
	if err != nil {
		return fmt.Errorf("store: create webhook %q: %w", w.ID, err)
	}
	return nil
}

// GetWebhook returns the webhook with id, or ErrNotFound.
func (s *JetStream) GetWebhook(ctx context.Context, id string) (model.Webhook, error) {
	var w model.Webhook
	err := s.view(ctx, func(tx *jsTx) error { return tx.getJSON(s.key(tblWebhooks, id), &w) })
	if err != nil {
		return model.Webhook{}, fmt.Errorf("store: get webhook %q: %w", id, err)
	}
	return w, nil
}

// DeleteWebhook removes the webhook with its subscriptions and, once
// that is committed, its deliveries.
func (s *JetStream) DeleteWebhook(ctx context.Context, id string) error {
	err := s.update(ctx, func(tx *jsTx) error {
		var w model.Webhook
		if err := tx.getJSON(s.key(tblWebhooks, id), &w); err != nil {
			return err
		}
		if err := tx.listRemove(webhookIndex, w.OwnerID, id); err != nil {
			return err
		}
		if err := s.deleteSubsNaming(tx, id, true); err != nil {
			return err
		}
		if err := s.deleteAutoSubsOfListener(tx, id); err != nil {
			return err
		}
		tx.del(s.key(tblWebhooks, id))
		return nil
	})
	if err == nil {
		err = s.deleteDeliveriesAfter(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("store: delete webhook %q: %w", id, err)
	}
	return nil
}

// ListWebhooks returns one page of ownerID's webhooks in creation order.
func (s *JetStream) ListWebhooks(ctx context.Context, ownerID string, p Page) (PageOf[model.Webhook], error) {
	pg, err := pageOwned[model.Webhook](ctx, s, webhookIndex, tblWebhooks, ownerID, p)
	if err != nil {
		return PageOf[model.Webhook]{}, fmt.Errorf("store: list webhooks of %q: %w", ownerID, err)
	}
	return pg, nil
}

// pageOwned reads one page of owner's list ix, records from table.
func pageOwned[T any](ctx context.Context, s *JetStream, ix orderIndex, table, owner string, p Page) (PageOf[T], error) {
	var pg PageOf[T]
	err := s.view(ctx, func(tx *jsTx) error {
		l, err := tx.list(ix, owner)
		if err != nil {
			return err
		}
		ids, cursors, err := pageList(ix, owner, l.Items, p)
		if err != nil {
			return err
		}
		pg, err = pageRecords[T](tx, table, p, ids, cursors, len(l.Items))
		return err
	})
	return pg, err
}

// UpdateWebhook replaces a webhook's record (ErrNotFound when gone); its
// owner and creation time stay.
func (s *JetStream) UpdateWebhook(ctx context.Context, w model.Webhook) error {
	err := s.update(ctx, func(tx *jsTx) error {
		var old model.Webhook
		if err := tx.getJSON(s.key(tblWebhooks, w.ID), &old); err != nil {
			return err
		}
		w.OwnerID, w.CreatedAt = old.OwnerID, old.CreatedAt // not the caller's to change
		return tx.putJSON(s.key(tblWebhooks, w.ID), w)
	})
	if err != nil {
		return fmt.Errorf("store: update webhook %q: %w", w.ID, err)
	}
	return nil
}

// RecordWebhookOutcome counts a settled delivery of webhook id, as
// Bolt.RecordWebhookOutcome does.
func (s *JetStream) RecordWebhookOutcome(ctx context.Context, id string, delivered bool, nowMs int64, maxFailures int, minAge time.Duration) (model.Webhook, bool, error) {
	var w model.Webhook
	disabled := false
	err := s.update(ctx, func(tx *jsTx) error {
		w, disabled = model.Webhook{}, false
		k := s.key(tblWebhooks, id)
		if err := tx.getJSON(k, &w); err != nil {
			return err
		}
		var changed bool
		if changed, disabled = recordOutcome(&w, delivered, nowMs, maxFailures, minAge); !changed {
			return nil
		}
		return tx.putJSON(k, w)
	})
	if err != nil {
		return model.Webhook{}, false, fmt.Errorf("store: record an outcome of webhook %q: %w", id, err)
	}
	return w, disabled, nil
}
