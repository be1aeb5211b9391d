package store

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Before the paused table (bbolt schema version 8), a paused execution
// was an event on its workflow's ChannelDelayed, in the form the engine
// wrote then (oldPausedRecord), with an entry in kv.PausedURLs for its
// URLs. movePaused moves them into the table once, when the store opens:
// each batch, in one transaction, releases the events from $in and
// stores what they held, so that a move cut short resumes where it
// stopped and moves nothing twice. A mark in kv.Meta says when all is
// moved; nodes sharing a NATS store may each start the move, and the
// transactions' revision checks let one event move once.

// pausedMovedMark is the kv.Meta value that says the move is done.
const pausedMovedMark = "paused_moved"

// movePausedBatch is how many events one transaction of the move holds.
const movePausedBatch = 100

// oldPausedRecord is the form of a paused execution's event on $in that
// the engine wrote before the paused table: its due time, and its state
// (the engine's), from which the move reads the execution's id and its
// URLs' hash.
type oldPausedRecord struct {
	DueMs  int64           `json:"due_ms"`
	Paused json.RawMessage `json:"paused"`
}

type oldPausedState struct {
	SecretHash string `json:"secret_hash"`
	Execution  *struct {
		ID string `json:"id"`
	} `json:"execution"`
}

// pagedEvents reads a channel's events a page at a time.
type pagedEvents interface {
	PageEvents(ctx context.Context, emitterID, channel string, p EventPage) ([]model.Event, error)
}

// movePaused moves every workflow's paused executions off its $in, once.
func (r rules) movePaused(ctx context.Context, events pagedEvents, log *slog.Logger) error {
	var moved bool
	if err := r.kv.View(ctx, func(tx kv.Tx) error {
		_, ok, err := tx.Value(kv.Meta, pausedMovedMark)
		moved = ok
		return err
	}); err != nil || moved {
		return err
	}
	flows, err := r.AllWorkflows(ctx)
	if err != nil {
		return fmt.Errorf("store: move paused executions: %w", err)
	}
	for _, wf := range flows {
		n, err := r.movePausedOf(ctx, wf.ID, events, log)
		if err != nil {
			return fmt.Errorf("store: move the paused executions of %s: %w", wf.ID, err)
		}
		if n > 0 {
			log.Info("moved a workflow's paused executions into their table", "workflow", wf.ID, "paused", n)
		}
	}
	return r.kv.Update(ctx, func(tx kv.Tx) error {
		return tx.PutValue(kv.Meta, []byte("1"), pausedMovedMark)
	})
}

// movePausedOf moves one workflow's paused executions, and returns how
// many. An event that does not read as one stays on $in, logged.
func (r rules) movePausedOf(ctx context.Context, workflowID string, events pagedEvents, log *slog.Logger) (int, error) {
	moved := 0
	for after := ""; ; {
		page, err := events.PageEvents(ctx, workflowID, model.ChannelDelayed, EventPage{After: after, Limit: movePausedBatch})
		if err != nil || len(page) == 0 {
			return moved, err
		}
		after = page[len(page)-1].ID
		n := 0
		err = r.kv.Update(ctx, func(tx kv.Tx) error {
			n = 0                                                                     // the transaction may run again
			a, err := tx.AppendEvents(r.now().UnixMilli(), workflowID, math.MaxInt32) // trims nothing
			if err != nil {
				return err
			}
			for _, ev := range page {
				p, ok := OldPaused(ev.Data)
				if !ok {
					log.Warn("an event on a workflow's $in does not read as a paused execution; it stays there", "workflow", workflowID, "event", ev.ID)
					continue
				}
				if released, err := a.Release(ev.ID); err != nil || !released {
					if err != nil {
						return err
					}
					continue // moved by another node meanwhile
				}
				if err := putPaused(tx, workflowID, p); err != nil {
					return err
				}
				n++
			}
			if err := a.Close(); err != nil {
				return err
			}
			return tx.DeleteValuesUnder(kv.PausedURLs, workflowID)
		})
		if err != nil {
			return moved, err
		}
		moved += n
	}
}

// OldPaused reads a paused execution in the form engines kept on $in
// before the paused table (oldPausedRecord): what the move stores, and
// what the engine reads a resume queued before the upgrade by.
func OldPaused(data []byte) (*PausedExecution, bool) {
	var rec oldPausedRecord
	var state oldPausedState
	if json.Unmarshal(data, &rec) != nil || len(rec.Paused) == 0 || json.Unmarshal(rec.Paused, &state) != nil ||
		state.Execution == nil || state.Execution.ID == "" {
		return nil, false
	}
	return &PausedExecution{ExecutionID: state.Execution.ID, PausedEntry: PausedEntry{DueMs: rec.DueMs, SecretHash: state.SecretHash},
		State: rec.Paused}, true
}
