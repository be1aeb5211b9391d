package store

import (
	"fmt"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// claimSlug points (owner, slug) of t at id unless another record holds
// it. The empty slug is never indexed.
func claimSlug(tx kv.Tx, t kv.Table, owner, slug, id string) error {
	if slug == "" {
		return nil
	}
	cur, ok, err := lookup(tx, t, owner, slug)
	if err != nil {
		return err
	}
	if ok && cur != id {
		return fmt.Errorf("name slug %q taken: %w", slug, ErrConflict)
	}
	return tx.PutValue(t, []byte(id), owner, slug)
}

// releaseSlug removes (owner, slug) of t if it points at id.
func releaseSlug(tx kv.Tx, t kv.Table, owner, slug, id string) error {
	if slug == "" {
		return nil
	}
	cur, ok, err := lookup(tx, t, owner, slug)
	if err != nil || !ok || cur != id {
		return err
	}
	return tx.DeleteValue(t, owner, slug)
}

// moveSlug claims slug for id and releases its old one, when they differ.
func moveSlug(tx kv.Tx, t kv.Table, owner, old, slug, id string) error {
	if old == slug {
		return nil
	}
	if err := claimSlug(tx, t, owner, slug, id); err != nil {
		return err
	}
	return releaseSlug(tx, t, owner, old, id)
}
