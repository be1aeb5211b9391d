package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// GetExecution returns the execution with id, or ErrNotFound.
func (r rules) GetExecution(ctx context.Context, id string) (model.Execution, error) {
	var x model.Execution
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		wf, seq, ok := kv.ParseExecutionID(id)
		if !ok {
			return ErrNotFound
		}
		data, ok, err := tx.Execution(wf, seq)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
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
	err := r.kv.View(ctx, func(tx kv.Tx) error {
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
