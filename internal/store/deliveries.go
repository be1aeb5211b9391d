package store

import (
	"context"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// EnqueueDeliveries stores new deliveries (a replay) in one transaction,
// each as a routed one is.
func (r rules) EnqueueDeliveries(ctx context.Context, ds []model.Delivery) ([]model.Delivery, error) {
	var out []model.Delivery
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		out = make([]model.Delivery, 0, len(ds))
		now := r.now().UnixMilli()
		for _, d := range ds {
			stored, err := tx.CreateDelivery(now, d)
			if err != nil {
				return err
			}
			out = append(out, stored)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: enqueue deliveries: %w", err)
	}
	return out, nil
}
