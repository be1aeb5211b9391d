package bolt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/model"
	bbolt "go.etcd.io/bbolt"
)

// What the store's tests reach beneath the rules: the file itself, the
// clock and the bounds they change. Only store imports this package.

// Inspector offers an Engine's internals to the store's tests. It is a
// type of its own, not methods of Engine, so that the store, which
// promotes Engine's methods, does not offer them.
type Inspector struct{ e *Engine }

// Inspect returns e's Inspector.
func Inspect(e *Engine) Inspector { return Inspector{e} }

// File is the bbolt file, for reads and writes beneath the rules.
func (i Inspector) File() *bbolt.DB { return i.e.db }

// Check reports every inconsistency bbolt finds in the file.
func (i Inspector) Check() error {
	var errs []error
	err := i.e.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// SetClock replaces the clock of event ids and queue times.
func (i Inspector) SetClock(now func() time.Time) { i.e.now = now }

// SetTxBounds replaces the bounds of one transaction of CompleteRuns
// (txMaxEvents, txMaxBytes).
func (i Inspector) SetTxBounds(events, bytes int) { i.e.txMaxEvents, i.e.txMaxBytes = events, bytes }

// SetDeliveryBounds replaces the bounds of a listener's deliveries
// (kv.DeliveriesKept, kv.MaxPendingDeliveries; 0: none).
func (i Inspector) SetDeliveryBounds(kept, maxPending int) {
	i.e.deliveriesKept, i.e.maxPendingDeliveries = kept, maxPending
}

// DeliveryRecords counts the deliveries stored, and fails when the
// order index does not hold each of them once.
func (i Inspector) DeliveryRecords(context.Context) (int, error) {
	var n int
	err := i.e.db.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket(bucketDeliveries).Stats().KeyN
		if order := tx.Bucket(bucketDeliveryOrder).Stats().KeyN; order != n {
			return fmt.Errorf("%d deliveries, %d order index entries", n, order)
		}
		return nil
	})
	return n, err
}

// HasEventClock reports whether an id clock of emitterID is stored.
func (i Inspector) HasEventClock(_ context.Context, emitterID string) (bool, error) {
	var found bool
	err := i.e.db.View(func(tx *bbolt.Tx) error {
		found = tx.Bucket(bucketEventClocks).Get([]byte(emitterID)) != nil
		return nil
	})
	return found, err
}

// ForgetEventCount makes a channel's count what a store from before it
// was kept holds: none.
func (i Inspector) ForgetEventCount(_ context.Context, emitterID, channel string) error {
	return i.e.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketEvents).Bucket([]byte(emitterID)).Delete(countKey(channel))
	})
}

// DueIndex reads the due index: the deliveries due at nowMs (< 0:
// none), in its order.
func (i Inspector) DueIndex(_ context.Context, nowMs int64) ([]model.Delivery, error) {
	out := []model.Delivery{}
	err := i.e.db.View(func(tx *bbolt.Tx) error {
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
func (i Inspector) TxBounds() (events, bytes int) { return i.e.txMaxEvents, i.e.txMaxBytes }

// DeliveryBounds returns the bounds of a listener's deliveries.
func (i Inspector) DeliveryBounds() (kept, maxPending int) {
	return i.e.deliveriesKept, i.e.maxPendingDeliveries
}
