package store

import (
	"context"

	"github.com/fount-dev/fount/model"

	"errors"
	"fmt"
	"slices"
	"strconv"
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

// purgeWorkflowData removes, once its delete has committed, what a
// workflow kept beyond its record.
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
