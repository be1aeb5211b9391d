package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateSource stores s with its Order assigned, indexes it by owner and
// by name slug, and applies hooks (what its deploy and activate hooks
// emitted, as CompleteRun applies a run's commit), in one transaction. It
// returns the stored source and the hooks' stored events.
//
// # Errors
//
// ErrConflict when s.ID exists or s.NameSlug is taken for s.OwnerID; a
// *LimitError when the owner has its limit of sources;
// ErrComponentDropped when its component is not stored. Nothing is
// stored then.
func (r rules) CreateSource(ctx context.Context, s model.Source, hooks RunCommit) (model.Source, []model.Event, error) {
	if s.ID == "" {
		return model.Source{}, nil, errors.New("store: create source: empty id")
	}
	var out model.Source
	var events []model.Event
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = s
		if ok, err := hasRecord(tx, kv.Sources, s.ID); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := r.checkRoom(tx, model.CountSources, s.OwnerID); err != nil {
			return err
		}
		if err := componentExists(tx, s.ComponentID); err != nil {
			return err
		}
		if err := claimSlug(tx, kv.SourceSlugs, s.OwnerID, s.NameSlug, s.ID); err != nil {
			return err
		}
		if _, err := tx.ListAdd(kv.SourceList, s.OwnerID, s.ID); err != nil {
			return err
		}
		order, err := tx.NextOrder()
		if err != nil {
			return err
		}
		out.Order = order
		if err := putRecord(tx, kv.Sources, s.ID, out); err != nil {
			return err
		}
		if err := useComponent(tx, s.ComponentID, s.ID); err != nil {
			return err
		}
		events, err = r.applyCommit(tx, s.ID, hooks)
		return err
	})
	if err != nil {
		return model.Source{}, nil, fmt.Errorf("store: create source %q: %w", s.ID, err)
	}
	return out, events, nil
}

// GetSource returns the source with id, or ErrNotFound.
func (r rules) GetSource(ctx context.Context, id string) (model.Source, error) {
	var s model.Source
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Sources, id, &s) })
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
func (r rules) UpdateSource(ctx context.Context, s model.Source, hooks RunCommit) ([]model.Event, error) {
	var events []model.Event
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		next := s
		var old model.Source
		if err := getRecord(tx, kv.Sources, s.ID, &old); err != nil {
			return err
		}
		if old.OwnerID != next.OwnerID {
			return fmt.Errorf("owner cannot change from %q to %q", old.OwnerID, next.OwnerID)
		}
		next.Order = old.Order
		if next.ComponentID != old.ComponentID {
			if err := componentExists(tx, next.ComponentID); err != nil {
				return err
			}
		}
		if err := moveSlug(tx, kv.SourceSlugs, next.OwnerID, old.NameSlug, next.NameSlug, next.ID); err != nil {
			return err
		}
		if err := putRecord(tx, kv.Sources, next.ID, next); err != nil {
			return err
		}
		if next.ComponentID != old.ComponentID {
			if err := unuseComponent(tx, old.ComponentID, next.ID); err != nil {
				return err
			}
			if err := useComponent(tx, next.ComponentID, next.ID); err != nil {
				return err
			}
		}
		var err error
		events, err = r.applyCommit(tx, next.ID, hooks)
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
// every subscription naming it as emitter or listener, the
// auto-subscriptions naming it as listener, and what it keeps beyond its
// record (kv.Tx.DeleteRunnerData). It returns the hooks' events as they
// were stored before the removal.
//
// # Errors
//
// ErrNotFound for an unknown source; nothing changes then.
func (r rules) DeleteSource(ctx context.Context, id string, hooks RunCommit) ([]model.Event, error) {
	var events []model.Event
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var s model.Source
		if err := getRecord(tx, kv.Sources, id, &s); err != nil {
			return err
		}
		var err error
		if events, err = r.applyCommit(tx, id, hooks); err != nil {
			return err
		}
		if err := releaseSlug(tx, kv.SourceSlugs, s.OwnerID, s.NameSlug, id); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.SourceList, s.OwnerID, id); err != nil {
			return err
		}
		if err := unuseComponent(tx, s.ComponentID, id); err != nil {
			return err
		}
		if err := deleteListenerSubs(tx, id); err != nil {
			return err
		}
		if err := tx.DeleteRunnerData(id, false); err != nil {
			return err
		}
		if err := deleteStats(tx, id); err != nil {
			return err
		}
		return tx.DeleteRecord(kv.Sources, id)
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete source %q: %w", id, err)
	}
	return events, nil
}

// ListSources returns one page of ownerID's sources in creation order.
func (r rules) ListSources(ctx context.Context, ownerID string, p Page) (PageOf[model.Source], error) {
	pg, err := pageOfList[model.Source](ctx, r, kv.SourceList, kv.Sources, ownerID, p)
	if err != nil {
		return PageOf[model.Source]{}, fmt.Errorf("store: list sources of %q: %w", ownerID, err)
	}
	return pg, nil
}

// SlugTaken reports whether a source of ownerID has the name slug.
func (r rules) SlugTaken(ctx context.Context, ownerID, slug string) (bool, error) {
	taken := false
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		if slug == "" {
			return nil
		}
		var err error
		_, taken, err = lookup(tx, kv.SourceSlugs, ownerID, slug)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: slug taken: %w", err)
	}
	return taken, nil
}

// AllSources returns every source of every owner, by id, for the engine
// to bring their triggers back at start.
func (r rules) AllSources(ctx context.Context) ([]model.Source, error) {
	out, err := allOf(ctx, r, kv.Sources, func(s model.Source) string { return s.ID })
	if err != nil {
		return nil, fmt.Errorf("store: all sources: %w", err)
	}
	return out, nil
}
