package jetstream

import (
	"context"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"

	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Workflows and their executions on JetStream.
const (
	tblExecutions    = "exec"     // workflow id, invocation seq → Execution
	tblExecutionLogs = "exec_log" // workflow id → jsSeqs: the executions kept, oldest first
)

// jsSeqs is a record holding sequence numbers in increasing order.
type jsSeqs struct {
	Seqs []uint64 `json:"seqs"`
}

func (s *Engine) executionKey(workflowID string, seq uint64) string {
	return s.key(tblExecutions, workflowID, strconv.FormatUint(seq, 10))
}

// putExecution stores x and trims the workflow's executions to the newest
// keep (0: no trim).
func (s *Engine) putExecution(tx *jsTx, x *model.Execution, keep int) error {
	wf, seq, ok := kv.ParseExecutionID(x.ID)
	if !ok || wf != x.WorkflowID {
		return fmt.Errorf("execution id %q does not name workflow %q", x.ID, x.WorkflowID)
	}
	if err := tx.putJSON(s.executionKey(wf, seq), x); err != nil {
		return fmt.Errorf("execution: %w", err)
	}
	var log jsSeqs
	if err := tx.getJSON(s.key(tblExecutionLogs, wf), &log); err != nil && !errors.Is(err, kv.ErrNotFound) {
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

func (k jsKV) Execution(workflowID string, seq uint64) ([]byte, bool, error) {
	data, ok, err := k.tx.get(k.tx.s.executionKey(workflowID, seq))
	return kv.Clone(data), ok, err
}

// NewestExecutions reads the workflow's log of executions, then the
// newest of them.
func (k jsKV) NewestExecutions(workflowID string, limit int) ([][]byte, error) {
	var log jsSeqs
	if err := k.tx.getJSON(k.tx.s.key(tblExecutionLogs, workflowID), &log); err != nil {
		if errors.Is(err, kv.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	var out [][]byte
	for _, seq := range slices.Backward(log.Seqs) {
		if len(out) >= limit {
			break
		}
		data, ok, err := k.Execution(workflowID, seq)
		if err != nil || !ok {
			return nil, errors.Join(err, fmt.Errorf("execution %d: %w", seq, kv.NotFound(ok)))
		}
		out = append(out, data)
	}
	return out, nil
}

// purgeWorkflowData removes, once its delete has committed, what a
// workflow kept beyond its record.
func (s *Engine) purgeWorkflowData(ctx context.Context, id string) error {
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
