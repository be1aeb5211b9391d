package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/store"
)

// Headers of a webhook delivery besides the Standard Webhooks ones.
const (
	HeaderEmitter = "X-Fount-Emitter-Id"
	HeaderChannel = "X-Fount-Channel"
)

func (e *Engine) wakeDeliveries() {
	select {
	case e.deliverCh <- struct{}{}:
	default:
	}
}

// deliveryLoop sends due webhook deliveries until the engine stops.
func (e *Engine) deliveryLoop() {
	defer e.wg.Done()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-tick.C:
		case <-e.deliverCh:
		}
		due, err := e.cfg.Queues.DueDeliveries(e.ctx, time.Now().UnixMilli(), 64)
		if err != nil {
			e.log.Error("read deliveries", "err", err)
			continue
		}
		e.deliverAll(due)
	}
}

// deliveryWorkers bounds concurrent webhook requests.
const deliveryWorkers = 16

// deliverAll starts the due deliveries that are not already in flight, at
// most deliveryWorkers at a time, without waiting for a batch to finish: a
// slow or dead endpoint holds one worker, not everyone's deliveries. It
// reports whether it started anything.
func (e *Engine) deliverAll(due []store.Delivery) bool {
	started := false
	for _, d := range due {
		e.mu.Lock()
		busy := e.inFlight[d.ID]
		if !busy {
			e.inFlight[d.ID] = true
		}
		e.mu.Unlock()
		if busy {
			continue
		}
		select {
		case e.deliverSem <- struct{}{}:
		case <-e.ctx.Done():
			return started
		}
		started = true
		e.wg.Add(1)
		go func() {
			defer func() {
				<-e.deliverSem
				e.mu.Lock()
				delete(e.inFlight, d.ID)
				e.mu.Unlock()
				e.wg.Done()
				e.wakeDeliveries()
			}()
			e.deliver(e.ctx, d)
		}()
	}
	return started
}

// deliver makes one attempt and records it: delivered on 2xx, otherwise a
// retry after an exponential, jittered backoff, or failed after the last
// attempt. Inactive or deleted webhooks receive nothing.
func (e *Engine) deliver(ctx context.Context, d store.Delivery) {
	now := time.Now()
	hook, err := e.cfg.Store.GetWebhook(ctx, d.ListenerID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The webhook is gone; a delivery routed just before its deletion
		// must not stay due forever.
		d.Status = store.DeliveryFailed
		d.Attempts = append(d.Attempts, store.Attempt{AtMs: now.UnixMilli(), Error: "the webhook was deleted"})
		e.saveDelivery(ctx, d)
		return
	case err != nil:
		e.log.Error("deliver", "delivery", d.ID, "err", err)
		return
	case !hook.Active:
		d.Status = store.DeliveryFailed
		d.Attempts = append(d.Attempts, store.Attempt{AtMs: now.UnixMilli(), Error: "the webhook is inactive"})
		e.saveDelivery(ctx, d)
		return
	}
	status, sendErr := e.send(ctx, hook, d, now)
	if ctx.Err() != nil {
		return // stopping: the attempt is not counted, it runs again on start
	}
	att := store.Attempt{AtMs: now.UnixMilli(), Status: status, DurationMs: time.Since(now).Milliseconds()}
	if sendErr != nil {
		att.Error = sendErr.Error()
	}
	d.Attempts = append(d.Attempts, att)
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		d.Status = store.DeliveryDelivered
	case len(d.Attempts) >= e.cfg.MaxAttempts:
		d.Status = store.DeliveryFailed
	default:
		d.NextAttemptMs = time.Now().Add(e.backoff(len(d.Attempts))).UnixMilli()
	}
	e.saveDelivery(ctx, d)
}

func (e *Engine) saveDelivery(ctx context.Context, d store.Delivery) {
	if err := e.cfg.Queues.UpdateDelivery(ctx, d); err != nil && !errors.Is(err, store.ErrNotFound) {
		e.log.Error("record delivery", "delivery", d.ID, "err", err)
	}
}

// backoff is RetryBase * 2^(n-1), with ±25% jitter, capped at an hour.
func (e *Engine) backoff(attempts int) time.Duration {
	d := e.cfg.RetryBase << min(attempts-1, 20)
	d = min(d, time.Hour)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return d + jitter
}

// send POSTs the delivery with Standard Webhooks headers.
func (e *Engine) send(ctx context.Context, hook store.Webhook, d store.Delivery, now time.Time) (int, error) {
	if e.cfg.Egress == nil {
		return 0, errors.New("the server has no egress policy for webhooks")
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	sig, err := Sign(hook.SigningSecret, d.ID, ts, d.Payload)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := e.cfg.Egress.Fetch(ctx, abi.FetchRequest{
		URL: hook.URL, Method: http.MethodPost, Body: string(d.Payload),
		Headers: map[string]string{
			"Content-Type": "application/json", "User-Agent": "fount-webhooks",
			"webhook-id": d.ID, "webhook-timestamp": ts, "webhook-signature": sig,
			HeaderEmitter: d.EmitterID, HeaderChannel: d.Channel,
		},
	})
	if err != nil {
		return 0, err
	}
	return res.Status, nil
}

// Sign computes the Standard Webhooks signature header value, "v1,<base64
// HMAC-SHA256>", over "<id>.<timestamp>.<body>", keyed by the secret's
// bytes (the base64 after "whsec_").
func Sign(signingSecret, id, timestamp string, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(signingSecret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("engine: signing secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
