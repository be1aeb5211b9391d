package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
)

// DBGet returns the value of key in the db of sourceID; found is false
// (with a nil value and error) when it is absent.
func (b *Engine) DBGet(ctx context.Context, sourceID, k string) (value []byte, found bool, err error) {
	err = b.view(ctx, func(tx *bbolt.Tx) error {
		if sourceID == "" || k == "" {
			return nil
		}
		bk := tx.Bucket(bucketDB).Bucket([]byte(sourceID))
		if bk == nil {
			return nil
		}
		kk, v := bk.Cursor().Seek([]byte(k))
		if !bytes.Equal(kk, []byte(k)) {
			return nil
		}
		value, found = append([]byte{}, v...), true
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("store: db get %q of %q: %w", k, sourceID, err)
	}
	return value, found, nil
}

// DBSet sets key to value (JSON text) in the db of sourceID. The store
// does not check that the source exists.
func (b *Engine) DBSet(ctx context.Context, sourceID, k string, value []byte) error {
	if sourceID == "" || k == "" {
		return fmt.Errorf("store: db set %q of %q: %w", k, sourceID, errors.New("empty source id or key"))
	}
	err := b.update(ctx, func(tx *bbolt.Tx) error {
		bk, err := tx.Bucket(bucketDB).CreateBucketIfNotExists([]byte(sourceID))
		if err != nil {
			return err
		}
		return bk.Put([]byte(k), value)
	})
	if err != nil {
		return fmt.Errorf("store: db set %q of %q: %w", k, sourceID, err)
	}
	return nil
}

// DBClear removes sourceID's whole db; a source without one is not an
// error.
func (b *Engine) DBClear(ctx context.Context, sourceID string) error {
	err := b.update(ctx, func(tx *bbolt.Tx) error {
		return deleteNested(tx.Bucket(bucketDB), sourceID)
	})
	if err != nil {
		return fmt.Errorf("store: clear the db of %q: %w", sourceID, err)
	}
	return nil
}
