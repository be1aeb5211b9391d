package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// DBGet returns the value of key in the db of sourceID; found is false
// (with a nil value and error) when it is absent.
func (s *Engine) DBGet(ctx context.Context, sourceID, k string) (value []byte, found bool, err error) {
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
func (s *Engine) DBSet(ctx context.Context, sourceID, k string, value []byte) error {
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
func (s *Engine) DBClear(ctx context.Context, sourceID string) error {
	if err := s.purge(ctx, s.key(tblDB, sourceID)+".>"); err != nil {
		return fmt.Errorf("store: clear the db of %q: %w", sourceID, err)
	}
	return nil
}

// purge removes every record whose subject matches filter.
func (s *Engine) purge(ctx context.Context, filter string) error {
	return s.retry(ctx, func() error { return s.stream.Purge(ctx, jetstream.WithPurgeSubject(filter)) })
}
