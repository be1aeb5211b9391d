package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/model"
)

// executionKey is where an execution is stored: by workflow, in
// invocation order.
func executionKey(workflowID string, seq uint64) []byte {
	return append(key(workflowID), be8(seq)...)
}

// putExecution stores x and trims the workflow's executions to the newest
// keep (0: no trim). Trimming reads keys only.
func putExecution(tx *bolt.Tx, x *model.Execution, keep int) error {
	wf, seq, ok := parseExecutionID(x.ID)
	if !ok || wf != x.WorkflowID {
		return fmt.Errorf("execution id %q does not name workflow %q", x.ID, x.WorkflowID)
	}
	bk := tx.Bucket(bucketExecutions)
	if err := putJSONKey(bk, executionKey(wf, seq), x); err != nil {
		return fmt.Errorf("execution: %w", err)
	}
	if keep <= 0 {
		return nil
	}
	prefix := key(wf)
	n := countPrefix(bk, prefix)
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); n > keep && k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := bk.Delete(k); err != nil {
			return fmt.Errorf("trim executions: %w", err)
		}
		n--
	}
	return nil
}

// putJSONKey encodes v and stores it at k.
func putJSONKey(bk *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return bk.Put(k, data)
}

// deleteExecutionsOf removes every execution of a workflow.
func deleteExecutionsOf(tx *bolt.Tx, workflowID string) error {
	bk := tx.Bucket(bucketExecutions)
	keys, _ := scanPrefix(bk, key(workflowID))
	for _, k := range keys {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// GetExecution returns the execution with id, or ErrNotFound.
func (b *Bolt) GetExecution(ctx context.Context, id string) (model.Execution, error) {
	var x model.Execution
	err := b.view(ctx, func(tx *bolt.Tx) error {
		wf, seq, ok := parseExecutionID(id)
		if !ok {
			return ErrNotFound
		}
		data := tx.Bucket(bucketExecutions).Get(executionKey(wf, seq))
		if data == nil {
			return ErrNotFound
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
func (b *Bolt) ListExecutions(ctx context.Context, workflowID string, limit int) ([]model.Execution, error) {
	var out []model.Execution
	err := b.view(ctx, func(tx *bolt.Tx) error {
		prefix := key(workflowID)
		c := tx.Bucket(bucketExecutions).Cursor()
		// Past the workflow's last key, then back.
		var k, v []byte
		if k, _ = c.Seek(append(clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Prev() {
			var x model.Execution
			if err := json.Unmarshal(v, &x); err != nil {
				return fmt.Errorf("decode execution: %w", err)
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
