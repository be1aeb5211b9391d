package kv

import (
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
)

// ValidStatus reports whether s is a delivery state.
func ValidStatus(s string) bool {
	return s == model.DeliveryPending || s == model.DeliveryDelivered || s == model.DeliveryFailed
}

// CheckDeliveryUpdate refuses to replace the stored delivery old with d
// when d has no listener, another listener, or a status that is not a
// delivery state.
func CheckDeliveryUpdate(old, d model.Delivery) error {
	if d.ListenerID == "" {
		return errors.New("empty listener id")
	}
	if d.ListenerID != old.ListenerID {
		return fmt.Errorf("listener cannot change from %q to %q", old.ListenerID, d.ListenerID)
	}
	if !ValidStatus(d.Status) {
		return fmt.Errorf("unknown delivery status %q", d.Status)
	}
	return nil
}

// NewDelivery checks d and fills in what a new delivery starts with at
// clock nowMs: Status DeliveryPending when empty, CreatedAtMs nowMs,
// NextAttemptMs nowMs when zero. A pending one past its listener's backlog
// bound maxPending (> 0; pending counts the backlog) is failed instead,
// with an attempt saying why.
func NewDelivery(d model.Delivery, nowMs int64, maxPending int, pending func() int) (model.Delivery, error) {
	if d.ListenerID == "" {
		return model.Delivery{}, errors.New("empty listener id")
	}
	if d.Status == "" {
		d.Status = model.DeliveryPending
	}
	if !ValidStatus(d.Status) {
		return model.Delivery{}, fmt.Errorf("unknown delivery status %q", d.Status)
	}
	if d.NextAttemptMs == 0 {
		d.NextAttemptMs = nowMs
	}
	if d.Attempts == nil {
		d.Attempts = []model.Attempt{}
	}
	d.CreatedAtMs = nowMs
	if d.Status == model.DeliveryPending && maxPending > 0 && pending() >= maxPending {
		d.Status = model.DeliveryFailed
		d.Attempts = append(d.Attempts, model.Attempt{AtMs: nowMs, Error: BacklogFull(maxPending)})
	}
	return d, nil
}

// Bounds of a listener's deliveries, each stored with its payload, so
// that neither its log nor its backlog grows for as long as it lives
// (the engines' SetDeliveryBounds changes them, for tests).
const (
	// DeliveriesKept is how many settled (delivered or failed) deliveries
	// a listener keeps, the newest.
	DeliveriesKept = 1000
	// MaxPendingDeliveries bounds a listener's backlog: past it (an
	// endpoint that stopped answering, its deliveries held back by its
	// breaker), a new delivery is stored failed at once, saying why.
	MaxPendingDeliveries = 10_000
)

// BacklogFull is the attempt error of a delivery refused a place in its
// listener's backlog of limit.
func BacklogFull(limit int) string {
	return fmt.Sprintf("not sent: %d earlier deliveries were still waiting", limit)
}
