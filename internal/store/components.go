package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
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
func (r rules) CreateComponent(ctx context.Context, c model.Component) (model.Component, error) {
	if c.ID == "" {
		return model.Component{}, errors.New("store: create component: empty id")
	}
	var out model.Component
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = c
		same, ok, err := sameComponent(tx, c)
		if err != nil {
			return err
		}
		if ok {
			out = same
			if err := tx.ListRemove(kv.ComponentList, same.OwnerID, same.ID); err != nil {
				return err
			}
			if _, err := tx.ListAdd(kv.ComponentList, same.OwnerID, same.ID); err != nil {
				return err
			}
		} else if err := r.addComponent(tx, c); err != nil {
			return err
		}
		if out.Key == "" {
			return nil
		}
		return tx.PutValue(kv.ComponentKeys, []byte(out.ID), out.OwnerID, out.Key)
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: create component %q: %w", c.ID, err)
	}
	return out, nil
}

// codeKey is where the owner's map of code files c: its code hash and
// URL, encoded by key() so that no pair of them collides.
func codeKey(c model.Component) string {
	return string(kv.Key(c.CodeHash, c.ComponentURL))
}

// addComponent stores a new component c and files it by owner and code.
func (r rules) addComponent(tx kv.Tx, c model.Component) error {
	if ok, err := hasRecord(tx, kv.Components, c.ID); err != nil || ok {
		return errors.Join(err, idTaken(ok))
	}
	if err := r.makeRoomForComponent(tx, c.OwnerID); err != nil {
		return err
	}
	if _, err := tx.ListAdd(kv.ComponentList, c.OwnerID, c.ID); err != nil {
		return err
	}
	if c.CodeHash != "" {
		if err := tx.MapPut(kv.ComponentCode, c.OwnerID, codeKey(c), c.ID); err != nil {
			return err
		}
	}
	return putRecord(tx, kv.Components, c.ID, c)
}

// sameComponent returns the owner's component of c's code when it equals
// c in all but its id and times. Components without a code hash (the
// engine always sets one) match nothing.
func sameComponent(tx kv.Tx, c model.Component) (model.Component, bool, error) {
	if c.CodeHash == "" {
		return model.Component{}, false, nil
	}
	id, ok, err := tx.MapGet(kv.ComponentCode, c.OwnerID, codeKey(c))
	if err != nil || !ok {
		return model.Component{}, false, err
	}
	var old model.Component
	if err := getRecord(tx, kv.Components, id, &old); err != nil {
		if errors.Is(err, ErrNotFound) {
			return model.Component{}, false, nil
		}
		return model.Component{}, false, err
	}
	return old, equalSaves(old, c), nil
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

// ComponentByCode returns owner's component of the code, or ErrNotFound.
func (r rules) ComponentByCode(ctx context.Context, owner, codeHash, codeURL string) (model.Component, error) {
	var c model.Component
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		id, ok, err := tx.MapGet(kv.ComponentCode, owner, codeKey(model.Component{CodeHash: codeHash, ComponentURL: codeURL}))
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return getRecord(tx, kv.Components, id, &c)
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: component of code %.12s: %w", codeHash, err)
	}
	return c, nil
}

// GetComponent returns the component with id, or ErrNotFound.
func (r rules) GetComponent(ctx context.Context, id string) (model.Component, error) {
	var c model.Component
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Components, id, &c) })
	if err != nil {
		return model.Component{}, fmt.Errorf("store: get component %q: %w", id, err)
	}
	return c, nil
}

// ComponentByKey returns the newest component saved with key in ownerID's
// namespace, or ErrNotFound (always for the empty key).
func (r rules) ComponentByKey(ctx context.Context, ownerID, k string) (model.Component, error) {
	var c model.Component
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		if k == "" {
			return ErrNotFound
		}
		id, ok, err := lookup(tx, kv.ComponentKeys, ownerID, k)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return getRecord(tx, kv.Components, id, &c)
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: component %q of %q: %w", k, ownerID, err)
	}
	return c, nil
}
