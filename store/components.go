package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateComponent stores c and returns it, unless the owner already has
// a component of the same code (by CodeHash), ComponentURL and metadata:
// that one is returned instead, so that saving unchanged code again (each
// `fount deploy` saves its code) stores nothing and counts against no
// limit; it becomes the owner's most recently saved. When the returned
// component has a key, (OwnerID, Key) then points at it: it is the newest
// component saved with that key. A new component past the owner's limit
// first drops the least recently saved components that no source uses
// and no key names (see makeRoomForComponent).
//
// # Errors
//
// ErrConflict when c.ID exists; a *LimitError when a new component would
// take the owner past its limit of components and every one it has is in
// use. Nothing is stored then.
func (b *Bolt) CreateComponent(ctx context.Context, c model.Component) (model.Component, error) {
	if c.ID == "" {
		return model.Component{}, errors.New("store: create component: empty id")
	}
	out := c
	err := b.update(ctx, func(tx *bolt.Tx) error {
		codeKey := key(c.OwnerID, c.CodeHash, c.ComponentURL)
		if same, ok := sameComponent(tx, codeKey, c); ok {
			out = same
			if err := componentIndex.remove(tx, same.ID); err != nil {
				return err
			}
			if _, err := componentIndex.add(tx, same.OwnerID, same.ID); err != nil {
				return err
			}
		} else if err := b.addComponent(tx, codeKey, c); err != nil {
			return err
		}
		if out.Key == "" {
			return nil
		}
		return tx.Bucket(bucketComponentKeys).Put(key(out.OwnerID, out.Key), []byte(out.ID))
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: create component %q: %w", c.ID, err)
	}
	return out, nil
}

// addComponent stores a new component c and indexes it by owner and by
// code (codeKey).
func (b *Bolt) addComponent(tx *bolt.Tx, codeKey []byte, c model.Component) error {
	comps := tx.Bucket(bucketComponents)
	if has(comps, []byte(c.ID)) {
		return fmt.Errorf("id taken: %w", ErrConflict)
	}
	if err := b.makeRoomForComponent(tx, c.OwnerID); err != nil {
		return err
	}
	if _, err := componentIndex.add(tx, c.OwnerID, c.ID); err != nil {
		return err
	}
	if c.CodeHash != "" {
		if err := tx.Bucket(bucketComponentCode).Put(codeKey, []byte(c.ID)); err != nil {
			return err
		}
	}
	return putJSON(comps, c.ID, c)
}

// sameComponent returns the component the code index holds under codeKey
// when it equals c in all but its id and times. Components without a code
// hash (the engine always sets one) match nothing.
func sameComponent(tx *bolt.Tx, codeKey []byte, c model.Component) (model.Component, bool) {
	id := tx.Bucket(bucketComponentCode).Get(codeKey)
	if c.CodeHash == "" || id == nil {
		return model.Component{}, false
	}
	var old model.Component
	if err := getJSON(tx.Bucket(bucketComponents), string(id), &old); err != nil {
		return model.Component{}, false
	}
	return old, equalSaves(old, c)
}

// equalSaves reports whether two components of one code hash and URL are
// equal in all but their id and times. The code hash is in the index that
// found old: comparing the code itself again would only cost time, and
// the bundle follows from the code and Packages.
func equalSaves(old, c model.Component) bool {
	strip := func(c model.Component) ([]byte, error) {
		c.ID, c.Code, c.Bundle, c.BundleMap, c.CreatedAt, c.UpdatedAt = "", "", "", "", 0, 0
		return json.Marshal(c)
	}
	a, errA := strip(old)
	z, errZ := strip(c)
	return errA == nil && errZ == nil && bytes.Equal(a, z)
}

// ComponentByCode implements Store.
func (b *Bolt) ComponentByCode(ctx context.Context, owner, codeHash, codeURL string) (model.Component, error) {
	var c model.Component
	err := b.view(ctx, func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketComponentCode).Get(key(owner, codeHash, codeURL))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bucketComponents), string(id), &c)
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: component of code %.12s: %w", codeHash, err)
	}
	return c, nil
}

// GetComponent returns the component with id, or ErrNotFound.
func (b *Bolt) GetComponent(ctx context.Context, id string) (model.Component, error) {
	var c model.Component
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketComponents), id, &c)
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: get component %q: %w", id, err)
	}
	return c, nil
}

// ComponentByKey returns the newest component saved with key in ownerID's
// namespace, or ErrNotFound (always for the empty key).
func (b *Bolt) ComponentByKey(ctx context.Context, ownerID, k string) (model.Component, error) {
	var c model.Component
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
		return model.Component{}, fmt.Errorf("store: component %q of %q: %w", k, ownerID, err)
	}
	return c, nil
}
