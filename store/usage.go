package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/ids"
	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// GetDedupe returns the dedupe state CompleteRun last stored for
// sourceID, or the zero value when there is none.
func (b *Bolt) GetDedupe(ctx context.Context, sourceID string) (model.DedupeState, error) {
	var st model.DedupeState
	err := b.view(ctx, func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bucketDedupe), sourceID, &st); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return model.DedupeState{}, fmt.Errorf("store: get dedupe of %q: %w", sourceID, err)
	}
	return st, nil
}

// usageKey is the key of an account's counters for a day.
func usageKey(accountID, day string) string {
	return string(key(accountID, day))
}

// addUsage adds delta to accountID's counters for day.
func addUsage(tx *bolt.Tx, accountID, day string, delta model.Usage) error {
	bk := tx.Bucket(bucketUsage)
	k := usageKey(accountID, day)
	var u model.Usage
	if err := getJSON(bk, k, &u); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return putJSON(bk, k, u.Plus(delta))
}

// GetUsage returns accountID's counters for day (YYYY-MM-DD, UTC); zero
// when nothing was counted.
func (b *Bolt) GetUsage(ctx context.Context, accountID, day string) (model.Usage, error) {
	var u model.Usage
	err := b.view(ctx, func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bucketUsage), usageKey(accountID, day), &u); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return model.Usage{}, fmt.Errorf("store: get usage of %q on %s: %w", accountID, day, err)
	}
	return u, nil
}

// AddUsage adds invocations and computeMs to accountID's counters for
// day; an empty accountID counts nothing, as in a run commit.
func (b *Bolt) AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error {
	if accountID == "" {
		return nil
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		return addUsage(tx, accountID, day, model.Usage{Invocations: invocations, ComputeMs: computeMs})
	})
	if err != nil {
		return fmt.Errorf("store: add usage of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// AddNpmBytes adds bytes of npm tarballs downloaded to accountID's
// counters for day.
func (b *Bolt) AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error {
	if accountID == "" || bytes == 0 {
		return nil
	}
	err := b.update(ctx, func(tx *bolt.Tx) error { return addUsage(tx, accountID, day, model.Usage{NpmBytes: bytes}) })
	if err != nil {
		return fmt.Errorf("store: add npm bytes of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// TimerLastFire returns when sourceID's timer last fired (epoch ms), or 0
// when it never did.
func (b *Bolt) TimerLastFire(ctx context.Context, sourceID string) (int64, error) {
	var ms int64
	err := b.view(ctx, func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketTimers).Get([]byte(sourceID))
		switch {
		case v == nil:
		case len(v) != 8:
			return fmt.Errorf("corrupt timer record %x", v)
		default:
			ms = int64(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: timer last fire of %q: %w", sourceID, err)
	}
	return ms, nil
}

// SetTimerLastFire records that sourceID's timer fired at ms (epoch ms).
func (b *Bolt) SetTimerLastFire(ctx context.Context, sourceID string, ms int64) error {
	if sourceID == "" {
		return errors.New("store: set timer last fire: empty source id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		if !has(tx.Bucket(bucketSources), []byte(sourceID)) {
			return nil // deleted while its timer fired: no state to keep
		}
		return tx.Bucket(bucketTimers).Put([]byte(sourceID), be8(uint64(ms)))
	})
	if err != nil {
		return fmt.Errorf("store: set timer last fire of %q: %w", sourceID, err)
	}
	return nil
}

// FireTimer implements Queues. Each timer prop's last fire is kept under
// timerPropKey, beside its source's under the source's id.
func (b *Bolt) FireTimer(ctx context.Context, inv model.Invocation, prop string, dueMs int64) (bool, error) {
	if inv.SourceID == "" {
		return false, errors.New("store: fire timer: empty source id")
	}
	records := bucketSources
	if ids.Is(inv.SourceID, ids.Workflow) { // a workflow's timer trigger
		records = bucketWorkflows
	}
	fired := false
	err := b.update(ctx, func(tx *bolt.Tx) error {
		if !has(tx.Bucket(records), []byte(inv.SourceID)) {
			return nil // deleted while its timer fired
		}
		timers := tx.Bucket(bucketTimers)
		propKey := timerPropKey(inv.SourceID, prop)
		if v := timers.Get(propKey); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) >= dueMs {
			return nil
		}
		if _, err := enqueueInvocation(tx, b.now().UnixMilli(), inv); err != nil {
			return err
		}
		fired = true
		if err := timers.Put(propKey, be8(uint64(dueMs))); err != nil {
			return err
		}
		if v := timers.Get([]byte(inv.SourceID)); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) >= dueMs {
			return nil
		}
		return timers.Put([]byte(inv.SourceID), be8(uint64(dueMs)))
	})
	if err != nil {
		return false, fmt.Errorf("store: fire the timer of %q: %w", inv.SourceID, err)
	}
	return fired, nil
}

// timerPropKey is where the last fire of a source's timer prop is kept:
// the source's id, a 0 byte (which no id holds) and the prop's name.
func timerPropKey(sourceID, prop string) []byte {
	return []byte(sourceID + "\x00" + prop)
}

// deleteSourceQueues removes sourceID's queued invocations, dedupe state
// and timer state.
func deleteSourceQueues(tx *bolt.Tx, sourceID string) error {
	if err := deleteInvocationsOf(tx, sourceID); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDedupe).Delete([]byte(sourceID)); err != nil {
		return err
	}
	timers := tx.Bucket(bucketTimers)
	keys, _ := scanPrefix(timers, []byte(sourceID+"\x00")) // its props' last fires
	for _, k := range keys {
		if err := timers.Delete(k); err != nil {
			return err
		}
	}
	return timers.Delete([]byte(sourceID))
}
