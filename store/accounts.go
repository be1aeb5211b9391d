package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateConnectedAccount stores a.
//
// # Errors
//
// ErrConflict when a.ID exists; a *LimitError when the owner has its
// limit of connected accounts. Nothing is stored then.
func (b *Bolt) CreateConnectedAccount(ctx context.Context, a model.ConnectedAccount) (model.ConnectedAccount, error) {
	if a.ID == "" {
		return model.ConnectedAccount{}, errors.New("store: create connected account: empty id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAccounts)
		if has(bk, []byte(a.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if err := b.checkRoom(boltKV{tx}, CountAccounts, a.OwnerID); err != nil {
			return err
		}
		if _, err := accountIndex.add(tx, a.OwnerID, a.ID); err != nil {
			return err
		}
		return putJSON(bk, a.ID, a)
	})
	if err != nil {
		return model.ConnectedAccount{}, fmt.Errorf("store: create connected account %q: %w", a.ID, err)
	}
	return a, nil
}

// GetConnectedAccount returns the connected account with id, or
// ErrNotFound.
func (b *Bolt) GetConnectedAccount(ctx context.Context, id string) (model.ConnectedAccount, error) {
	var a model.ConnectedAccount
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketAccounts), id, &a)
	})
	if err != nil {
		return model.ConnectedAccount{}, fmt.Errorf("store: get connected account %q: %w", id, err)
	}
	return a, nil
}

// ListConnectedAccounts returns a page of owner's connected accounts, in
// the order they were created.
func (b *Bolt) ListConnectedAccounts(ctx context.Context, ownerID string, p Page) (PageOf[model.ConnectedAccount], error) {
	var pg PageOf[model.ConnectedAccount]
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ids, cursors, total, err := accountIndex.page(tx, ownerID, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[model.ConnectedAccount](recordsOf(tx.Bucket(bucketAccounts)), p, ids, cursors, total)
		return err
	})
	if err != nil {
		return PageOf[model.ConnectedAccount]{}, fmt.Errorf("store: list connected accounts of %q: %w", ownerID, err)
	}
	return pg, nil
}

// DeleteConnectedAccount removes the connected account with id, or
// returns ErrNotFound. The app props configured with it are left as they
// are: their $auth is then not found (see the engine's DeleteAccount).
func (b *Bolt) DeleteConnectedAccount(ctx context.Context, id string) error {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAccounts)
		if !has(bk, []byte(id)) {
			return ErrNotFound
		}
		if err := accountIndex.remove(tx, id); err != nil {
			return err
		}
		return bk.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("store: delete connected account %q: %w", id, err)
	}
	return nil
}
