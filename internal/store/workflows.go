package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateWorkflow stores w with its Order assigned, indexed by owner and by
// name slug; when sub is not nil (a source trigger) it is stored too, in
// the same transaction.
//
// # Errors
//
// ErrConflict when w.ID exists or its slug is taken for the owner; a
// *LimitError when the owner has its limit of workflows. Nothing is
// stored then.
func (r rules) CreateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	if w.ID == "" {
		return model.Workflow{}, errors.New("store: create workflow: empty id")
	}
	var out model.Workflow
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = w
		if ok, err := hasRecord(tx, kv.Workflows, w.ID); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := r.checkRoom(tx, model.CountWorkflows, w.OwnerID); err != nil {
			return err
		}
		if err := claimSlug(tx, kv.WorkflowSlugs, w.OwnerID, w.NameSlug, w.ID); err != nil {
			return err
		}
		if _, err := tx.ListAdd(kv.WorkflowList, w.OwnerID, w.ID); err != nil {
			return err
		}
		order, err := tx.NextOrder()
		if err != nil {
			return err
		}
		out.Order = order
		if err := r.putTriggerSub(tx, &out, sub); err != nil {
			return err
		}
		return putRecord(tx, kv.Workflows, w.ID, out)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: create workflow %q: %w", w.ID, err)
	}
	return out, nil
}

// putTriggerSub stores the subscription of a source trigger and records
// its id in w.
func (r rules) putTriggerSub(tx kv.Tx, w *model.Workflow, sub *model.Subscription) error {
	if sub == nil {
		return nil
	}
	stored, err := r.putSubscription(tx, *sub)
	if err != nil {
		return fmt.Errorf("trigger subscription: %w", err)
	}
	w.Trigger.SubscriptionID = stored.ID
	return nil
}

// GetWorkflow returns the workflow with id, or ErrNotFound.
func (r rules) GetWorkflow(ctx context.Context, id string) (model.Workflow, error) {
	var w model.Workflow
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Workflows, id, &w) })
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: get workflow %q: %w", id, err)
	}
	return w, nil
}

// WorkflowBySlug returns the owner's workflow with the name slug, or
// ErrNotFound.
func (r rules) WorkflowBySlug(ctx context.Context, ownerID, slug string) (model.Workflow, error) {
	var w model.Workflow
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		id, ok, err := lookup(tx, kv.WorkflowSlugs, ownerID, slug)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return getRecord(tx, kv.Workflows, id, &w)
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
func (r rules) UpdateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	var out model.Workflow
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = w
		var old model.Workflow
		if err := getRecord(tx, kv.Workflows, w.ID, &old); err != nil {
			return err
		}
		if old.OwnerID != w.OwnerID {
			return fmt.Errorf("owner cannot change from %q to %q", old.OwnerID, w.OwnerID)
		}
		out.Order, out.Version, out.CreatedAt = old.Order, old.Version+1, old.CreatedAt
		if err := moveSlug(tx, kv.WorkflowSlugs, w.OwnerID, old.NameSlug, w.NameSlug, w.ID); err != nil {
			return err
		}
		if err := deleteTriggerSub(tx, old); err != nil {
			return err
		}
		out.Trigger.SubscriptionID = ""
		if err := r.putTriggerSub(tx, &out, sub); err != nil {
			return err
		}
		return putRecord(tx, kv.Workflows, w.ID, out)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: update workflow %q: %w", w.ID, err)
	}
	return out, nil
}

// SetWorkflowActive switches a workflow on or off; ErrNotFound when it
// does not exist.
func (r rules) SetWorkflowActive(ctx context.Context, id string, active bool, updatedAt int64) (model.Workflow, error) {
	return editRecord(ctx, r, kv.Workflows, id, fmt.Sprintf("set workflow %q active", id), func(w *model.Workflow) error {
		w.Active, w.UpdatedAt = active, updatedAt
		return nil
	})
}

// SetWorkflowControls replaces a workflow's execution controls, changing
// nothing else but UpdatedAt; ErrNotFound when it does not exist.
func (r rules) SetWorkflowControls(ctx context.Context, id string, c model.Controls, updatedAt int64) (model.Workflow, error) {
	return editRecord(ctx, r, kv.Workflows, id, fmt.Sprintf("set workflow %q controls", id), func(w *model.Workflow) error {
		w.Controls, w.UpdatedAt = c, updatedAt
		return nil
	})
}

// SetWorkflowStep replaces the step named step.Name of workflow id,
// keeping its trigger, its subscription and its other steps; its version
// goes up, as an update's does, since what the step runs with changed.
// ErrNotFound when the workflow or a step of that name does not exist.
func (r rules) SetWorkflowStep(ctx context.Context, id string, step model.WorkflowStep, updatedAt int64) (model.Workflow, error) {
	return editRecord(ctx, r, kv.Workflows, id, fmt.Sprintf("set step of workflow %q", id), func(w *model.Workflow) error {
		i := slices.IndexFunc(w.Steps, func(s model.WorkflowStep) bool { return s.Name == step.Name })
		if i < 0 {
			return fmt.Errorf("step %q: %w", step.Name, ErrNotFound)
		}
		w.Steps = slices.Clone(w.Steps)
		w.Steps[i] = step
		w.Version, w.UpdatedAt = w.Version+1, updatedAt
		return nil
	})
}

// SetSourceControls replaces a source's controls, changing nothing else
// but UpdatedAt; ErrNotFound when it does not exist.
func (r rules) SetSourceControls(ctx context.Context, id string, c model.Controls, updatedAt int64) (model.Source, error) {
	return editRecord(ctx, r, kv.Sources, id, fmt.Sprintf("set source %q controls", id), func(src *model.Source) error {
		src.Controls, src.UpdatedAt = c, updatedAt
		return nil
	})
}

// deleteTriggerSub removes the subscription of w's source trigger, if it
// is still stored.
func deleteTriggerSub(tx kv.Tx, w model.Workflow) error {
	if w.Trigger.SubscriptionID == "" {
		return nil
	}
	err := deleteSubscriptionByID(tx, w.Trigger.SubscriptionID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("trigger subscription: %w", err)
	}
	return nil
}

// DeleteWorkflow removes the workflow, its index entries, every
// subscription naming it (as emitter or listener) plus the
// auto-subscriptions naming it as listener, and what it keeps beyond its
// record (events, executions, db, queued invocations, timer and dedupe
// state, deliveries: see kv.Tx.DeleteRunnerData).
//
// # Errors
//
// ErrNotFound for an unknown workflow; nothing changes then.
func (r rules) DeleteWorkflow(ctx context.Context, id string) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var w model.Workflow
		if err := getRecord(tx, kv.Workflows, id, &w); err != nil {
			return err
		}
		if err := releaseSlug(tx, kv.WorkflowSlugs, w.OwnerID, w.NameSlug, id); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.WorkflowList, w.OwnerID, id); err != nil {
			return err
		}
		if err := deleteListenerSubs(tx, id); err != nil {
			return err
		}
		if err := tx.DeleteRunnerData(id, true); err != nil {
			return err
		}
		if err := deletePausedOf(tx, id); err != nil {
			return err
		}
		if err := deleteStats(tx, id); err != nil {
			return err
		}
		return tx.DeleteRecord(kv.Workflows, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete workflow %q: %w", id, err)
	}
	return nil
}

// ListWorkflows returns one page of ownerID's workflows in creation order.
func (r rules) ListWorkflows(ctx context.Context, ownerID string, p Page) (PageOf[model.Workflow], error) {
	pg, err := pageOfList[model.Workflow](ctx, r, kv.WorkflowList, kv.Workflows, ownerID, p)
	if err != nil {
		return PageOf[model.Workflow]{}, fmt.Errorf("store: list workflows of %q: %w", ownerID, err)
	}
	return pg, nil
}

// AllWorkflows returns every workflow of every owner, by id.
func (r rules) AllWorkflows(ctx context.Context) ([]model.Workflow, error) {
	out, err := allOf(ctx, r, kv.Workflows, func(w model.Workflow) string { return w.ID })
	if err != nil {
		return nil, fmt.Errorf("store: all workflows: %w", err)
	}
	return out, nil
}
