package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateConnectedAccount stores a.
//
// # Errors
//
// ErrConflict when a.ID exists; a *LimitError when the owner has its
// limit of connected accounts. Nothing is stored then.
func (r rules) CreateConnectedAccount(ctx context.Context, a model.ConnectedAccount) (model.ConnectedAccount, error) {
	if a.ID == "" {
		return model.ConnectedAccount{}, errors.New("store: create connected account: empty id")
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		return r.createRecord(tx, kv.Accounts, kv.AccountList, model.CountAccounts, a.OwnerID, a.ID, a)
	})
	if err != nil {
		return model.ConnectedAccount{}, fmt.Errorf("store: create connected account %q: %w", a.ID, err)
	}
	return a, nil
}

// GetConnectedAccount returns the connected account with id, or
// ErrNotFound.
func (r rules) GetConnectedAccount(ctx context.Context, id string) (model.ConnectedAccount, error) {
	var a model.ConnectedAccount
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Accounts, id, &a) })
	if err != nil {
		return model.ConnectedAccount{}, fmt.Errorf("store: get connected account %q: %w", id, err)
	}
	return a, nil
}

// ListConnectedAccounts returns a page of owner's connected accounts, in
// the order they were created.
func (r rules) ListConnectedAccounts(ctx context.Context, ownerID string, p Page) (PageOf[model.ConnectedAccount], error) {
	pg, err := pageOfList[model.ConnectedAccount](ctx, r, kv.AccountList, kv.Accounts, ownerID, p)
	if err != nil {
		return PageOf[model.ConnectedAccount]{}, fmt.Errorf("store: list connected accounts of %q: %w", ownerID, err)
	}
	return pg, nil
}

// DeleteConnectedAccount removes the connected account with id, or
// returns ErrNotFound. The app props configured with it are left as they
// are: their $auth is then not found (see the engine's DeleteAccount).
func (r rules) DeleteConnectedAccount(ctx context.Context, id string) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var a model.ConnectedAccount
		if err := getRecord(tx, kv.Accounts, id, &a); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.AccountList, a.OwnerID, id); err != nil {
			return err
		}
		return tx.DeleteRecord(kv.Accounts, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete connected account %q: %w", id, err)
	}
	return nil
}
