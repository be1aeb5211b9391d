package store

import (
	"context"
	"fmt"
	"time"

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

// UpdateDelivery stores d (status, attempts, next attempt) in place of
// the delivery d.ID. When d adds an attempt, the attempt is counted in
// its listener's statistics of the minute: a delivery when d is
// delivered (with its latency, from the delivery's queueing to the
// answer), a failure otherwise.
//
// # Errors
//
// ErrNotFound for an unknown id (also once its listener is deleted); an
// error for an empty listener, another listener, or a status that is not
// a delivery state.
func (r rules) UpdateDelivery(ctx context.Context, d model.Delivery) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		old, err := tx.UpdateDelivery(d)
		if err != nil || len(d.Attempts) <= len(old.Attempts) {
			return err
		}
		att := d.Attempts[len(d.Attempts)-1]
		s := &model.Stats{DeliveryFailures: 1}
		if d.Status == model.DeliveryDelivered {
			s = &model.Stats{Delivered: 1}
			s.Latency.Add(time.Duration(att.AtMs+att.DurationMs-d.CreatedAtMs) * time.Millisecond)
		}
		return r.addStats(tx, d.ListenerID, r.now(), s)
	})
	if err != nil {
		return fmt.Errorf("store: update delivery %q: %w", d.ID, err)
	}
	return nil
}
