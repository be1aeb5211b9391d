package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateSource stores s with its Order assigned, indexes it by owner and
// by name slug, and applies hooks (what its deploy and activate hooks
// emitted, as CompleteRun applies a run's commit), in one transaction. It
// returns the stored source and the hooks' stored events.
//
// # Errors
//
// ErrConflict when s.ID exists or s.NameSlug is taken for s.OwnerID; a
// *LimitError when the owner has its limit of sources. Nothing is stored
// then.
func (b *Bolt) CreateSource(ctx context.Context, s model.Source, hooks RunCommit) (model.Source, []model.Event, error) {
	if s.ID == "" {
		return model.Source{}, nil, errors.New("store: create source: empty id")
	}
	var events []model.Event
	err := b.update(ctx, func(tx *bolt.Tx) error {
		sources := tx.Bucket(bucketSources)
		if has(sources, []byte(s.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if err := b.checkRoom(boltKV{tx}, CountSources, s.OwnerID); err != nil {
			return err
		}
		if err := componentExists(tx, s.ComponentID); err != nil {
			return err
		}
		if err := claimSlug(tx, s.OwnerID, s.NameSlug, s.ID); err != nil {
			return err
		}
		if _, err := sourceIndex.add(tx, s.OwnerID, s.ID); err != nil {
			return err
		}
		order, err := nextOrder(tx)
		if err != nil {
			return err
		}
		s.Order = order
		if err := putJSON(sources, s.ID, s); err != nil {
			return err
		}
		if err := useComponent(tx, s.ComponentID, s.ID); err != nil {
			return err
		}
		events, err = b.applyCommit(tx, s.ID, hooks)
		return err
	})
	if err != nil {
		return model.Source{}, nil, fmt.Errorf("store: create source %q: %w", s.ID, err)
	}
	return s, events, nil
}

// nextOrder returns the next creation order, shared by sources and
// auto-subscriptions so that the two can be compared.
func nextOrder(tx *bolt.Tx) (uint64, error) {
	n, err := tx.Bucket(bucketMeta).NextSequence()
	if err != nil {
		return 0, fmt.Errorf("creation order: %w", err)
	}
	return n, nil
}

// claimSlug points (owner, slug) at id unless another source holds it.
// The empty slug is never indexed.
func claimSlug(tx *bolt.Tx, owner, slug, id string) error {
	if slug == "" {
		return nil
	}
	slugs := tx.Bucket(bucketSourceSlugs)
	k := key(owner, slug)
	if cur := slugs.Get(k); cur != nil && string(cur) != id {
		return fmt.Errorf("name slug %q taken: %w", slug, ErrConflict)
	}
	return slugs.Put(k, []byte(id))
}

// releaseSlug removes (owner, slug) if it points at id.
func releaseSlug(tx *bolt.Tx, owner, slug, id string) error {
	if slug == "" {
		return nil
	}
	slugs := tx.Bucket(bucketSourceSlugs)
	k := key(owner, slug)
	if cur := slugs.Get(k); cur == nil || string(cur) != id {
		return nil
	}
	return slugs.Delete(k)
}

// GetSource returns the source with id, or ErrNotFound.
func (b *Bolt) GetSource(ctx context.Context, id string) (model.Source, error) {
	var s model.Source
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketSources), id, &s)
	})
	if err != nil {
		return model.Source{}, fmt.Errorf("store: get source %q: %w", id, err)
	}
	return s, nil
}

// UpdateSource replaces the stored source s.ID with s, moving its slug
// index entry when the slug changes, and applies hooks (what the old
// version's deactivate and the new version's activate hooks emitted), in
// one transaction. The owner and the creation order cannot change.
//
// # Errors
//
// ErrNotFound for an unknown source; ErrConflict when the new slug is
// taken by another source of the owner. Nothing changes then.
func (b *Bolt) UpdateSource(ctx context.Context, s model.Source, hooks RunCommit) ([]model.Event, error) {
	var events []model.Event
	err := b.update(ctx, func(tx *bolt.Tx) error {
		sources := tx.Bucket(bucketSources)
		var old model.Source
		if err := getJSON(sources, s.ID, &old); err != nil {
			return err
		}
		if old.OwnerID != s.OwnerID {
			return fmt.Errorf("owner cannot change from %q to %q", old.OwnerID, s.OwnerID)
		}
		s.Order = old.Order
		if s.ComponentID != old.ComponentID {
			if err := componentExists(tx, s.ComponentID); err != nil {
				return err
			}
		}
		if old.NameSlug != s.NameSlug {
			if err := claimSlug(tx, s.OwnerID, s.NameSlug, s.ID); err != nil {
				return err
			}
			if err := releaseSlug(tx, old.OwnerID, old.NameSlug, s.ID); err != nil {
				return err
			}
		}
		if err := putJSON(sources, s.ID, s); err != nil {
			return err
		}
		if err := unuseComponent(tx, old.ComponentID, s.ID); err != nil {
			return err
		}
		if err := useComponent(tx, s.ComponentID, s.ID); err != nil {
			return err
		}
		var err error
		events, err = b.applyCommit(tx, s.ID, hooks)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: update source %q: %w", s.ID, err)
	}
	return events, nil
}

// DeleteSource first applies hooks (what the deactivate hook emitted, or
// the $errors event of its failure), so that their routed deliveries and
// invocations are queued, and then removes the source, its index entries,
// its events, its db, its queued invocations, dedupe and timer state, and
// every subscription naming it as emitter or listener, plus the
// auto-subscriptions naming it as listener, in one transaction. It returns
// the hooks' events as they were stored before the removal.
//
// # Errors
//
// ErrNotFound for an unknown source; nothing changes then.
func (b *Bolt) DeleteSource(ctx context.Context, id string, hooks RunCommit) ([]model.Event, error) {
	var events []model.Event
	err := b.update(ctx, func(tx *bolt.Tx) error {
		sources := tx.Bucket(bucketSources)
		var s model.Source
		if err := getJSON(sources, id, &s); err != nil {
			return err
		}
		var err error
		if events, err = b.applyCommit(tx, id, hooks); err != nil {
			return err
		}
		if err := releaseSlug(tx, s.OwnerID, s.NameSlug, id); err != nil {
			return err
		}
		if err := sourceIndex.remove(tx, id); err != nil {
			return err
		}
		if err := unuseComponent(tx, s.ComponentID, id); err != nil {
			return err
		}
		if err := deleteSubsNaming(boltKV{tx}, id, false); err != nil {
			return err
		}
		if err := deleteAutoSubsOfListener(boltKV{tx}, id); err != nil {
			return err
		}
		if err := deleteEmitter(tx, id); err != nil {
			return err
		}
		if err := deleteNested(tx.Bucket(bucketDB), id); err != nil {
			return err
		}
		if err := deleteSourceQueues(tx, id); err != nil {
			return err
		}
		return sources.Delete([]byte(id))
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete source %q: %w", id, err)
	}
	return events, nil
}

// deleteNested removes the nested bucket name of parent if it exists.
func deleteNested(parent *bolt.Bucket, name string) error {
	if name == "" || parent.Bucket([]byte(name)) == nil {
		return nil
	}
	return parent.DeleteBucket([]byte(name))
}

// ListSources returns one page of ownerID's sources in creation order.
func (b *Bolt) ListSources(ctx context.Context, ownerID string, p Page) (PageOf[model.Source], error) {
	var pg PageOf[model.Source]
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ids, cursors, total, err := sourceIndex.page(tx, ownerID, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[model.Source](recordsOf(tx.Bucket(bucketSources)), p, ids, cursors, total)
		return err
	})
	if err != nil {
		return PageOf[model.Source]{}, fmt.Errorf("store: list sources of %q: %w", ownerID, err)
	}
	return pg, nil
}

// SlugTaken reports whether a source of ownerID has the name slug.
func (b *Bolt) SlugTaken(ctx context.Context, ownerID, slug string) (bool, error) {
	taken := false
	err := b.view(ctx, func(tx *bolt.Tx) error {
		taken = slug != "" && has(tx.Bucket(bucketSourceSlugs), key(ownerID, slug))
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: slug taken: %w", err)
	}
	return taken, nil
}
