package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateWebhook stores w and lists it under its owner.
//
// # Errors
//
// ErrConflict when w.ID exists; a *LimitError when the owner has its
// limit of webhooks.
func (r rules) CreateWebhook(ctx context.Context, w model.Webhook) error {
	if w.ID == "" {
		return errors.New("store: create webhook: empty id")
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		return r.createRecord(tx, kv.Webhooks, kv.WebhookList, model.CountWebhooks, w.OwnerID, w.ID, w)
	})
	if err != nil {
		return fmt.Errorf("store: create webhook %q: %w", w.ID, err)
	}
	return nil
}

// GetWebhook returns the webhook with id, or ErrNotFound.
func (r rules) GetWebhook(ctx context.Context, id string) (model.Webhook, error) {
	var w model.Webhook
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Webhooks, id, &w) })
	if err != nil {
		return model.Webhook{}, fmt.Errorf("store: get webhook %q: %w", id, err)
	}
	return w, nil
}

// DeleteWebhook removes the webhook, the subscriptions and
// auto-subscriptions whose listener it is, and its deliveries (on
// JetStream, once the rest is committed: they may be more than one batch
// holds).
//
// # Errors
//
// ErrNotFound for an unknown webhook.
func (r rules) DeleteWebhook(ctx context.Context, id string) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var w model.Webhook
		if err := getRecord(tx, kv.Webhooks, id, &w); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.WebhookList, w.OwnerID, id); err != nil {
			return err
		}
		if err := deleteSubsNaming(tx, id, true); err != nil {
			return err
		}
		if err := deleteAutoSubsOfListener(tx, id); err != nil {
			return err
		}
		if err := tx.DeleteDeliveriesOf(id); err != nil {
			return err
		}
		if err := deleteStats(tx, id); err != nil {
			return err
		}
		return tx.DeleteRecord(kv.Webhooks, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete webhook %q: %w", id, err)
	}
	return nil
}

// ListWebhooks returns one page of ownerID's webhooks in creation order.
func (r rules) ListWebhooks(ctx context.Context, ownerID string, p Page) (PageOf[model.Webhook], error) {
	pg, err := pageOfList[model.Webhook](ctx, r, kv.WebhookList, kv.Webhooks, ownerID, p)
	if err != nil {
		return PageOf[model.Webhook]{}, fmt.Errorf("store: list webhooks of %q: %w", ownerID, err)
	}
	return pg, nil
}

// UpdateWebhook replaces a webhook's record (ErrNotFound when gone); its
// owner and creation time stay.
func (r rules) UpdateWebhook(ctx context.Context, w model.Webhook) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var old model.Webhook
		if err := getRecord(tx, kv.Webhooks, w.ID, &old); err != nil {
			return err
		}
		w.OwnerID, w.CreatedAt = old.OwnerID, old.CreatedAt // not the caller's to change
		return putRecord(tx, kv.Webhooks, w.ID, w)
	})
	if err != nil {
		return fmt.Errorf("store: update webhook %q: %w", w.ID, err)
	}
	return nil
}

// recordOutcome counts a settled delivery of w, as RecordWebhookOutcome
// says, and reports whether w changed and whether this deactivated it.
func recordOutcome(w *model.Webhook, delivered bool, nowMs int64, maxFailures int, minAge time.Duration) (changed, disabled bool) {
	if delivered {
		if w.ConsecutiveFailures == 0 {
			return false, false
		}
		w.ConsecutiveFailures, w.FailingSinceMs = 0, 0
		return true, false
	}
	if w.ConsecutiveFailures == 0 {
		w.FailingSinceMs = nowMs
	}
	w.ConsecutiveFailures++
	if w.Active && maxFailures > 0 && w.ConsecutiveFailures >= maxFailures && nowMs-w.FailingSinceMs >= minAge.Milliseconds() {
		w.Active, disabled = false, true
		w.DisabledReason = fmt.Sprintf("deactivated after %d deliveries in a row failed over %s", w.ConsecutiveFailures,
			time.Duration(nowMs-w.FailingSinceMs)*time.Millisecond)
	}
	return true, disabled
}

// RecordWebhookOutcome implements Store.
func (r rules) RecordWebhookOutcome(ctx context.Context, id string, delivered bool, nowMs int64, maxFailures int, minAge time.Duration) (model.Webhook, bool, error) {
	var w model.Webhook
	disabled := false
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		w, disabled = model.Webhook{}, false
		if err := getRecord(tx, kv.Webhooks, id, &w); err != nil {
			return err
		}
		var changed bool
		if changed, disabled = recordOutcome(&w, delivered, nowMs, maxFailures, minAge); !changed {
			return nil
		}
		return putRecord(tx, kv.Webhooks, id, w)
	})
	if err != nil {
		return model.Webhook{}, false, fmt.Errorf("store: record an outcome of webhook %q: %w", id, err)
	}
	return w, disabled, nil
}
