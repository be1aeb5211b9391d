package bolt

import (
	"errors"
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

// Buckets of bbolt's own layout that tests read.
var (
	BucketEvents        = bucketEvents
	BucketEventClocks   = bucketEventClocks
	BucketDeliveries    = bucketDeliveries
	BucketDeliveryOrder = bucketDeliveryOrder
)

// CountKey is the key of a channel's count of events in its emitter's
// bucket.
func CountKey(channel string) []byte { return countKey(channel) }

// DueIndex reads the due index: the deliveries due at nowMs (< 0:
// none), in its order.
func (b *Engine) DueIndex(nowMs int64) ([]model.Delivery, error) {
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
