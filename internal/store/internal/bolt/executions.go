package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// executionKey is where an execution is stored: by workflow, in
// invocation order.
func executionKey(workflowID string, seq uint64) []byte {
	return append(kv.Key(workflowID), kv.BE8(seq)...)
}

// putExecution stores x and trims the workflow's executions to the newest
// keep (0: no trim). Trimming reads keys only.
func putExecution(tx *bbolt.Tx, x *model.Execution, keep int) error {
	wf, seq, ok := kv.ParseExecutionID(x.ID)
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
	prefix := kv.Key(wf)
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
func putJSONKey(bk *bbolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return bk.Put(k, data)
}

// deleteExecutionsOf removes every execution of a workflow.
func deleteExecutionsOf(tx *bbolt.Tx, workflowID string) error {
	bk := tx.Bucket(bucketExecutions)
	keys, _ := scanPrefix(bk, kv.Key(workflowID))
	for _, k := range keys {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (k boltKV) Execution(workflowID string, seq uint64) ([]byte, bool, error) {
	data := k.tx.Bucket(bucketExecutions).Get(executionKey(workflowID, seq))
	return kv.Clone(data), data != nil, nil
}

// NewestExecutions reads back from past the workflow's last key.
func (k boltKV) NewestExecutions(workflowID string, limit int) ([][]byte, error) {
	var out [][]byte
	prefix := kv.Key(workflowID)
	c := k.tx.Bucket(bucketExecutions).Cursor()
	var kk, v []byte
	if kk, _ = c.Seek(append(kv.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)); kk == nil {
		kk, v = c.Last()
	} else {
		kk, v = c.Prev()
	}
	for ; kk != nil && bytes.HasPrefix(kk, prefix) && len(out) < limit; kk, v = c.Prev() {
		out = append(out, kv.Clone(v))
	}
	return out, nil
}
