package store

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// CreateComponent stores c. When c.Key is not empty, (c.OwnerID, c.Key)
// then points at c, replacing any older component saved with that key.
//
// # Errors
//
// ErrConflict when c.ID exists.
func (b *Bolt) CreateComponent(ctx context.Context, c Component) error {
	if c.ID == "" {
		return errors.New("store: create component: empty id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		comps := tx.Bucket(bucketComponents)
		if has(comps, []byte(c.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if c.Key != "" {
			if err := tx.Bucket(bucketComponentKeys).Put(key(c.OwnerID, c.Key), []byte(c.ID)); err != nil {
				return err
			}
		}
		return putJSON(comps, c.ID, c)
	})
	if err != nil {
		return fmt.Errorf("store: create component %q: %w", c.ID, err)
	}
	return nil
}

// GetComponent returns the component with id, or ErrNotFound.
func (b *Bolt) GetComponent(ctx context.Context, id string) (Component, error) {
	var c Component
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketComponents), id, &c)
	})
	if err != nil {
		return Component{}, fmt.Errorf("store: get component %q: %w", id, err)
	}
	return c, nil
}

// ComponentByKey returns the newest component saved with key in ownerID's
// namespace, or ErrNotFound (always for the empty key).
func (b *Bolt) ComponentByKey(ctx context.Context, ownerID, k string) (Component, error) {
	var c Component
	err := b.view(ctx, func(tx *bolt.Tx) error {
		if k == "" {
			return ErrNotFound
		}
		id := tx.Bucket(bucketComponentKeys).Get(key(ownerID, k))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bucketComponents), string(id), &c)
	})
	if err != nil {
		return Component{}, fmt.Errorf("store: component %q of %q: %w", k, ownerID, err)
	}
	return c, nil
}
