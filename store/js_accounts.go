package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/fount-dev/fount/ids"
	"github.com/fount-dev/fount/model"
	"github.com/nats-io/nats.go/jetstream"
)

// DBGet returns the value of key in the db of sourceID; found is false
// (with a nil value and error) when it is absent.
func (s *JetStream) DBGet(ctx context.Context, sourceID, k string) (value []byte, found bool, err error) {
	if sourceID == "" || k == "" {
		return nil, false, nil
	}
	err = s.view(ctx, func(tx *jsTx) error {
		value, found, err = tx.get(s.key(tblDB, sourceID, k))
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("store: db get %q of %q: %w", k, sourceID, err)
	}
	return value, found, nil
}

// DBSet sets key to value (JSON text) in the db of sourceID. The store
// does not check that the source exists.
func (s *JetStream) DBSet(ctx context.Context, sourceID, k string, value []byte) error {
	if sourceID == "" || k == "" {
		return fmt.Errorf("store: db set %q of %q: %w", k, sourceID, errors.New("empty source id or key"))
	}
	err := s.update(ctx, func(tx *jsTx) error {
		tx.put(s.key(tblDB, sourceID, k), value)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: db set %q of %q: %w", k, sourceID, err)
	}
	return nil
}

// DBClear removes sourceID's whole db; a source without one is not an
// error. It is one purge of the db's subjects: no transaction holds a
// source's whole db, which may be larger than one batch.
func (s *JetStream) DBClear(ctx context.Context, sourceID string) error {
	if err := s.purge(ctx, s.key(tblDB, sourceID)+".>"); err != nil {
		return fmt.Errorf("store: clear the db of %q: %w", sourceID, err)
	}
	return nil
}

// purge removes every record whose subject matches filter.
func (s *JetStream) purge(ctx context.Context, filter string) error {
	return s.retry(ctx, func() error { return s.stream.Purge(ctx, jetstream.WithPurgeSubject(filter)) })
}

// GetUsage returns accountID's counters for day (YYYY-MM-DD, UTC); zero
// when nothing was counted.
func (s *JetStream) GetUsage(ctx context.Context, accountID, day string) (model.Usage, error) {
	var u model.Usage
	err := s.view(ctx, func(tx *jsTx) error {
		if err := tx.getJSON(s.key(tblUsage, accountID, day), &u); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return model.Usage{}, fmt.Errorf("store: get usage of %q on %s: %w", accountID, day, err)
	}
	return u, nil
}

// addUsage adds delta to accountID's counters for day, in tx: a
// read-modify-write that the revision check keeps exact.
func (s *JetStream) addUsage(tx *jsTx, accountID, day string, delta model.Usage) error {
	k := s.key(tblUsage, accountID, day)
	var u model.Usage
	if err := tx.getJSON(k, &u); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return tx.putJSON(k, u.Plus(delta))
}

// AddUsage adds invocations and computeMs to accountID's counters for
// day; an empty accountID counts nothing, as in a run commit.
func (s *JetStream) AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error {
	if accountID == "" {
		return nil
	}
	err := s.update(ctx, func(tx *jsTx) error {
		return s.addUsage(tx, accountID, day, model.Usage{Invocations: invocations, ComputeMs: computeMs})
	})
	if err != nil {
		return fmt.Errorf("store: add usage of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// AddNpmBytes adds bytes of npm tarballs downloaded to accountID's
// counters for day.
func (s *JetStream) AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error {
	if accountID == "" || bytes == 0 {
		return nil
	}
	err := s.update(ctx, func(tx *jsTx) error { return s.addUsage(tx, accountID, day, model.Usage{NpmBytes: bytes}) })
	if err != nil {
		return fmt.Errorf("store: add npm bytes of %q on %s: %w", accountID, day, err)
	}
	return nil
}

// TimerLastFire returns when sourceID's timer last fired (epoch ms), or 0
// when it never did.
func (s *JetStream) TimerLastFire(ctx context.Context, sourceID string) (int64, error) {
	var ms int64
	err := s.view(ctx, func(tx *jsTx) error {
		v, ok, err := tx.get(s.key(tblTimers, sourceID))
		if err != nil || !ok {
			return err
		}
		ms, err = strconv.ParseInt(string(v), 10, 64)
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
func (s *JetStream) SetTimerLastFire(ctx context.Context, sourceID string, ms int64) error {
	if sourceID == "" {
		return errors.New("store: set timer last fire: empty source id")
	}
	err := s.update(ctx, func(tx *jsTx) error {
		if ok, err := tx.has(s.key(tblSources, sourceID)); err != nil || !ok {
			return err // deleted while its timer fired: no state to keep
		}
		tx.put(s.key(tblTimers, sourceID), strconv.AppendInt(nil, ms, 10))
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: set timer last fire of %q: %w", sourceID, err)
	}
	return nil
}

// FireTimer implements Queues: the timer prop's record is read and
// rewritten with the invocation in one batch, so two nodes firing one tick
// enqueue it once.
func (s *JetStream) FireTimer(ctx context.Context, inv model.Invocation, prop string, dueMs int64) (bool, error) {
	if inv.SourceID == "" {
		return false, errors.New("store: fire timer: empty source id")
	}
	records := tblSources
	if ids.Is(inv.SourceID, ids.Workflow) { // a workflow's timer trigger
		records = tblWorkflows
	}
	fired := false
	err := s.update(ctx, func(tx *jsTx) error {
		fired = false
		if ok, err := tx.has(s.key(records, inv.SourceID)); err != nil || !ok {
			return err // deleted while its timer fired
		}
		last := func(k string) (int64, error) {
			v, ok, err := tx.get(k)
			if err != nil || !ok {
				return 0, err
			}
			ms, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("timer record %q: %w", v, err)
			}
			return ms, nil
		}
		propKey := s.key(tblTimers, inv.SourceID, prop)
		if ms, err := last(propKey); err != nil || ms >= dueMs {
			return err
		}
		if _, err := s.putInvocation(tx, s.now().UnixMilli(), inv); err != nil {
			return err
		}
		tx.put(propKey, strconv.AppendInt(nil, dueMs, 10))
		fired = true
		k := s.key(tblTimers, inv.SourceID)
		if ms, err := last(k); err != nil || ms >= dueMs {
			return err
		}
		tx.put(k, strconv.AppendInt(nil, dueMs, 10))
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: fire the timer of %q: %w", inv.SourceID, err)
	}
	return fired, nil
}

// GetDedupe returns the dedupe state last stored for sourceID, or the
// zero value when there is none.
func (s *JetStream) GetDedupe(ctx context.Context, sourceID string) (model.DedupeState, error) {
	var st model.DedupeState
	err := s.view(ctx, func(tx *jsTx) error {
		if err := tx.getJSON(s.key(tblDedupe, sourceID), &st); !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return model.DedupeState{}, fmt.Errorf("store: get dedupe of %q: %w", sourceID, err)
	}
	return st, nil
}
