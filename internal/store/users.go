package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateUser stores u and, when keyHash is not empty, maps keyHash to it.
//
// # Errors
//
// ErrConflict when u.ID exists, keyHash is already in use, or u is an
// owner and the server has one: nodes starting together may each try to
// create the owner, and one does.
func (r rules) CreateUser(ctx context.Context, u model.User, keyHash string) error {
	if u.ID == "" {
		return errors.New("store: create user: empty id")
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if ok, err := hasRecord(tx, kv.Users, u.ID); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if u.Owner {
			_, ok, err := lookup(tx, kv.Meta, "owner")
			if err != nil || ok {
				return errors.Join(err, ownerTaken(ok))
			}
			if err := tx.PutValue(kv.Meta, []byte(u.ID), "owner"); err != nil {
				return err
			}
		}
		if keyHash != "" {
			if err := putKeyHash(tx, u.ID, keyHash); err != nil {
				return err
			}
		}
		return putRecord(tx, kv.Users, u.ID, u)
	})
	if err != nil {
		return fmt.Errorf("store: create user %q: %w", u.ID, err)
	}
	return nil
}

// ownerTaken is the conflict of a second owner, or nil.
func ownerTaken(exists bool) error {
	if exists {
		return fmt.Errorf("the server has an owner: %w", ErrConflict)
	}
	return nil
}

// idTaken is the conflict of a create whose id exists, or nil.
func idTaken(exists bool) error {
	if exists {
		return fmt.Errorf("id taken: %w", ErrConflict)
	}
	return nil
}

// putKeyHash maps keyHash to userID unless it maps to another user. A
// key hash is a record whose value is the user's id.
func putKeyHash(tx kv.Tx, userID, keyHash string) error {
	cur, ok, err := tx.Record(kv.UserKeys, keyHash)
	switch {
	case err != nil:
		return err
	case ok && string(cur) == userID:
		return nil
	case ok:
		return fmt.Errorf("key in use: %w", ErrConflict)
	}
	return tx.PutRecord(kv.UserKeys, keyHash, []byte(userID))
}

// GetUser returns the user with id, or ErrNotFound.
func (r rules) GetUser(ctx context.Context, id string) (model.User, error) {
	var u model.User
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Users, id, &u) })
	if err != nil {
		return model.User{}, fmt.Errorf("store: get user %q: %w", id, err)
	}
	return u, nil
}

// UserByKeyHash returns the user owning the API key with that hash, or
// ErrNotFound.
func (r rules) UserByKeyHash(ctx context.Context, keyHash string) (model.User, error) {
	var u model.User
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		if keyHash == "" {
			return ErrNotFound
		}
		id, ok, err := tx.Record(kv.UserKeys, keyHash)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return getRecord(tx, kv.Users, string(id), &u)
	})
	if err != nil {
		return model.User{}, fmt.Errorf("store: user by key: %w", err)
	}
	return u, nil
}

// AddKeyHash gives user userID another API key. Adding a key the user
// already has is a no-op.
//
// # Errors
//
// ErrNotFound for an unknown user; ErrConflict when another user has the key.
func (r rules) AddKeyHash(ctx context.Context, userID, keyHash string) error {
	if keyHash == "" {
		return fmt.Errorf("store: add key to user %q: empty key hash", userID)
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if ok, err := hasRecord(tx, kv.Users, userID); err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return putKeyHash(tx, userID, keyHash)
	})
	if err != nil {
		return fmt.Errorf("store: add key to user %q: %w", userID, err)
	}
	return nil
}

// CountUsers returns the number of users.
func (r rules) CountUsers(ctx context.Context) (int, error) {
	n := 0
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		n, err = tx.CountRecords(kv.Users)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: count users: %w", err)
	}
	return n, nil
}
