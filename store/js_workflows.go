package store

import (
	"context"

	"github.com/fount-dev/fount/model"

	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Workflows and their executions on JetStream.
const (
	tblWorkflows     = "wf"       // workflow id → Workflow
	tblWorkflowSlugs = "wf_slug"  // owner, slug → workflow id
	tblExecutions    = "exec"     // workflow id, invocation seq → Execution
	tblExecutionLogs = "exec_log" // workflow id → jsSeqs: the executions kept, oldest first
)

// jsSeqs is a record holding sequence numbers in increasing order.
type jsSeqs struct {
	Seqs []uint64 `json:"seqs"`
}

func (s *JetStream) executionKey(workflowID string, seq uint64) string {
	return s.key(tblExecutions, workflowID, strconv.FormatUint(seq, 10))
}

// putExecution stores x and trims the workflow's executions to the newest
// keep (0: no trim).
func (s *JetStream) putExecution(tx *jsTx, x *model.Execution, keep int) error {
	wf, seq, ok := parseExecutionID(x.ID)
	if !ok || wf != x.WorkflowID {
		return fmt.Errorf("execution id %q does not name workflow %q", x.ID, x.WorkflowID)
	}
	if err := tx.putJSON(s.executionKey(wf, seq), x); err != nil {
		return fmt.Errorf("execution: %w", err)
	}
	var log jsSeqs
	if err := tx.getJSON(s.key(tblExecutionLogs, wf), &log); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if i, found := slices.BinarySearch(log.Seqs, seq); !found {
		log.Seqs = slices.Insert(log.Seqs, i, seq)
	}
	for keep > 0 && len(log.Seqs) > keep {
		tx.del(s.executionKey(wf, log.Seqs[0]))
		log.Seqs = log.Seqs[1:]
	}
	return tx.putJSON(s.key(tblExecutionLogs, wf), log)
}

// GetExecution returns the execution with id, or ErrNotFound.
func (s *JetStream) GetExecution(ctx context.Context, id string) (model.Execution, error) {
	var x model.Execution
	err := s.view(ctx, func(tx *jsTx) error {
		wf, seq, ok := parseExecutionID(id)
		if !ok {
			return ErrNotFound
		}
		return tx.getJSON(s.executionKey(wf, seq), &x)
	})
	if err != nil {
		return model.Execution{}, fmt.Errorf("store: get execution %q: %w", id, err)
	}
	return x, nil
}

// ListExecutions returns up to limit of a workflow's kept executions,
// newest first.
func (s *JetStream) ListExecutions(ctx context.Context, workflowID string, limit int) ([]model.Execution, error) {
	var out []model.Execution
	err := s.view(ctx, func(tx *jsTx) error {
		var log jsSeqs
		if err := tx.getJSON(s.key(tblExecutionLogs, workflowID), &log); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		for _, seq := range slices.Backward(log.Seqs) {
			if len(out) >= limit {
				break
			}
			var x model.Execution
			if err := tx.getJSON(s.executionKey(workflowID, seq), &x); err != nil {
				return err
			}
			out = append(out, x)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list executions of %q: %w", workflowID, err)
	}
	return out, nil
}

// CreateWorkflow stores w with its trigger's subscription, as
// Bolt.CreateWorkflow does.
func (s *JetStream) CreateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	if w.ID == "" {
		return model.Workflow{}, errors.New("store: create workflow: empty id")
	}
	var out model.Workflow
	err := s.update(ctx, func(tx *jsTx) error {
		out = w
		if ok, err := tx.has(s.key(tblWorkflows, w.ID)); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if err := s.checkRoom(jsKV{tx}, CountWorkflows, w.OwnerID); err != nil {
			return err
		}
		if err := s.claimSlug(tx, tblWorkflowSlugs, w.OwnerID, w.NameSlug, w.ID); err != nil {
			return err
		}
		if _, err := tx.listAdd(workflowIndex, w.OwnerID, w.ID); err != nil {
			return err
		}
		order, err := s.nextOrder(tx)
		if err != nil {
			return err
		}
		out.Order = order
		if err := s.putTriggerSub(tx, &out, sub); err != nil {
			return err
		}
		return tx.putJSON(s.key(tblWorkflows, w.ID), out)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: create workflow %q: %w", w.ID, err)
	}
	return out, nil
}

func (s *JetStream) putTriggerSub(tx *jsTx, w *model.Workflow, sub *model.Subscription) error {
	if sub == nil {
		return nil
	}
	stored, err := s.putSubscription(jsKV{tx}, *sub)
	if err != nil {
		return fmt.Errorf("trigger subscription: %w", err)
	}
	w.Trigger.SubscriptionID = stored.ID
	return nil
}

// GetWorkflow returns the workflow with id, or ErrNotFound.
func (s *JetStream) GetWorkflow(ctx context.Context, id string) (model.Workflow, error) {
	var w model.Workflow
	err := s.view(ctx, func(tx *jsTx) error { return tx.getJSON(s.key(tblWorkflows, id), &w) })
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: get workflow %q: %w", id, err)
	}
	return w, nil
}

// WorkflowBySlug returns ownerID's workflow named slug, or ErrNotFound.
func (s *JetStream) WorkflowBySlug(ctx context.Context, ownerID, slug string) (model.Workflow, error) {
	var w model.Workflow
	err := s.view(ctx, func(tx *jsTx) error {
		id, ok, err := tx.get(s.key(tblWorkflowSlugs, ownerID, slug))
		if err != nil || !ok {
			return errors.Join(err, notFound(ok))
		}
		return tx.getJSON(s.key(tblWorkflows, string(id)), &w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: workflow %q of %q: %w", slug, ownerID, err)
	}
	return w, nil
}

// UpdateWorkflow replaces the workflow w.ID, as Bolt.UpdateWorkflow does.
func (s *JetStream) UpdateWorkflow(ctx context.Context, w model.Workflow, sub *model.Subscription) (model.Workflow, error) {
	var out model.Workflow
	err := s.update(ctx, func(tx *jsTx) error {
		out = w
		var old model.Workflow
		if err := tx.getJSON(s.key(tblWorkflows, w.ID), &old); err != nil {
			return err
		}
		if old.OwnerID != w.OwnerID {
			return fmt.Errorf("owner cannot change from %q to %q", old.OwnerID, w.OwnerID)
		}
		out.Order, out.Version, out.CreatedAt = old.Order, old.Version+1, old.CreatedAt
		if old.NameSlug != w.NameSlug {
			if err := s.claimSlug(tx, tblWorkflowSlugs, w.OwnerID, w.NameSlug, w.ID); err != nil {
				return err
			}
			if err := s.releaseSlug(tx, tblWorkflowSlugs, old.OwnerID, old.NameSlug, w.ID); err != nil {
				return err
			}
		}
		if old.Trigger.SubscriptionID != "" {
			err := deleteSubscriptionByID(jsKV{tx}, old.Trigger.SubscriptionID)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("trigger subscription: %w", err)
			}
		}
		out.Trigger.SubscriptionID = ""
		if err := s.putTriggerSub(tx, &out, sub); err != nil {
			return err
		}
		return tx.putJSON(s.key(tblWorkflows, w.ID), out)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: update workflow %q: %w", w.ID, err)
	}
	return out, nil
}

// SetWorkflowActive switches a workflow on or off, changing nothing else.
func (s *JetStream) SetWorkflowActive(ctx context.Context, id string, active bool, updatedAt int64) (model.Workflow, error) {
	var w model.Workflow
	err := s.update(ctx, func(tx *jsTx) error {
		w = model.Workflow{}
		if err := tx.getJSON(s.key(tblWorkflows, id), &w); err != nil {
			return err
		}
		w.Active, w.UpdatedAt = active, updatedAt
		return tx.putJSON(s.key(tblWorkflows, id), w)
	})
	if err != nil {
		return model.Workflow{}, fmt.Errorf("store: set workflow %q active: %w", id, err)
	}
	return w, nil
}

// DeleteWorkflow removes the workflow with its subscriptions, dedupe and
// timer state in one transaction; its events, executions, db, queued
// invocations and deliveries are purged once that committed.
func (s *JetStream) DeleteWorkflow(ctx context.Context, id string) error {
	err := s.update(ctx, func(tx *jsTx) error {
		var w model.Workflow
		if err := tx.getJSON(s.key(tblWorkflows, id), &w); err != nil {
			return err
		}
		if err := s.releaseSlug(tx, tblWorkflowSlugs, w.OwnerID, w.NameSlug, id); err != nil {
			return err
		}
		if err := tx.listRemove(workflowIndex, w.OwnerID, id); err != nil {
			return err
		}
		if err := s.forgetRunner(tx, id); err != nil {
			return err
		}
		tx.del(s.key(tblWorkflows, id))
		return nil
	})
	if err == nil {
		err = s.purgeWorkflowData(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("store: delete workflow %q: %w", id, err)
	}
	return nil
}

func (s *JetStream) purgeWorkflowData(ctx context.Context, id string) error {
	if err := s.purgeSourceData(ctx, id); err != nil {
		return err
	}
	if err := s.purge(ctx, s.key(tblExecutions, id)+".>"); err != nil {
		return err
	}
	if err := s.purge(ctx, s.key(tblExecutionLogs, id)); err != nil {
		return err
	}
	return s.deleteDeliveriesAfter(ctx, id)
}

// ListWorkflows returns one page of ownerID's workflows in creation order.
func (s *JetStream) ListWorkflows(ctx context.Context, ownerID string, p Page) (PageOf[model.Workflow], error) {
	pg, err := pageOfList[model.Workflow](ctx, s.rules, workflowIndex, workflowsTable, ownerID, p)
	if err != nil {
		return PageOf[model.Workflow]{}, fmt.Errorf("store: list workflows of %q: %w", ownerID, err)
	}
	return pg, nil
}

// AllWorkflows returns every workflow of every owner.
func (s *JetStream) AllWorkflows(ctx context.Context) ([]model.Workflow, error) {
	out, err := scanAll[model.Workflow](ctx, s, tblWorkflows)
	if err != nil {
		return nil, fmt.Errorf("store: all workflows: %w", err)
	}
	slices.SortFunc(out, func(a, b model.Workflow) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
