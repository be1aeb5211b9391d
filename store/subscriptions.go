package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// PutSubscription stores s, or returns the existing subscription with the
// same (OwnerID, EmitterID, ListenerID, EventName) unchanged.
//
// # Errors
//
// ErrConflict when s.ID belongs to a different subscription; a
// *LimitError when a new subscription would take the owner past its
// limit of subscriptions (auto-subscriptions included).
func (b *Bolt) PutSubscription(ctx context.Context, s model.Subscription) (model.Subscription, error) {
	if s.ID == "" {
		return model.Subscription{}, errors.New("store: put subscription: empty id")
	}
	var out model.Subscription
	err := b.update(ctx, func(tx *bolt.Tx) error {
		var err error
		out, err = b.putSubscription(tx, s)
		return err
	})
	if err != nil {
		return model.Subscription{}, fmt.Errorf("store: put subscription %q: %w", s.ID, err)
	}
	return out, nil
}

// putSubscription is PutSubscription inside tx.
func (b *Bolt) putSubscription(tx *bolt.Tx, s model.Subscription) (model.Subscription, error) {
	subs := tx.Bucket(bucketSubs)
	tuple := key(s.OwnerID, s.EmitterID, s.ListenerID, s.EventName)
	if id := tx.Bucket(bucketSubTuple).Get(tuple); id != nil {
		var out model.Subscription
		err := getJSON(subs, string(id), &out)
		return out, err
	}
	if has(subs, []byte(s.ID)) {
		return model.Subscription{}, fmt.Errorf("id taken: %w", ErrConflict)
	}
	if err := b.checkRoom(tx, CountSubscriptions, s.OwnerID); err != nil {
		return model.Subscription{}, err
	}
	if _, err := subIndex.add(tx, s.OwnerID, s.ID); err != nil {
		return model.Subscription{}, err
	}
	if err := tx.Bucket(bucketSubTuple).Put(tuple, []byte(s.ID)); err != nil {
		return model.Subscription{}, err
	}
	ends := tx.Bucket(bucketSubEnds)
	for _, end := range []string{s.EmitterID, s.ListenerID} {
		if err := ends.Put(key(end, s.ID), nil); err != nil {
			return model.Subscription{}, err
		}
	}
	return s, putJSON(subs, s.ID, s)
}

// deleteSubscriptionByID removes the subscription id, or returns
// ErrNotFound.
func deleteSubscriptionByID(tx *bolt.Tx, id string) error {
	var s model.Subscription
	if err := getJSON(tx.Bucket(bucketSubs), id, &s); err != nil {
		return err
	}
	return deleteSub(tx, s)
}

// deleteSub removes s and all its index entries.
func deleteSub(tx *bolt.Tx, s model.Subscription) error {
	if err := subIndex.remove(tx, s.ID); err != nil {
		return err
	}
	if err := tx.Bucket(bucketSubTuple).Delete(key(s.OwnerID, s.EmitterID, s.ListenerID, s.EventName)); err != nil {
		return err
	}
	ends := tx.Bucket(bucketSubEnds)
	for _, end := range []string{s.EmitterID, s.ListenerID} {
		if err := ends.Delete(key(end, s.ID)); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketSubs).Delete([]byte(s.ID))
}

// deleteSubsNaming removes the subscriptions whose listener is id and,
// unless listenerOnly, those whose emitter is id.
func deleteSubsNaming(tx *bolt.Tx, id string, listenerOnly bool) error {
	prefix := key(id)
	keys, _ := scanPrefix(tx.Bucket(bucketSubEnds), prefix)
	subs := tx.Bucket(bucketSubs)
	for _, k := range keys {
		subID, err := lastPart(k[len(prefix):])
		if err != nil {
			return err
		}
		var s model.Subscription
		if err := getJSON(subs, subID, &s); err != nil {
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

// DeleteSubscription deletes the subscription (ownerID, emitterID,
// listenerID, eventName), or returns ErrNotFound.
func (b *Bolt) DeleteSubscription(ctx context.Context, ownerID, emitterID, listenerID, eventName string) error {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketSubTuple).Get(key(ownerID, emitterID, listenerID, eventName))
		if id == nil {
			return ErrNotFound
		}
		var s model.Subscription
		if err := getJSON(tx.Bucket(bucketSubs), string(id), &s); err != nil {
			return err
		}
		return deleteSub(tx, s)
	})
	if err != nil {
		return fmt.Errorf("store: delete subscription %s -> %s: %w", emitterID, listenerID, err)
	}
	return nil
}

// ListSubscriptions returns ownerID's subscriptions in creation order.
func (b *Bolt) ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error) {
	out := []model.Subscription{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		subs := tx.Bucket(bucketSubs)
		for _, id := range subIndex.ids(tx, ownerID) {
			var s model.Subscription
			if err := getJSON(subs, id, &s); err != nil {
				return err
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}

// PutAutoSubscription stores a, or returns the existing auto-subscription
// with the same (OwnerID, ListenerID, EventName) unchanged.
//
// # Errors
//
// ErrConflict when a.ID belongs to a different auto-subscription; a
// *LimitError when a new one would take the owner past its limit of
// subscriptions (which counts auto-subscriptions).
func (b *Bolt) PutAutoSubscription(ctx context.Context, a model.AutoSubscription) (model.AutoSubscription, error) {
	if a.ID == "" {
		return model.AutoSubscription{}, errors.New("store: put auto-subscription: empty id")
	}
	out := a
	err := b.update(ctx, func(tx *bolt.Tx) error {
		autos := tx.Bucket(bucketAutoSubs)
		tuple := key(a.OwnerID, a.ListenerID, a.EventName)
		if id := tx.Bucket(bucketAutoTuple).Get(tuple); id != nil {
			return getJSON(autos, string(id), &out)
		}
		if has(autos, []byte(a.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if err := b.checkRoom(tx, CountSubscriptions, a.OwnerID); err != nil {
			return err
		}
		if _, err := autoIndex.add(tx, a.OwnerID, a.ID); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAutoTuple).Put(tuple, []byte(a.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAutoListeners).Put(key(a.ListenerID, a.ID), nil); err != nil {
			return err
		}
		order, err := nextOrder(tx)
		if err != nil {
			return err
		}
		a.Order = order
		out = a
		return putJSON(autos, a.ID, a)
	})
	if err != nil {
		return model.AutoSubscription{}, fmt.Errorf("store: put auto-subscription %q: %w", a.ID, err)
	}
	return out, nil
}

// deleteAutoSubsOfListener removes the auto-subscriptions delivering to
// listener.
func deleteAutoSubsOfListener(tx *bolt.Tx, listener string) error {
	prefix := key(listener)
	keys, _ := scanPrefix(tx.Bucket(bucketAutoListeners), prefix)
	autos := tx.Bucket(bucketAutoSubs)
	for _, k := range keys {
		id, err := lastPart(k[len(prefix):])
		if err != nil {
			return err
		}
		var a model.AutoSubscription
		if err := getJSON(autos, id, &a); err != nil {
			return err
		}
		if err := autoIndex.remove(tx, id); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAutoTuple).Delete(key(a.OwnerID, a.ListenerID, a.EventName)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAutoListeners).Delete(k); err != nil {
			return err
		}
		if err := autos.Delete([]byte(id)); err != nil {
			return err
		}
	}
	return nil
}

// ListAutoSubscriptions returns ownerID's auto-subscriptions in creation
// order.
func (b *Bolt) ListAutoSubscriptions(ctx context.Context, ownerID string) ([]model.AutoSubscription, error) {
	out := []model.AutoSubscription{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		autos := tx.Bucket(bucketAutoSubs)
		for _, id := range autoIndex.ids(tx, ownerID) {
			var a model.AutoSubscription
			if err := getJSON(autos, id, &a); err != nil {
				return err
			}
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list auto-subscriptions of %q: %w", ownerID, err)
	}
	return out, nil
}
