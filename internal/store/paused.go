package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// A paused execution's resume and cancel URLs name the execution and a
// secret. The record that keeps the execution is an event on its
// workflow's ChannelDelayed, found by its id; so that a URL, which anyone
// may send, costs one read however many executions wait, each is
// indexed by (workflow, execution) with its id and the hash of the URLs'
// secret: a commit that pauses an execution with URLs writes its entry
// (RunCommit.PauseSecretHash), one that resumes it removes it, and a
// deleted workflow takes its entries along. Workflows created before the
// index existed are indexed once, by the engine, from their records
// (IndexPausedURLs); an entry under the empty execution id marks a
// workflow whose entries are whole.

// PausedURL is the index entry of a paused execution's URLs.
type PausedURL struct {
	EventID    string `json:"event_id"`    // its record on ChannelDelayed
	SecretHash string `json:"secret_hash"` // of its URLs' secret
}

// indexedMark is the execution id of a workflow's mark of a whole index.
const indexedMark = ""

// PausedURL reads the entry of executionID of workflowID, one read:
// found, or not (and then, unless PausedURLsWhole says the workflow's
// index is whole, the execution may be paused all the same, from before
// the index).
func (r rules) PausedURL(ctx context.Context, workflowID, executionID string) (entry PausedURL, found bool, err error) {
	err = r.kv.View(ctx, func(tx kv.Tx) error {
		v, ok, err := tx.Value(kv.PausedURLs, workflowID, executionID)
		if err != nil || !ok {
			return err
		}
		found = true
		return json.Unmarshal(v, &entry)
	})
	if err != nil {
		return PausedURL{}, false, fmt.Errorf("store: paused execution %q: %w", executionID, err)
	}
	return entry, found, nil
}

// PausedURLsWhole reports whether the index holds every paused
// execution of workflowID: it was created with the index, or indexed
// since (IndexPausedURLs). It stays so until the workflow is deleted.
func (r rules) PausedURLsWhole(ctx context.Context, workflowID string) (bool, error) {
	var whole bool
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		_, whole, err = tx.Value(kv.PausedURLs, workflowID, indexedMark)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: paused executions of %q: %w", workflowID, err)
	}
	return whole, nil
}

// IndexPausedURLs writes the entries of a workflow's paused executions
// its index lacks, and marks its index whole. An entry written since
// (by a commit) is newer than what the caller read: it is kept.
func (r rules) IndexPausedURLs(ctx context.Context, workflowID string, entries map[string]PausedURL) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		for executionID, entry := range entries {
			if executionID == indexedMark {
				continue
			}
			_, ok, err := tx.Value(kv.PausedURLs, workflowID, executionID)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			if err := putPausedURL(tx, workflowID, executionID, entry); err != nil {
				return err
			}
		}
		return markPausedURLsWhole(tx, workflowID)
	})
	if err != nil {
		return fmt.Errorf("store: index the paused executions of %q: %w", workflowID, err)
	}
	return nil
}

func putPausedURL(tx kv.Tx, workflowID, executionID string, entry PausedURL) error {
	data, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	return tx.PutValue(kv.PausedURLs, data, workflowID, executionID)
}

func markPausedURLsWhole(tx kv.Tx, workflowID string) error {
	return tx.PutValue(kv.PausedURLs, []byte("1"), workflowID, indexedMark)
}

// indexPause writes the entry of the execution c pauses, once its
// record e is stored, when c pauses it with URLs.
func indexPause(tx kv.Tx, workflowID string, c RunCommit, e model.Event) error {
	if e.Name != model.ChannelDelayed || c.PauseSecretHash == "" || c.Execution == nil {
		return nil
	}
	return putPausedURL(tx, workflowID, c.Execution.ID, PausedURL{EventID: e.ID, SecretHash: c.PauseSecretHash})
}

// unindexResume removes the entry of the execution c resumes.
func unindexResume(tx kv.Tx, workflowID string, c RunCommit) error {
	if c.Resume == "" || c.Execution == nil {
		return nil
	}
	return tx.DeleteValue(kv.PausedURLs, workflowID, c.Execution.ID)
}
