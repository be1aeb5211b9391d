package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/model"
)

var workflowIndex = orderIndex{list: "workflows", order: bucketWorkflowOrder, pos: bucketWorkflowPos}

// CreateWorkflow stores w with its Order assigned, indexed by owner and by
// name slug; when sub is not nil (a source trigger) it is stored too, in
// the same transaction.
//
// # Errors
//
// ErrConflict when w.ID exists or its slug is taken for the owner; a
// *LimitError when the owner has its limit of workflows. Nothing is
// stored then.
func (b *Bolt) CreateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	if w.ID == "" {
		return model.Workflow{}, errors.New("store: create workflow: empty id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		flows := tx.Bucket(bucketWorkflows)
		if has(flows, []byte(w.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if err := b.checkRoom(boltKV{tx}, CountWorkflows, w.OwnerID); err != nil {
			return err
		}
		if err := claimWorkflowSlug(tx, w.OwnerID, w.NameSlug, w.ID); err != nil {
			return err
		}
		if _, err := workflowIndex.add(tx, w.OwnerID, w.ID); err != nil {
			return err
		}
		order, err := nextOrder(tx)
		if err != nil {
			return err
		}
		w.Order = order
		if err := b.putTriggerSub(tx, &w, sub); err != nil {
			return err
		}
		return putJSON(flows, w.ID, w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: create workflow %q: %w", w.ID, err)
	}
	return w, nil
}

// putTriggerSub stores the subscription of a source trigger and records
// its id in w.
func (b *Bolt) putTriggerSub(tx *bolt.Tx, w *model.Workflow, sub *model.Subscription) error {
	if sub == nil {
		return nil
	}
	stored, err := b.putSubscription(boltKV{tx}, *sub)
	if err != nil {
		return fmt.Errorf("trigger subscription: %w", err)
	}
	w.Trigger.SubscriptionID = stored.ID
	return nil
}

// GetWorkflow returns the workflow with id, or ErrNotFound.
func (b *Bolt) GetWorkflow(ctx context.Context, id string) (model.Workflow, error) {
	var w model.Workflow
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketWorkflows), id, &w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: get workflow %q: %w", id, err)
	}
	return w, nil
}

// WorkflowBySlug returns the owner's workflow with the name slug, or
// ErrNotFound.
func (b *Bolt) WorkflowBySlug(ctx context.Context, ownerID, slug string) (model.Workflow, error) {
	var w model.Workflow
	err := b.view(ctx, func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketWorkflowSlugs).Get(key(ownerID, slug))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bucketWorkflows), string(id), &w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: workflow %q of %q: %w", slug, ownerID, err)
	}
	return w, nil
}

// UpdateWorkflow replaces the stored workflow w.ID with w (its Version
// one more than the stored one, its Order and owner unchanged), moving its
// slug when it changes. The trigger's subscription, if any, is replaced by
// sub in the same transaction.
//
// # Errors
//
// ErrNotFound for an unknown workflow; ErrConflict when the new slug is
// taken. Nothing changes then.
func (b *Bolt) UpdateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		flows := tx.Bucket(bucketWorkflows)
		var old model.Workflow
		if err := getJSON(flows, w.ID, &old); err != nil {
			return err
		}
		if old.OwnerID != w.OwnerID {
			return fmt.Errorf("owner cannot change from %q to %q", old.OwnerID, w.OwnerID)
		}
		w.Order, w.Version, w.CreatedAt = old.Order, old.Version+1, old.CreatedAt
		if old.NameSlug != w.NameSlug {
			if err := claimWorkflowSlug(tx, w.OwnerID, w.NameSlug, w.ID); err != nil {
				return err
			}
			if err := releaseWorkflowSlug(tx, old.OwnerID, old.NameSlug, w.ID); err != nil {
				return err
			}
		}
		if err := deleteTriggerSub(tx, old); err != nil {
			return err
		}
		w.Trigger.SubscriptionID = ""
		if err := b.putTriggerSub(tx, &w, sub); err != nil {
			return err
		}
		return putJSON(flows, w.ID, w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: update workflow %q: %w", w.ID, err)
	}
	return w, nil
}

// SetWorkflowActive switches a workflow on or off; ErrNotFound when it
// does not exist.
func (b *Bolt) SetWorkflowActive(ctx context.Context, id string, active bool, updatedAt int64) (model.Workflow, error) {
	var w model.Workflow
	err := b.update(ctx, func(tx *bolt.Tx) error {
		flows := tx.Bucket(bucketWorkflows)
		if err := getJSON(flows, id, &w); err != nil {
			return err
		}
		w.Active, w.UpdatedAt = active, updatedAt
		return putJSON(flows, id, w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: set workflow %q active: %w", id, err)
	}
	return w, nil
}

// deleteTriggerSub removes the subscription of w's source trigger, if it
// is still stored.
func deleteTriggerSub(tx *bolt.Tx, w model.Workflow) error {
	if w.Trigger.SubscriptionID == "" {
		return nil
	}
	err := deleteSubscriptionByID(boltKV{tx}, w.Trigger.SubscriptionID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("trigger subscription: %w", err)
	}
	return nil
}

// DeleteWorkflow removes the workflow, its index entries, its events, its
// executions, its db, its queued invocations and timer state, its
// deliveries, and
// every subscription naming it (as emitter or listener) plus the
// auto-subscriptions naming it as listener, in one transaction.
//
// # Errors
//
// ErrNotFound for an unknown workflow; nothing changes then.
func (b *Bolt) DeleteWorkflow(ctx context.Context, id string) error {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		flows := tx.Bucket(bucketWorkflows)
		var w model.Workflow
		if err := getJSON(flows, id, &w); err != nil {
			return err
		}
		if err := releaseWorkflowSlug(tx, w.OwnerID, w.NameSlug, id); err != nil {
			return err
		}
		if err := workflowIndex.remove(tx, id); err != nil {
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
		if err := deleteExecutionsOf(tx, id); err != nil {
			return err
		}
		if err := deleteNested(tx.Bucket(bucketDB), id); err != nil {
			return err
		}
		if err := deleteDeliveriesOf(tx, id); err != nil {
			return err
		}
		if err := deleteSourceQueues(tx, id); err != nil {
			return err
		}
		return flows.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("store: delete workflow %q: %w", id, err)
	}
	return nil
}

// ListWorkflows returns one page of ownerID's workflows in creation order.
func (b *Bolt) ListWorkflows(ctx context.Context, ownerID string, p Page) (PageOf[model.Workflow], error) {
	var pg PageOf[model.Workflow]
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ids, cursors, total, err := workflowIndex.page(tx, ownerID, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[model.Workflow](recordsOf(tx.Bucket(bucketWorkflows)), p, ids, cursors, total)
		return err
	})
	if err != nil {
		return PageOf[model.Workflow]{}, fmt.Errorf("store: list workflows of %q: %w", ownerID, err)
	}
	return pg, nil
}

// AllWorkflows returns every workflow of every owner.
func (b *Bolt) AllWorkflows(ctx context.Context) ([]model.Workflow, error) {
	var out []model.Workflow
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketWorkflows).ForEach(func(k, v []byte) error {
			var w model.Workflow
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("decode workflow %s: %w", k, err)
			}
			out = append(out, w)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: all workflows: %w", err)
	}
	return out, nil
}

// claimWorkflowSlug points (owner, slug) at id unless another workflow
// holds it. The empty slug is never indexed.
func claimWorkflowSlug(tx *bolt.Tx, owner, slug, id string) error {
	if slug == "" {
		return nil
	}
	slugs := tx.Bucket(bucketWorkflowSlugs)
	k := key(owner, slug)
	if cur := slugs.Get(k); cur != nil && string(cur) != id {
		return fmt.Errorf("name slug %q taken: %w", slug, ErrConflict)
	}
	return slugs.Put(k, []byte(id))
}

// releaseWorkflowSlug removes (owner, slug) if it points at id.
func releaseWorkflowSlug(tx *bolt.Tx, owner, slug, id string) error {
	slugs := tx.Bucket(bucketWorkflowSlugs)
	k := key(owner, slug)
	if cur := slugs.Get(k); slug == "" || cur == nil || string(cur) != id {
		return nil
	}
	return slugs.Delete(k)
}
