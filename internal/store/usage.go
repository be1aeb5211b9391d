package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// GetDedupe returns the dedupe state CompleteRun last stored for
// sourceID, or the zero value when there is none.
func (r rules) GetDedupe(ctx context.Context, sourceID string) (model.DedupeState, error) {
	var st model.DedupeState
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		if err := getRecord(tx, kv.Dedupe, sourceID, &st); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return model.DedupeState{}, fmt.Errorf("store: get dedupe of %q: %w", sourceID, err)
	}
	return st, nil
}

// putDedupe replaces the source's dedupe state with st, unless st is nil.
func putDedupe(tx kv.Tx, sourceID string, st *model.DedupeState) error {
	if st == nil {
		return nil
	}
	if err := putRecord(tx, kv.Dedupe, sourceID, st); err != nil {
		return fmt.Errorf("dedupe: %w", err)
	}
	return nil
}

// usageOf reads accountID's counters for day; zero when none.
func usageOf(tx kv.Tx, accountID, day string) (model.Usage, error) {
	var u model.Usage
	data, ok, err := tx.Value(kv.Usage, accountID, day)
	if err != nil || !ok {
		return u, err
	}
	if err := json.Unmarshal(data, &u); err != nil {
		return u, fmt.Errorf("decode the usage of %q on %s: %w", accountID, day, err)
	}
	return u, nil
}

// addUsage adds delta to accountID's counters for day: a
// read-modify-write that one writer at a time (bbolt) or the revision
// check (JetStream) keeps exact.
func addUsage(tx kv.Tx, accountID, day string, delta model.Usage) error {
	u, err := usageOf(tx, accountID, day)
	if err != nil {
		return err
	}
	data, err := json.Marshal(u.Plus(delta))
	if err != nil {
		return err
	}
	return tx.PutValue(kv.Usage, data, accountID, day)
}

// GetUsage returns accountID's counters for day (YYYY-MM-DD, UTC); zero
// when nothing was counted.
func (r rules) GetUsage(ctx context.Context, accountID, day string) (model.Usage, error) {
	var u model.Usage
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		u, err = usageOf(tx, accountID, day)
		return err
	})
	if err != nil {
		return model.Usage{}, fmt.Errorf("store: get usage of %q on %s: %w", accountID, day, err)
	}
	return u, nil
}

// AddUsage adds invocations and computeMs to accountID's counters for
// day; an empty accountID counts nothing, as in a run commit.
func (r rules) AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error {
	if accountID == "" {
		return nil
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		return addUsage(tx, accountID, day, model.Usage{Invocations: invocations, ComputeMs: computeMs})
	})
	if err != nil {
		return fmt.Errorf("store: add usage of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// AddNpmBytes adds bytes of npm tarballs downloaded to accountID's
// counters for day.
func (r rules) AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error {
	if accountID == "" || bytes == 0 {
		return nil
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error { return addUsage(tx, accountID, day, model.Usage{NpmBytes: bytes}) })
	if err != nil {
		return fmt.Errorf("store: add npm bytes of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// TimerLastFire returns when sourceID's timer last fired (epoch ms), or 0
// when it never did.
func (r rules) TimerLastFire(ctx context.Context, sourceID string) (int64, error) {
	var ms int64
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		ms, err = tx.LastFire(sourceID, "")
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: timer last fire of %q: %w", sourceID, err)
	}
	return ms, nil
}

// SetTimerLastFire records that sourceID's timer fired at ms (epoch ms).
// The source's record is read, so a delete racing it cannot leave its
// timer state behind.
func (r rules) SetTimerLastFire(ctx context.Context, sourceID string, ms int64) error {
	if sourceID == "" {
		return errors.New("store: set timer last fire: empty source id")
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if ok, err := hasRecord(tx, kv.Sources, sourceID); err != nil || !ok {
			return err // deleted while its timer fired: no state to keep
		}
		return tx.SetLastFire(sourceID, "", ms)
	})
	if err != nil {
		return fmt.Errorf("store: set timer last fire of %q: %w", sourceID, err)
	}
	return nil
}

// FireTimer implements Queues: the timer prop's last fire is read and
// rewritten with the invocation in one transaction, so two nodes firing
// one tick enqueue it once.
func (r rules) FireTimer(ctx context.Context, inv model.Invocation, prop string, dueMs int64) (bool, error) {
	if inv.TargetID == "" {
		return false, errors.New("store: fire timer: empty source id")
	}
	records := kv.Sources
	if inv.Target().IsWorkflow() { // a workflow's timer trigger
		records = kv.Workflows
	}
	fired := false
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		fired = false
		if ok, err := hasRecord(tx, records, inv.TargetID); err != nil || !ok {
			return err // deleted while its timer fired
		}
		if ms, err := tx.LastFire(inv.TargetID, prop); err != nil || ms >= dueMs {
			return err
		}
		if err := tx.Enqueue(r.now().UnixMilli(), inv); err != nil {
			return err
		}
		if err := tx.SetLastFire(inv.TargetID, prop, dueMs); err != nil {
			return err
		}
		fired = true
		if ms, err := tx.LastFire(inv.TargetID, ""); err != nil || ms >= dueMs {
			return err
		}
		return tx.SetLastFire(inv.TargetID, "", dueMs)
	})
	if err != nil {
		return false, fmt.Errorf("store: fire the timer of %q: %w", inv.TargetID, err)
	}
	return fired, nil
}
