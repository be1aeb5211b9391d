package bolt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/model"
	bbolt "go.etcd.io/bbolt"
)

// What the store's tests reach beneath the rules: the file itself, the
// clock and the bounds they change. Only store imports this package.

// File is the bbolt file, for reads and writes beneath the rules.
func (b *Engine) File() *bbolt.DB { return b.db }

// Check reports every inconsistency bbolt finds in the file.
func (b *Engine) Check() error {
	var errs []error
	err := b.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// SetClock replaces the clock of event ids and queue times.
func (b *Engine) SetClock(now func() time.Time) { b.now = now }

// SetTxBounds replaces the bounds of one transaction of CompleteRuns
// (txMaxEvents, txMaxBytes).
func (b *Engine) SetTxBounds(events, bytes int) { b.txMaxEvents, b.txMaxBytes = events, bytes }

// SetDeliveryBounds replaces the bounds of a listener's deliveries
// (kv.DeliveriesKept, kv.MaxPendingDeliveries; 0: none).
func (b *Engine) SetDeliveryBounds(kept, maxPending int) {
	b.deliveriesKept, b.maxPendingDeliveries = kept, maxPending
}

// DeliveryRecords counts the deliveries stored, and fails when the
// order index does not hold each of them once.
func (b *Engine) DeliveryRecords(context.Context) (int, error) {
	var n int
	err := b.db.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket(bucketDeliveries).Stats().KeyN
		if order := tx.Bucket(bucketDeliveryOrder).Stats().KeyN; order != n {
			return fmt.Errorf("%d deliveries, %d order index entries", n, order)
		}
		return nil
	})
	return n, err
}

// HasEventClock reports whether an id clock of emitterID is stored.
func (b *Engine) HasEventClock(_ context.Context, emitterID string) (bool, error) {
	var found bool
	err := b.db.View(func(tx *bbolt.Tx) error {
		found = tx.Bucket(bucketEventClocks).Get([]byte(emitterID)) != nil
		return nil
	})
	return found, err
}

// ForgetEventCount makes a channel's count what a store from before it
// was kept holds: none.
func (b *Engine) ForgetEventCount(_ context.Context, emitterID, channel string) error {
	return b.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketEvents).Bucket([]byte(emitterID)).Delete(countKey(channel))
	})
}

// DueIndex reads the due index: the deliveries due at nowMs (< 0:
// none), in its order.
func (b *Engine) DueIndex(_ context.Context, nowMs int64) ([]model.Delivery, error) {
	out := []model.Delivery{}
	err := b.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketDeliveryDue).ForEach(func(k, _ []byte) error {
			_, due, seq, err := splitDueKey(k)
			if err != nil || nowMs < 0 || due > uint64(nowMs) {
				return err
			}
			d, err := getDelivery(tx, seq)
			out = append(out, d)
			return err
		})
	})
	return out, err
}

// TxBounds returns the bounds of one transaction of CompleteRuns.
func (b *Engine) TxBounds() (events, bytes int) { return b.txMaxEvents, b.txMaxBytes }

// DeliveryBounds returns the bounds of a listener's deliveries.
func (b *Engine) DeliveryBounds() (kept, maxPending int) {
	return b.deliveriesKept, b.maxPendingDeliveries
}
