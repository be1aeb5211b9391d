package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateWebhook stores w and indexes it by owner.
//
// # Errors
//
// ErrConflict when w.ID exists; a *LimitError when the owner has its
// limit of webhooks.
func (b *Bolt) CreateWebhook(ctx context.Context, w model.Webhook) error {
	if w.ID == "" {
		return errors.New("store: create webhook: empty id")
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
		hooks := tx.Bucket(bucketWebhooks)
		if has(hooks, []byte(w.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		if err := b.checkRoom(tx, CountWebhooks, w.OwnerID); err != nil {
			return err
		}
		if _, err := webhookIndex.add(tx, w.OwnerID, w.ID); err != nil {
			return err
		}
		return putJSON(hooks, w.ID, w)
	})
	if err != nil {
		return fmt.Errorf("store: create webhook %q: %w", w.ID, err)
	}
	return nil
}

// GetWebhook returns the webhook with id, or ErrNotFound.
func (b *Bolt) GetWebhook(ctx context.Context, id string) (model.Webhook, error) {
	var w model.Webhook
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketWebhooks), id, &w)
	})
	if err != nil {
		return model.Webhook{}, fmt.Errorf("store: get webhook %q: %w", id, err)
	}
	return w, nil
}

// DeleteWebhook removes the webhook, its deliveries and the subscriptions
// and auto-subscriptions whose listener it is, in one transaction.
//
// # Errors
//
// ErrNotFound for an unknown webhook.
func (b *Bolt) DeleteWebhook(ctx context.Context, id string) error {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		hooks := tx.Bucket(bucketWebhooks)
		if !has(hooks, []byte(id)) {
			return ErrNotFound
		}
		if err := webhookIndex.remove(tx, id); err != nil {
			return err
		}
		if err := deleteSubsNaming(tx, id, true); err != nil {
			return err
		}
		if err := deleteAutoSubsOfListener(tx, id); err != nil {
			return err
		}
		if err := deleteDeliveriesOf(tx, id); err != nil {
			return err
		}
		return hooks.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("store: delete webhook %q: %w", id, err)
	}
	return nil
}

// ListWebhooks returns one page of ownerID's webhooks in creation order.
func (b *Bolt) ListWebhooks(ctx context.Context, ownerID string, p Page) (PageOf[model.Webhook], error) {
	var pg PageOf[model.Webhook]
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ids, cursors, total, err := webhookIndex.page(tx, ownerID, p)
		if err != nil {
			return err
		}
		pg, err = pageOf[model.Webhook](recordsOf(tx.Bucket(bucketWebhooks)), p, ids, cursors, total)
		return err
	})
	if err != nil {
		return PageOf[model.Webhook]{}, fmt.Errorf("store: list webhooks of %q: %w", ownerID, err)
	}
	return pg, nil
}

// UpdateWebhook implements Store.
func (b *Bolt) UpdateWebhook(ctx context.Context, w model.Webhook) error {
	err := b.update(ctx, func(tx *bolt.Tx) error {
		hooks := tx.Bucket(bucketWebhooks)
		var old model.Webhook
		if err := getJSON(hooks, w.ID, &old); err != nil {
			return err
		}
		w.OwnerID, w.CreatedAt = old.OwnerID, old.CreatedAt // not the caller's to change
		return putJSON(hooks, w.ID, w)
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
func (b *Bolt) RecordWebhookOutcome(ctx context.Context, id string, delivered bool, nowMs int64, maxFailures int, minAge time.Duration) (model.Webhook, bool, error) {
	var w model.Webhook
	disabled := false
	err := b.update(ctx, func(tx *bolt.Tx) error {
		hooks := tx.Bucket(bucketWebhooks)
		if err := getJSON(hooks, id, &w); err != nil {
			return err
		}
		var changed bool
		if changed, disabled = recordOutcome(&w, delivered, nowMs, maxFailures, minAge); !changed {
			return nil
		}
		return putJSON(hooks, id, w)
	})
	if err != nil {
		return model.Webhook{}, false, fmt.Errorf("store: record an outcome of webhook %q: %w", id, err)
	}
	return w, disabled, nil
}
