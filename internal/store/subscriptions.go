package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// PutSubscription stores s, or returns the existing subscription with the
// same (OwnerID, EmitterID, ListenerID, EventName) unchanged.
//
// # Errors
//
// ErrConflict when s.ID belongs to a different subscription; a
// *LimitError when a new subscription would take the owner past its
// limit of subscriptions (auto-subscriptions included).
func (r rules) PutSubscription(ctx context.Context, s model.Subscription) (model.Subscription, error) {
	if s.ID == "" {
		return model.Subscription{}, errors.New("store: put subscription: empty id")
	}
	var out model.Subscription
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var err error
		out, err = r.putSubscription(tx, s)
		return err
	})
	if err != nil {
		return model.Subscription{}, fmt.Errorf("store: put subscription %q: %w", s.ID, err)
	}
	return out, nil
}

// putSubscription is PutSubscription inside tx.
func (r rules) putSubscription(tx kv.Tx, s model.Subscription) (model.Subscription, error) {
	var out model.Subscription
	tuple := []string{s.OwnerID, s.EmitterID, s.ListenerID, s.EventName}
	id, ok, err := lookup(tx, kv.SubTuples, tuple...)
	if err != nil {
		return out, err
	}
	if ok {
		return out, getRecord(tx, kv.Subs, id, &out)
	}
	if ok, err := hasRecord(tx, kv.Subs, s.ID); err != nil || ok {
		return out, errors.Join(err, idTaken(ok))
	}
	if err := r.checkRoom(tx, model.CountSubscriptions, s.OwnerID); err != nil {
		return out, err
	}
	if _, err := tx.ListAdd(kv.SubList, s.OwnerID, s.ID); err != nil {
		return out, err
	}
	if err := tx.PutValue(kv.SubTuples, []byte(s.ID), tuple...); err != nil {
		return out, err
	}
	for _, end := range []string{s.EmitterID, s.ListenerID} {
		if err := tx.AddMember(kv.SubEnds, end, s.ID); err != nil {
			return out, err
		}
	}
	return s, putRecord(tx, kv.Subs, s.ID, s)
}

// deleteSubscriptionByID removes the subscription id, or returns
// ErrNotFound.
func deleteSubscriptionByID(tx kv.Tx, id string) error {
	var s model.Subscription
	if err := getRecord(tx, kv.Subs, id, &s); err != nil {
		return err
	}
	return deleteSub(tx, s)
}

// deleteSub removes s and all its index entries.
func deleteSub(tx kv.Tx, s model.Subscription) error {
	if err := tx.ListRemove(kv.SubList, s.OwnerID, s.ID); err != nil {
		return err
	}
	if err := tx.DeleteValue(kv.SubTuples, s.OwnerID, s.EmitterID, s.ListenerID, s.EventName); err != nil {
		return err
	}
	for _, end := range []string{s.EmitterID, s.ListenerID} {
		if err := tx.RemoveMember(kv.SubEnds, end, s.ID); err != nil {
			return err
		}
	}
	return tx.DeleteRecord(kv.Subs, s.ID)
}

// deleteSubsNaming removes the subscriptions whose listener is id and,
// unless listenerOnly, those whose emitter is id.
func deleteSubsNaming(tx kv.Tx, id string, listenerOnly bool) error {
	subIDs, err := tx.Members(kv.SubEnds, id)
	if err != nil {
		return err
	}
	for _, subID := range subIDs {
		var s model.Subscription
		if err := getRecord(tx, kv.Subs, subID, &s); err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // both ends were id; already deleted
			}
			return err
		}
		if listenerOnly && s.ListenerID != id {
			continue
		}
		if err := deleteSub(tx, s); err != nil {
			return err
		}
	}
	return nil
}

// deleteListenerSubs removes the subscriptions naming id, as emitter or
// listener, and the auto-subscriptions delivering to it: what a deleted
// source or workflow leaves.
func deleteListenerSubs(tx kv.Tx, id string) error {
	if err := deleteSubsNaming(tx, id, false); err != nil {
		return err
	}
	return deleteAutoSubsOfListener(tx, id)
}

// DeleteSubscription deletes the subscription (ownerID, emitterID,
// listenerID, eventName), or returns ErrNotFound.
func (r rules) DeleteSubscription(ctx context.Context, ownerID, emitterID, listenerID, eventName string) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		id, ok, err := lookup(tx, kv.SubTuples, ownerID, emitterID, listenerID, eventName)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return deleteSubscriptionByID(tx, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete subscription %s -> %s: %w", emitterID, listenerID, err)
	}
	return nil
}

// ListSubscriptions returns ownerID's subscriptions in creation order.
func (r rules) ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error) {
	out, err := listAllOf[model.Subscription](ctx, r, kv.SubList, kv.Subs, ownerID)
	if err != nil {
		return nil, fmt.Errorf("store: list subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}

// PutAutoSubscription stores a with Order assigned, or returns the
// existing auto-subscription with the same (OwnerID, ListenerID,
// EventName) unchanged.
//
// # Errors
//
// ErrConflict when a.ID belongs to a different auto-subscription; a
// *LimitError when a new one would take the owner past its limit of
// subscriptions (which counts auto-subscriptions).
func (r rules) PutAutoSubscription(ctx context.Context, a model.AutoSubscription) (model.AutoSubscription, error) {
	if a.ID == "" {
		return model.AutoSubscription{}, errors.New("store: put auto-subscription: empty id")
	}
	var out model.AutoSubscription
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = a
		tuple := []string{a.OwnerID, a.ListenerID, a.EventName}
		id, ok, err := lookup(tx, kv.AutoTuples, tuple...)
		if err != nil {
			return err
		}
		if ok {
			return getRecord(tx, kv.AutoSubs, id, &out)
		}
		if ok, err := hasRecord(tx, kv.AutoSubs, a.ID); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := r.checkRoom(tx, model.CountSubscriptions, a.OwnerID); err != nil {
			return err
		}
		if _, err := tx.ListAdd(kv.AutoList, a.OwnerID, a.ID); err != nil {
			return err
		}
		if err := tx.PutValue(kv.AutoTuples, []byte(a.ID), tuple...); err != nil {
			return err
		}
		if err := tx.AddMember(kv.AutoListeners, a.ListenerID, a.ID); err != nil {
			return err
		}
		order, err := tx.NextOrder()
		if err != nil {
			return err
		}
		out.Order = order
		return putRecord(tx, kv.AutoSubs, a.ID, out)
	})
	if err != nil {
		return model.AutoSubscription{}, fmt.Errorf("store: put auto-subscription %q: %w", a.ID, err)
	}
	return out, nil
}

// deleteAutoSubsOfListener removes the auto-subscriptions delivering to
// listener.
func deleteAutoSubsOfListener(tx kv.Tx, listener string) error {
	ids, err := tx.Members(kv.AutoListeners, listener)
	if err != nil {
		return err
	}
	for _, id := range ids {
		var a model.AutoSubscription
		if err := getRecord(tx, kv.AutoSubs, id, &a); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.AutoList, a.OwnerID, id); err != nil {
			return err
		}
		if err := tx.DeleteValue(kv.AutoTuples, a.OwnerID, a.ListenerID, a.EventName); err != nil {
			return err
		}
		if err := tx.RemoveMember(kv.AutoListeners, listener, id); err != nil {
			return err
		}
		if err := tx.DeleteRecord(kv.AutoSubs, id); err != nil {
			return err
		}
	}
	return nil
}

// ListAutoSubscriptions returns ownerID's auto-subscriptions in creation
// order.
func (r rules) ListAutoSubscriptions(ctx context.Context, ownerID string) ([]model.AutoSubscription, error) {
	out, err := listAllOf[model.AutoSubscription](ctx, r, kv.AutoList, kv.AutoSubs, ownerID)
	if err != nil {
		return nil, fmt.Errorf("store: list auto-subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}
