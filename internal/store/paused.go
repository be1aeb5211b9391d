package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// A workflow's paused executions are kept in a table of their own, by
// (workflow, execution): a commit that pauses one stores it
// (RunCommit.Pause), one that goes on with it removes it
// (RunCommit.Resume), and a deleted workflow takes them along. Beside
// the state, which may be large (the steps' values so far), each has a
// small index entry with its due time and the hash of its URLs' secret,
// so that a resume or cancel URL, which anyone may send, costs one small
// read however many executions wait; and a count per workflow, which
// bounds them (RunCommit.MaxPaused) without reading them all.

// PausedExecution is a paused execution as a commit stores it.
type PausedExecution struct {
	ExecutionID string
	PausedEntry
	// State is what the engine needs to go on with it, opaque to the
	// store.
	State json.RawMessage
}

// PausedEntry is the index entry of a paused execution.
type PausedEntry struct {
	DueMs      int64  `json:"due_ms"`                // when it goes on by itself (or, a suspend, is cancelled)
	SecretHash string `json:"secret_hash,omitempty"` // of its URLs' secret; none for a retry's pause
}

// PausedEntry reads the index entry of executionID of workflowID, one
// small read.
func (r rules) PausedEntry(ctx context.Context, workflowID, executionID string) (entry PausedEntry, found bool, err error) {
	err = r.kv.View(ctx, func(tx kv.Tx) error {
		entry, found, err = pausedEntry(tx, workflowID, executionID)
		return err
	})
	if err != nil {
		return PausedEntry{}, false, fmt.Errorf("store: paused execution %q: %w", executionID, err)
	}
	return entry, found, nil
}

func pausedEntry(tx kv.Tx, workflowID, executionID string) (PausedEntry, bool, error) {
	v, ok, err := tx.Value(kv.PausedIndex, workflowID, executionID)
	if err != nil || !ok {
		return PausedEntry{}, false, err
	}
	var entry PausedEntry
	return entry, true, json.Unmarshal(v, &entry)
}

// PausedState reads the state of executionID of workflowID;
// model.ErrNotFound when it is not paused (it went on, or was never).
func (r rules) PausedState(ctx context.Context, workflowID, executionID string) (json.RawMessage, error) {
	var state []byte
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		v, ok, err := tx.Value(kv.Paused, workflowID, executionID)
		if err == nil && !ok {
			err = model.ErrNotFound
		}
		state = v
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: paused execution %q: %w", executionID, err)
	}
	return state, nil
}

// PausedEntries returns the index entries of a workflow's paused
// executions, by execution id.
func (r rules) PausedEntries(ctx context.Context, workflowID string) (map[string]PausedEntry, error) {
	out := map[string]PausedEntry{}
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		values, err := tx.ValuesUnder(kv.PausedIndex, workflowID)
		if err != nil {
			return err
		}
		for id, v := range values {
			var entry PausedEntry
			if err := json.Unmarshal(v, &entry); err != nil {
				return fmt.Errorf("paused execution %q: %w", id, err)
			}
			out[id] = entry
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: paused executions of %q: %w", workflowID, err)
	}
	return out, nil
}

// CountPaused returns how many executions a workflow holds paused.
func (r rules) CountPaused(ctx context.Context, workflowID string) (int, error) {
	var n int
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		n, err = pausedCount(tx, workflowID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: count the paused executions of %q: %w", workflowID, err)
	}
	return n, nil
}

func pausedCount(tx kv.Tx, workflowID string) (int, error) {
	v, ok, err := tx.Value(kv.PausedCounts, workflowID)
	if err != nil || !ok {
		return 0, err
	}
	return strconv.Atoi(string(v))
}

func setPausedCount(tx kv.Tx, workflowID string, n int) error {
	if n <= 0 {
		return tx.DeleteValue(kv.PausedCounts, workflowID)
	}
	return tx.PutValue(kv.PausedCounts, []byte(strconv.Itoa(n)), workflowID)
}

// putPaused stores p as a paused execution of workflowID. One already
// paused under its id is replaced (not counted twice).
func putPaused(tx kv.Tx, workflowID string, p *PausedExecution) error {
	entry, err := json.Marshal(p.PausedEntry)
	if err != nil {
		return err
	}
	_, held, err := tx.Value(kv.PausedIndex, workflowID, p.ExecutionID)
	if err != nil {
		return err
	}
	if err := tx.PutValue(kv.Paused, p.State, workflowID, p.ExecutionID); err != nil {
		return err
	}
	if err := tx.PutValue(kv.PausedIndex, entry, workflowID, p.ExecutionID); err != nil {
		return err
	}
	if held {
		return nil
	}
	n, err := pausedCount(tx, workflowID)
	if err != nil {
		return err
	}
	return setPausedCount(tx, workflowID, n+1)
}

// removePaused removes the paused execution executionID of workflowID;
// false when it is not there (it went on already).
func removePaused(tx kv.Tx, workflowID, executionID string) (bool, error) {
	_, held, err := tx.Value(kv.PausedIndex, workflowID, executionID)
	if err != nil || !held {
		return false, err
	}
	if err := tx.DeleteValue(kv.Paused, workflowID, executionID); err != nil {
		return false, err
	}
	if err := tx.DeleteValue(kv.PausedIndex, workflowID, executionID); err != nil {
		return false, err
	}
	n, err := pausedCount(tx, workflowID)
	if err != nil {
		return false, err
	}
	return true, setPausedCount(tx, workflowID, n-1)
}

// deletePausedOf removes every paused execution of a deleted workflow.
func deletePausedOf(tx kv.Tx, workflowID string) error {
	for _, t := range []kv.Table{kv.Paused, kv.PausedIndex, kv.PausedURLs} {
		if err := tx.DeleteValuesUnder(t, workflowID); err != nil {
			return err
		}
	}
	return tx.DeleteValue(kv.PausedCounts, workflowID)
}
