package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// What the store's tests reach beneath the rules: records as stored, the
// clock and the bounds they change, and the removal of a test's stream.
// Only store imports this package.

// Inspector offers an Engine's internals to the store's tests. It is a
// type of its own, not methods of Engine, so that the store, which
// promotes Engine's methods, does not offer them.
type Inspector struct{ e *Engine }

// Inspect returns e's Inspector.
func Inspect(e *Engine) Inspector { return Inspector{e} }

// DeleteStream deletes the stream of this store's namespace, and with it
// everything stored.
func (i Inspector) DeleteStream(ctx context.Context) error {
	if err := i.e.js.DeleteStream(ctx, i.e.name); err != nil {
		return fmt.Errorf("delete stream %s: %w", i.e.name, err)
	}
	return nil
}

// SetClock replaces the clock of event ids and queue times.
func (i Inspector) SetClock(now func() time.Time) { i.e.now = now }

// SetDeliveryBounds replaces the bounds of a listener's deliveries
// (kv.DeliveriesKept, kv.MaxPendingDeliveries; 0: none).
func (i Inspector) SetDeliveryBounds(kept, maxPending int) {
	i.e.deliveriesKept, i.e.maxPendingDeliveries = kept, maxPending
}

// DeliveryBounds returns the bounds of a listener's deliveries.
func (i Inspector) DeliveryBounds() (kept, maxPending int) {
	return i.e.deliveriesKept, i.e.maxPendingDeliveries
}

// HasPart reports whether part n of record id of t is stored.
func (i Inspector) HasPart(ctx context.Context, t kv.Table, id string, n int) (bool, error) {
	return i.e.begin(ctx).has(i.e.partKey(t.Subject, id, n))
}

// DeliveryRecords counts the deliveries stored.
func (i Inspector) DeliveryRecords(ctx context.Context) (int, error) {
	entries, err := i.e.scan(ctx, i.e.key(tblDeliveries)+".>")
	return len(entries), err
}

// DueIndex reads every listener's backlog: the deliveries due at nowMs
// (< 0: none), by listener (in the order of their keys), then by due.
func (i Inspector) DueIndex(ctx context.Context, nowMs int64) ([]model.Delivery, error) {
	s := i.e
	entries, err := s.scan(ctx, s.key(tblDeliveryDue)+".*")
	if err != nil {
		return nil, err
	}
	listeners := make([]string, len(entries))
	for i, e := range entries {
		parts, err := s.keyParts(tblDeliveryDue, e.subject)
		if err != nil {
			return nil, err
		}
		listeners[i] = parts[0]
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(kv.Key(listeners[a]), kv.Key(listeners[b])) })
	out := []model.Delivery{}
	for _, i := range order {
		var b jsBacklog
		if err := json.Unmarshal(entries[i].value, &b); err != nil {
			return nil, err
		}
		for _, it := range b.Items {
			if nowMs >= 0 && it.At <= nowMs {
				d, err := s.GetDelivery(ctx, deliveryID(listeners[i], it.N))
				if err != nil {
					return nil, err
				}
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// HasEventClock reports whether an id clock of emitterID is stored.
func (i Inspector) HasEventClock(ctx context.Context, emitterID string) (bool, error) {
	return i.e.begin(ctx).has(i.e.key(tblEventClocks, emitterID))
}

// ForgetEventCount makes a channel's record what a store from before the
// count of its events was kept holds: no bound of its holes.
func (i Inspector) ForgetEventCount(ctx context.Context, emitterID, channel string) error {
	return i.e.update(ctx, func(tx *jsTx) error {
		k := i.e.key(tblEventChans, emitterID, channel)
		var ch jsChannel
		if err := tx.getJSON(k, &ch); err != nil {
			return err
		}
		ch.HolesBelow, ch.Bounded = 0, false
		return tx.putJSON(k, ch)
	})
}
