package records

import (
	"context"
	"time"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/webhook"
)

// WebhookRequest is a new webhook. Its URL is checked by the caller
// against the egress policy.
type WebhookRequest struct {
	OwnerID, UserID   string
	URL               string
	Name, Description *string
}

// CreateWebhook creates a webhook with a fresh signing secret.
func (s *Service) CreateWebhook(ctx context.Context, req WebhookRequest) (model.Webhook, error) {
	now := s.now().Unix()
	h := model.Webhook{
		ID: ids.New(ids.Webhook), OwnerID: req.OwnerID, UserID: req.UserID, Name: req.Name, Description: req.Description,
		URL: req.URL, Active: true, SigningSecret: webhook.NewSecret(), CreatedAt: now, UpdatedAt: now,
	}
	return h, s.store.CreateWebhook(ctx, h)
}

// WebhookChange edits a webhook: each field that is not nil replaces its
// value.
type WebhookChange struct {
	URL, Name, Description *string
	Active                 *bool
}

// UpdateWebhook applies c to webhook id. Activating a deactivated
// webhook is a fresh start: its failures no longer count.
func (s *Service) UpdateWebhook(ctx context.Context, id string, c WebhookChange) (model.Webhook, error) {
	return s.rewriteWebhook(ctx, id, func(h *model.Webhook, _ time.Time) {
		if c.URL != nil {
			h.URL = *c.URL
		}
		if c.Name != nil {
			h.Name = c.Name
		}
		if c.Description != nil {
			h.Description = c.Description
		}
		if c.Active != nil {
			if *c.Active && !h.Active {
				h.ConsecutiveFailures, h.FailingSinceMs, h.DisabledReason = 0, 0, ""
			}
			h.Active = *c.Active
		}
	})
}

// RotateWebhookSecret gives webhook id a new signing secret; the old one
// signs too for overlap.
func (s *Service) RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (model.Webhook, error) {
	return s.rewriteWebhook(ctx, id, func(h *model.Webhook, now time.Time) {
		h.PreviousSecret, h.PreviousUntilMs = h.SigningSecret, now.Add(overlap).UnixMilli()
		h.SigningSecret = webhook.NewSecret()
	})
}

// rewriteWebhook reads webhook id, changes it with change and writes it
// back, under the webhook's lock so that two edits do not lose one.
func (s *Service) rewriteWebhook(ctx context.Context, id string, change func(h *model.Webhook, now time.Time)) (model.Webhook, error) {
	unlock := s.webhooks.Lock(id)
	defer unlock()
	h, err := s.store.GetWebhook(ctx, id)
	if err != nil {
		return model.Webhook{}, err
	}
	now := s.now()
	change(&h, now)
	h.UpdatedAt = now.Unix()
	return h, s.store.UpdateWebhook(ctx, h)
}

// DeleteWebhook deletes webhook id, the subscriptions that deliver to
// it and its deliveries (store.DeleteWebhook).
func (s *Service) DeleteWebhook(ctx context.Context, id string) error {
	unlock := s.webhooks.Lock(id)
	defer unlock()
	return s.store.DeleteWebhook(ctx, id)
}
