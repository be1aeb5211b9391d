package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// The store's rules (limits, cascades, lookups by tuple, pages) are
// written once, in methods of rules, against kv.Tx: what every engine's
// transaction offers. An engine lays each shape out its own way: bbolt in
// buckets whose index keys are scanned by prefix, JetStream in subjects
// whose sets and lists are records rewritten with their revision checked
// (docs/nats.md). Both layouts are the ones stored before the rules were
// shared, so no data moves.

// rules are the store's rules written once; Bolt and JetStream embed
// them, so their methods are both engines'.
type rules struct {
	kv     kv.Engine
	limits Limits           // set once at open, read-only after
	now    func() time.Time // the clock of event ids and queue times; tests replace it
	// statsKept is how long per-minute statistics are kept (stats.go);
	// 0 counts none.
	statsKept time.Duration
}

// getRecord decodes the record id of t into v, or returns ErrNotFound.
func getRecord(tx kv.Tx, t kv.Table, id string, v any) error {
	data, ok, err := tx.Record(t, id)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s %q: %w", t.Subject, id, err)
	}
	return nil
}

// putRecord encodes v as the record id of t.
func putRecord(tx kv.Tx, t kv.Table, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", t.Subject, id, err)
	}
	return tx.PutRecord(t, id, data)
}

// lookup returns the id filed under parts in t.
func lookup(tx kv.Tx, t kv.Table, parts ...string) (string, bool, error) {
	id, ok, err := tx.Value(t, parts...)
	return string(id), ok, err
}

// hasRecord reports whether t holds id.
func hasRecord(tx kv.Tx, t kv.Table, id string) (bool, error) {
	_, ok, err := tx.Record(t, id)
	return ok, err
}

// createRecord stores v as the new record id of t, filed last in
// owner's list ix, unless id is taken or owner holds its limit of kind.
func (r rules) createRecord(tx kv.Tx, t kv.Table, ix kv.List, kind Counted, owner, id string, v any) error {
	if ok, err := hasRecord(tx, t, id); err != nil || ok {
		return errors.Join(err, idTaken(ok))
	}
	if err := r.checkRoom(tx, kind, owner); err != nil {
		return err
	}
	if _, err := tx.ListAdd(ix, owner, id); err != nil {
		return err
	}
	return putRecord(tx, t, id, v)
}

// listAllOf returns every record of owner's list ix, from t.
func listAllOf[T any](ctx context.Context, r rules, ix kv.List, t kv.Table, owner string) ([]T, error) {
	out := []T{}
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		ids, err := tx.ListIDs(ix, owner)
		if err != nil {
			return err
		}
		for _, id := range ids {
			var v T
			if err := getRecord(tx, t, id, &v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// allOf returns every record of t, ordered by id.
func allOf[T any](ctx context.Context, r rules, t kv.Table, id func(T) string) ([]T, error) {
	var out []T
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		records, err := tx.Records(t)
		if err != nil {
			return err
		}
		out = make([]T, len(records))
		for i, data := range records {
			if err := json.Unmarshal(data, &out[i]); err != nil {
				return fmt.Errorf("decode a record of %s: %w", t.Subject, err)
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(id(a), id(b)) })
	return out, err
}

// pageOfList returns one page of owner's list ix, records from t.
func pageOfList[T any](ctx context.Context, r rules, ix kv.List, t kv.Table, owner string, p Page) (PageOf[T], error) {
	var pg PageOf[T]
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		ids, cursors, total, err := tx.ListPage(ix, owner, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[T](func(id string) ([]byte, error) {
			data, ok, err := tx.Record(t, id)
			if err == nil && !ok {
				err = fmt.Errorf("record %q of %s: %w", id, t.Subject, ErrNotFound)
			}
			return data, err
		}, p, ids, cursors, total)
		return err
	})
	return pg, err
}

// editRecord reads record id of table t, changes it with edit and writes
// it back, in one transaction, and returns it as written; what names the
// change in the error (ErrNotFound, wrapped, when there is no record).
func editRecord[T any](ctx context.Context, r rules, t kv.Table, id, what string, edit func(*T) error) (T, error) {
	var v T
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var fresh T // a transaction run again starts from the record again
		v = fresh
		if err := getRecord(tx, t, id, &v); err != nil {
			return err
		}
		if err := edit(&v); err != nil {
			return err
		}
		return putRecord(tx, t, id, v)
	})
	if err != nil {
		var zero T
		return zero, fmt.Errorf("store: %s: %w", what, err)
	}
	return v, nil
}
