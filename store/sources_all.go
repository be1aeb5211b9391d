package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// AllSources returns every source of every owner, for the engine to bring
// their triggers back at start.
func (b *Bolt) AllSources(ctx context.Context) ([]model.Source, error) {
	var out []model.Source
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSources).ForEach(func(k, v []byte) error {
			var s model.Source
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("source %s: %w", k, err)
			}
			out = append(out, s)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: all sources: %w", err)
	}
	return out, nil
}
