package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateUser stores u and, when keyHash is not empty, maps keyHash to it.
//
// # Errors
//
// ErrConflict when u.ID exists or keyHash is already in use.
func (b *Bolt) CreateUser(ctx context.Context, u model.User, keyHash string) error {
	if u.ID == "" {
		return errors.New("store: create user: empty id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		users := tx.Bucket(bucketUsers)
		if has(users, []byte(u.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if keyHash != "" {
			if err := putKeyHash(tx, u.ID, keyHash); err != nil {
				return err
			}
		}
		return putJSON(users, u.ID, u)
	})
	if err != nil {
		return fmt.Errorf("store: create user %q: %w", u.ID, err)
	}
	return nil
}

// putKeyHash maps keyHash to userID unless it maps to another user.
func putKeyHash(tx *bolt.Tx, userID, keyHash string) error {
	keys := tx.Bucket(bucketUserKeys)
	if cur := keys.Get([]byte(keyHash)); cur != nil {
		if string(cur) == userID {
			return nil
		}
		return fmt.Errorf("key in use: %w", ErrConflict)
	}
	return keys.Put([]byte(keyHash), []byte(userID))
}

// GetUser returns the user with id, or ErrNotFound.
func (b *Bolt) GetUser(ctx context.Context, id string) (model.User, error) {
	var u model.User
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketUsers), id, &u)
	})
	if err != nil {
		return model.User{}, fmt.Errorf("store: get user %q: %w", id, err)
	}
	return u, nil
}

// UserByKeyHash returns the user owning the API key with that hash, or
// ErrNotFound.
func (b *Bolt) UserByKeyHash(ctx context.Context, keyHash string) (model.User, error) {
	var u model.User
	err := b.view(ctx, func(tx *bolt.Tx) error {
		if keyHash == "" {
			return ErrNotFound
		}
		id := tx.Bucket(bucketUserKeys).Get([]byte(keyHash))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bucketUsers), string(id), &u)
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
func (b *Bolt) AddKeyHash(ctx context.Context, userID, keyHash string) error {
	if keyHash == "" {
		return fmt.Errorf("store: add key to user %q: empty key hash", userID)
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		if !has(tx.Bucket(bucketUsers), []byte(userID)) {
			return ErrNotFound
		}
		return putKeyHash(tx, userID, keyHash)
	})
	if err != nil {
		return fmt.Errorf("store: add key to user %q: %w", userID, err)
	}
	return nil
}

// CountUsers returns the number of users.
func (b *Bolt) CountUsers(ctx context.Context) (int, error) {
	n := 0
	err := b.view(ctx, func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketUsers).Stats().KeyN
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count users: %w", err)
	}
	return n, nil
}
