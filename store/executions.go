package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fount-dev/fount/ids"
	"github.com/fount-dev/fount/model"
)

// executionPrefix starts every execution id.
const executionPrefix = "ex_"

// ExecutionID is the id of the execution of a workflow's invocation: the
// workflow's random part and the invocation's id, so that a retried
// invocation records the same execution and a lookup needs no index.
func ExecutionID(workflowID, invocationID string) string {
	return executionPrefix + strings.TrimPrefix(workflowID, string(ids.Workflow)) + "-" + invocationID
}

// parseExecutionID returns the workflow id and invocation sequence of an
// id made by ExecutionID, or false.
func parseExecutionID(id string) (workflowID string, seq uint64, ok bool) {
	rest, ok := strings.CutPrefix(id, executionPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, ok = parseSeqID(rest[i+1:])
	return string(ids.Workflow) + rest[:i], seq, ok
}

// GetExecution returns the execution with id, or ErrNotFound.
func (r rules) GetExecution(ctx context.Context, id string) (model.Execution, error) {
	var x model.Execution
	err := r.kv.View(ctx, func(tx Tx) error {
		wf, seq, ok := parseExecutionID(id)
		if !ok {
			return ErrNotFound
		}
		data, ok, err := tx.Execution(wf, seq)
		if err != nil || !ok {
			return errors.Join(err, notFound(ok))
		}
		return json.Unmarshal(data, &x)
	})
	if err != nil {
		return model.Execution{}, fmt.Errorf("store: get execution %q: %w", id, err)
	}
	return x, nil
}

// ListExecutions returns up to limit of a workflow's kept executions,
// newest first.
func (r rules) ListExecutions(ctx context.Context, workflowID string, limit int) ([]model.Execution, error) {
	var out []model.Execution
	err := r.kv.View(ctx, func(tx Tx) error {
		records, err := tx.NewestExecutions(workflowID, limit)
		if err != nil {
			return err
		}
		out = make([]model.Execution, len(records))
		for i, data := range records {
			if err := json.Unmarshal(data, &out[i]); err != nil {
				return fmt.Errorf("decode execution: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list executions of %q: %w", workflowID, err)
	}
	return out, nil
}
