package jetstream

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Subscriptions, auto-subscriptions and webhooks on JetStream. What
// bbolt indexes in buckets of keys, JetStream indexes in records of id
// lists (jsIDs), read and rewritten with their revision checked.
var tblMeta = kv.Meta.Subject // "order" → the last creation order given

// jsIDs is a record holding a set of ids.
type jsIDs struct {
	IDs []string `json:"ids"`
}

// addID adds id to the set of record k.
func (tx *jsTx) addID(k, id string) error {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return err
	}
	if !slices.Contains(set.IDs, id) {
		set.IDs = append(set.IDs, id)
	}
	return tx.putJSON(k, set)
}

// removeID takes id out of the set of record k, deleting it once empty.
func (tx *jsTx) removeID(k, id string) error {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil {
		if errors.Is(err, kv.ErrNotFound) {
			return nil
		}
		return err
	}
	set.IDs = slices.DeleteFunc(set.IDs, func(s string) bool { return s == id })
	if len(set.IDs) == 0 {
		tx.del(k)
		return nil
	}
	return tx.putJSON(k, set)
}

// ids reads the set of record k (empty when none).
func (tx *jsTx) ids(k string) ([]string, error) {
	var set jsIDs
	if err := tx.getJSON(k, &set); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return nil, err
	}
	return set.IDs, nil
}

// nextOrder returns the next creation order, shared by sources,
// workflows and auto-subscriptions so that they can be compared.
func (s *Engine) nextOrder(tx *jsTx) (uint64, error) {
	var n uint64
	if err := tx.getJSON(s.key(tblMeta, "order"), &n); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return 0, fmt.Errorf("creation order: %w", err)
	}
	n++
	return n, tx.putJSON(s.key(tblMeta, "order"), n)
}
