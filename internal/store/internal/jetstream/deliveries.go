package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Deliveries on JetStream. A delivery is the record dlv.<listener>.<n>,
// n counting the listener's deliveries from 1, and its ID is "<n>-" and
// the listener's id, so that the id leads to the record. Two records per
// listener index them: its log (every n it keeps, oldest first, for
// listing and for trimming the settled ones) and its backlog (the pending
// ones in due order, for DueDeliveries). Writes of one listener take
// turns on them, through their revisions.
const (
	tblDeliveries   = "dlv"    // listener, n → Delivery
	tblDeliveryLogs = "dlvlog" // listener → jsDeliveryLog
	tblDeliveryDue  = "dlvdue" // listener → jsBacklog
)

type jsDeliveryLog struct {
	Next uint64   `json:"next"` // the n of the next delivery
	Ns   []uint64 `json:"ns"`   // the deliveries kept, oldest first
}

// jsBacklog is a listener's pending deliveries, earliest due first.
type jsBacklog struct {
	Items []jsDue `json:"items"`
}

type jsDue struct {
	N  uint64 `json:"n"`
	At int64  `json:"at"` // NextAttemptMs, negative counted as 0
}

// add files delivery n, due at atMs, in its place in the backlog.
func (b *jsBacklog) add(n uint64, atMs int64) {
	item := jsDue{N: n, At: max(atMs, 0)}
	i, _ := slices.BinarySearchFunc(b.Items, item, compareDue)
	b.Items = slices.Insert(b.Items, i, item)
}

func compareDue(a, b jsDue) int {
	if a.At != b.At {
		return compareUint(uint64(a.At), uint64(b.At))
	}
	return compareUint(a.N, b.N)
}

// deliveryID is the ID of delivery n of listener.
func deliveryID(listener string, n uint64) string {
	return strconv.FormatUint(n, 10) + "-" + listener
}

// parseDeliveryID splits an ID made by deliveryID, or returns false.
func parseDeliveryID(id string) (listener string, n uint64, ok bool) {
	num, listener, found := strings.Cut(id, "-")
	n, isSeq := kv.ParseSeqID(num)
	return listener, n, found && isSeq && listener != ""
}

func (s *Engine) deliveryKey(listener string, n uint64) string {
	return s.key(tblDeliveries, listener, strconv.FormatUint(n, 10))
}

func (tx *jsTx) deliveryLog(listener string) (jsDeliveryLog, error) {
	l := jsDeliveryLog{Next: 1}
	if err := tx.getJSON(tx.s.key(tblDeliveryLogs, listener), &l); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return jsDeliveryLog{}, err
	}
	return l, nil
}

func (tx *jsTx) backlog(listener string) (jsBacklog, error) {
	var b jsBacklog
	if err := tx.getJSON(tx.s.key(tblDeliveryDue, listener), &b); err != nil && !errors.Is(err, kv.ErrNotFound) {
		return jsBacklog{}, err
	}
	return b, nil
}

// putBacklog writes a listener's backlog, deleting it once empty so that
// DueDeliveries scans only listeners with pending deliveries.
func (tx *jsTx) putBacklog(listener string, b jsBacklog) error {
	k := tx.s.key(tblDeliveryDue, listener)
	if len(b.Items) == 0 {
		tx.del(k)
		return nil
	}
	return tx.putJSON(k, b)
}

// createDelivery stores d as a new delivery at clock nowMs, as
// Bolt.createDelivery does.
func (s *Engine) createDelivery(tx *jsTx, nowMs int64, d model.Delivery) (model.Delivery, error) {
	if d.ListenerID == "" {
		return model.Delivery{}, errors.New("empty listener id")
	}
	log, err := tx.deliveryLog(d.ListenerID)
	if err != nil {
		return model.Delivery{}, err
	}
	due, err := tx.backlog(d.ListenerID)
	if err != nil {
		return model.Delivery{}, err
	}
	if d, err = kv.NewDelivery(d, nowMs, s.maxPendingDeliveries, func() int { return len(due.Items) }); err != nil {
		return model.Delivery{}, err
	}
	n := log.Next
	log.Next++
	log.Ns = append(log.Ns, n)
	d.ID = deliveryID(d.ListenerID, n)
	if err := tx.putJSON(s.deliveryKey(d.ListenerID, n), d); err != nil {
		return model.Delivery{}, err
	}
	if d.Status == model.DeliveryPending {
		due.add(n, d.NextAttemptMs)
		if err := tx.putBacklog(d.ListenerID, due); err != nil {
			return model.Delivery{}, err
		}
	}
	return d, s.putDeliveryLog(tx, d.ListenerID, log, due)
}

// putDeliveryLog writes a listener's log, first trimming its oldest
// settled deliveries past the newest deliveriesKept.
func (s *Engine) putDeliveryLog(tx *jsTx, listener string, log jsDeliveryLog, due jsBacklog) error {
	pending := make(map[uint64]bool, len(due.Items))
	for _, it := range due.Items {
		pending[it.N] = true
	}
	if s.deliveriesKept <= 0 {
		return tx.putJSON(s.key(tblDeliveryLogs, listener), log)
	}
	excess := len(log.Ns) - len(pending) - s.deliveriesKept
	log.Ns = slices.DeleteFunc(log.Ns, func(n uint64) bool {
		if excess <= 0 || pending[n] {
			return false
		}
		excess--
		tx.del(s.deliveryKey(listener, n))
		return true
	})
	return tx.putJSON(s.key(tblDeliveryLogs, listener), log)
}

// getDelivery reads the delivery with id in tx; kv.ErrNotFound when there is
// none.
func (s *Engine) getDelivery(tx *jsTx, id string) (model.Delivery, error) {
	listener, n, ok := parseDeliveryID(id)
	if !ok {
		return model.Delivery{}, kv.ErrNotFound
	}
	var d model.Delivery
	err := tx.getJSON(s.deliveryKey(listener, n), &d)
	return d, err
}

// GetDelivery returns a delivery by id, or kv.ErrNotFound.
func (s *Engine) GetDelivery(ctx context.Context, id string) (model.Delivery, error) {
	var d model.Delivery
	err := s.view(ctx, func(tx *jsTx) error {
		var err error
		d, err = s.getDelivery(tx, id)
		return err
	})
	if err != nil {
		return model.Delivery{}, fmt.Errorf("store: get delivery %q: %w", id, err)
	}
	return d, nil
}

// updateDelivery replaces the stored delivery d.ID with d and moves it
// in its listener's backlog, as the bbolt engine's does, and returns the
// delivery as it was.
func (s *Engine) updateDelivery(tx *jsTx, d model.Delivery) (model.Delivery, error) {
	old, err := s.getDelivery(tx, d.ID)
	if err != nil {
		return model.Delivery{}, err
	}
	if err := kv.CheckDeliveryUpdate(old, d); err != nil {
		return model.Delivery{}, err
	}
	_, n, _ := parseDeliveryID(d.ID)
	due, err := tx.backlog(d.ListenerID)
	if err != nil {
		return model.Delivery{}, err
	}
	due.Items = slices.DeleteFunc(due.Items, func(it jsDue) bool { return it.N == n })
	if d.Status == model.DeliveryPending {
		due.add(n, d.NextAttemptMs)
	}
	if err := tx.putBacklog(d.ListenerID, due); err != nil {
		return model.Delivery{}, err
	}
	if err := tx.putJSON(s.deliveryKey(d.ListenerID, n), d); err != nil {
		return model.Delivery{}, err
	}
	if d.Status == model.DeliveryPending {
		return old, nil
	}
	log, err := tx.deliveryLog(d.ListenerID)
	if err != nil {
		return model.Delivery{}, err
	}
	return old, s.putDeliveryLog(tx, d.ListenerID, log, due)
}

// DueDeliveries returns up to limit (<= 0: 100) pending deliveries due
// at nowMs, at most one per listener, taking listeners in id order from
// the one after afterListener round to it, as Bolt.DueDeliveries does. It
// reads the backlogs of the listeners with pending deliveries, and only
// the deliveries it returns.
func (s *Engine) DueDeliveries(ctx context.Context, nowMs int64, afterListener string, limit int, skip func(listenerID string) bool) ([]model.Delivery, error) {
	if limit <= 0 {
		limit = kv.DefaultQueueLimit
	}
	out := []model.Delivery{}
	if nowMs < 0 {
		return out, nil
	}
	entries, err := s.scan(ctx, s.key(tblDeliveryDue)+".*")
	if err != nil {
		return nil, fmt.Errorf("store: due deliveries: %w", err)
	}
	type head struct {
		listener string
		first    jsDue
	}
	var heads []head
	for _, e := range entries {
		parts, err := s.keyParts(tblDeliveryDue, e.subject)
		if err != nil || len(parts) != 1 {
			return nil, fmt.Errorf("store: due deliveries: key %s: %w", e.subject, err)
		}
		var b jsBacklog
		if err := json.Unmarshal(e.value, &b); err != nil {
			return nil, fmt.Errorf("store: due deliveries of %q: %w", parts[0], err)
		}
		if len(b.Items) > 0 {
			heads = append(heads, head{parts[0], b.Items[0]})
		}
	}
	// In the order of bbolt's due index: by key(listener), which sorts
	// shorter ids first.
	order := func(a, b string) int { return bytes.Compare(kv.Key(a), kv.Key(b)) }
	slices.SortFunc(heads, func(a, b head) int { return order(a.listener, b.listener) })
	if afterListener != "" { // start after it, wrapping round
		i := slices.IndexFunc(heads, func(h head) bool { return order(h.listener, afterListener) > 0 })
		if i < 0 {
			i = len(heads)
		}
		heads = append(heads[i:], heads[:i]...)
	}
	err = s.view(ctx, func(tx *jsTx) error {
		for _, h := range heads {
			if len(out) == limit {
				break
			}
			if h.first.At > nowMs || (skip != nil && skip(h.listener)) {
				continue
			}
			var d model.Delivery
			err := tx.getJSON(s.deliveryKey(h.listener, h.first.N), &d)
			if errors.Is(err, kv.ErrNotFound) {
				continue // settled since the scan
			}
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: due deliveries: %w", err)
	}
	return out, nil
}

// ListDeliveries returns one page of listenerID's deliveries, newest
// first, with the cursors and rules of Bolt.ListDeliveries.
func (s *Engine) ListDeliveries(ctx context.Context, listenerID string, p kv.Page) (kv.PageOf[model.Delivery], error) {
	if p.After != "" && p.Before != "" {
		return kv.PageOf[model.Delivery]{}, fmt.Errorf("store: list deliveries of %q: %w: after and before are mutually exclusive", listenerID, kv.ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = kv.DefaultPageLimit
	}
	tag := kv.DeliveryList.Tag(listenerID)
	var pg kv.PageOf[model.Delivery]
	err := s.view(ctx, func(tx *jsTx) error {
		log, err := tx.deliveryLog(listenerID)
		if err != nil {
			return err
		}
		// The page's ns, nearest the cursor first.
		var ns []uint64
		switch {
		case p.Before != "":
			seq, err := kv.DecodeCursor(tag, p.Before)
			if err != nil {
				return err
			}
			for _, n := range log.Ns {
				if n > seq && len(ns) < limit {
					ns = append(ns, n)
				}
			}
		default:
			from := ^uint64(0)
			if p.After != "" {
				seq, err := kv.DecodeCursor(tag, p.After)
				if err != nil {
					return err
				}
				if seq == 0 {
					break
				}
				from = seq - 1
			}
			for _, n := range slices.Backward(log.Ns) {
				if n <= from && len(ns) < limit {
					ns = append(ns, n)
				}
			}
		}
		pg, err = kv.PageOfSeqs[model.Delivery](ns, len(log.Ns), p, tag, func(n uint64) ([]byte, error) {
			data, ok, err := tx.get(s.deliveryKey(listenerID, n))
			if err == nil && !ok {
				err = fmt.Errorf("delivery %d: %w", n, kv.ErrNotFound)
			}
			return data, err
		})
		return err
	})
	if err != nil {
		return kv.PageOf[model.Delivery]{}, fmt.Errorf("store: list deliveries of %q: %w", listenerID, err)
	}
	return pg, nil
}

// deleteDeliveriesAfter removes every delivery to listenerID with its
// log and backlog, as purges once the listener's delete committed.
func (s *Engine) deleteDeliveriesAfter(ctx context.Context, listenerID string) error {
	if err := s.purge(ctx, s.key(tblDeliveries, listenerID)+".>"); err != nil {
		return err
	}
	if err := s.purge(ctx, s.key(tblDeliveryLogs, listenerID)); err != nil {
		return err
	}
	return s.purge(ctx, s.key(tblDeliveryDue, listenerID))
}
