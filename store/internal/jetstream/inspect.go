package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/fount-dev/fount/model"
	"github.com/fount-dev/fount/store/internal/kv"
)

// What the store's tests reach beneath the rules: records as stored, the
// clock and the bounds they change, and the removal of a test's stream.
// Only store imports this package.

// DeleteStream deletes the stream of this store's namespace, and with it
// everything stored.
func (s *Engine) DeleteStream(ctx context.Context) error {
	if err := s.js.DeleteStream(ctx, s.name); err != nil {
		return fmt.Errorf("delete stream %s: %w", s.name, err)
	}
	return nil
}

// SetClock replaces the clock of event ids and queue times.
func (s *Engine) SetClock(now func() time.Time) { s.now = now }

// SetDeliveryBounds replaces the bounds of a listener's deliveries
// (kv.DeliveriesKept, kv.MaxPendingDeliveries; 0: none).
func (s *Engine) SetDeliveryBounds(kept, maxPending int) {
	s.deliveriesKept, s.maxPendingDeliveries = kept, maxPending
}

// DeliveryBounds returns the bounds of a listener's deliveries.
func (s *Engine) DeliveryBounds() (kept, maxPending int) {
	return s.deliveriesKept, s.maxPendingDeliveries
}

// HasPart reports whether part n of record id of t is stored.
func (s *Engine) HasPart(ctx context.Context, t kv.Table, id string, n int) (bool, error) {
	return s.begin(ctx).has(s.partKey(t.Subject, id, n))
}

// DeliveryRecords counts the deliveries stored.
func (s *Engine) DeliveryRecords(ctx context.Context) (int, error) {
	entries, err := s.scan(ctx, s.key(tblDeliveries)+".>")
	return len(entries), err
}

// DueIndex reads every listener's backlog: the deliveries due at nowMs
// (< 0: none), by listener (in the order of their keys), then by due.
func (s *Engine) DueIndex(ctx context.Context, nowMs int64) ([]model.Delivery, error) {
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
func (s *Engine) HasEventClock(ctx context.Context, emitterID string) (bool, error) {
	return s.begin(ctx).has(s.key(tblEventClocks, emitterID))
}

// ForgetEventCount makes a channel's record what a store from before the
// count of its events was kept holds: no bound of its holes.
func (s *Engine) ForgetEventCount(ctx context.Context, emitterID, channel string) error {
	return s.update(ctx, func(tx *jsTx) error {
		k := s.key(tblEventChans, emitterID, channel)
		var ch jsChannel
		if err := tx.getJSON(k, &ch); err != nil {
			return err
		}
		ch.HolesBelow, ch.Bounded = 0, false
		return tx.putJSON(k, ch)
	})
}
