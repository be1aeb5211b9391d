package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/egress"
	"github.com/fount-dev/fount/store"
)

// Headers of a webhook delivery besides the Standard Webhooks ones.
const (
	HeaderEmitter = "X-Fount-Emitter-Id"
	HeaderChannel = "X-Fount-Channel"
)

// deliveryWorkers bounds concurrent webhook requests.
const deliveryWorkers = 16

// deliveryPoll is how often due deliveries are looked for when nothing
// wakes the loop (retries coming due).
const deliveryPoll = 250 * time.Millisecond

// deliverySender makes one attempt of a delivery (a signed POST through
// the egress policy) and returns the status it got.
type deliverySender func(ctx context.Context, hook store.Webhook, d store.Delivery, at time.Time) (int, error)

// deliverer sends due webhook deliveries: up to deliveryWorkers at a
// time, without waiting for a batch to finish, so a slow or dead endpoint
// holds one worker, not everyone's deliveries. Failed attempts are retried
// with exponential, jittered backoff; after maxAttempts the delivery has
// failed. Stop ends the loop, cancels the attempts in flight (they are not
// counted, and run again after a restart) and waits for them.
type deliverer struct {
	clock       Clock
	log         *slog.Logger
	store       store.Store
	queues      store.Queues
	send        deliverySender
	maxAttempts int
	retryBase   time.Duration

	wake     chan struct{}
	sem      chan struct{}
	inFlight map[string]bool // attempts started and not yet retired; the loop's alone
	mu       sync.Mutex
	finished []string // attempts recorded, to retire from inFlight
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func newDeliverer(clock Clock, log *slog.Logger, st store.Store, q store.Queues, send deliverySender, maxAttempts int, retryBase time.Duration) *deliverer {
	return &deliverer{clock: clock, log: log, store: st, queues: q, send: send, maxAttempts: maxAttempts, retryBase: retryBase,
		wake: make(chan struct{}, 1), sem: make(chan struct{}, deliveryWorkers), inFlight: map[string]bool{}}
}

// Start starts the loop.
func (d *deliverer) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	tick := d.clock.NewTicker(deliveryPoll)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C():
			case <-d.wake:
			}
			d.deliverDue(ctx)
		}
	}()
}

// Stop ends the loop and the attempts in flight and waits for them. It is
// safe to call twice.
func (d *deliverer) Stop() {
	d.mu.Lock()
	cancel := d.cancel
	d.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	d.wg.Wait()
}

// poke wakes the loop: deliveries were queued.
func (d *deliverer) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// deliverDue starts the due deliveries that are not already in flight.
//
// An attempt is retired from inFlight here, by the loop, before the due
// deliveries are read, and only after its outcome was recorded: a read
// that raced the recording would otherwise see the delivery still due
// and send it twice.
func (d *deliverer) deliverDue(ctx context.Context) {
	d.mu.Lock()
	for _, id := range d.finished {
		delete(d.inFlight, id)
	}
	d.finished = d.finished[:0]
	d.mu.Unlock()
	due, err := d.queues.DueDeliveries(ctx, d.clock.Now().UnixMilli(), 4*deliveryWorkers)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Error("read due deliveries", "err", err)
		}
		return
	}
	for _, dl := range due {
		if d.inFlight[dl.ID] {
			continue
		}
		select {
		case d.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		d.inFlight[dl.ID] = true
		d.wg.Add(1)
		go func() {
			defer func() {
				<-d.sem
				d.mu.Lock()
				d.finished = append(d.finished, dl.ID)
				d.mu.Unlock()
				d.wg.Done()
				d.poke()
			}()
			d.attempt(ctx, dl)
		}()
	}
}

// attempt makes one attempt and records it: delivered on 2xx, otherwise a
// retry after backoff, or failed after the last attempt. Inactive or
// deleted webhooks receive nothing.
func (d *deliverer) attempt(ctx context.Context, dl store.Delivery) {
	now := d.clock.Now()
	hook, err := d.store.GetWebhook(ctx, dl.ListenerID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Deleted after the event was routed: the delivery must not stay
		// due forever.
		d.settle(ctx, dl, store.Attempt{AtMs: now.UnixMilli(), Error: "the webhook was deleted"}, store.DeliveryFailed)
		return
	case err != nil:
		if ctx.Err() == nil {
			d.log.Error("read the webhook of a delivery", "delivery", dl.ID, "err", err)
		}
		return
	case !hook.Active:
		d.settle(ctx, dl, store.Attempt{AtMs: now.UnixMilli(), Error: "the webhook is inactive"}, store.DeliveryFailed)
		return
	}
	status, sendErr := d.send(ctx, hook, dl, now)
	if ctx.Err() != nil {
		return // stopping: the attempt is not counted; it runs again on start
	}
	att := store.Attempt{AtMs: now.UnixMilli(), Status: status, DurationMs: d.clock.Now().Sub(now).Milliseconds()}
	if sendErr != nil {
		att.Error = egress.Describe(sendErr) // the tenant sees it: no server addresses
	}
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		d.settle(ctx, dl, att, store.DeliveryDelivered)
	case len(dl.Attempts)+1 >= d.maxAttempts:
		d.log.Warn("webhook delivery failed", "delivery", dl.ID, "webhook", dl.ListenerID, "attempts", len(dl.Attempts)+1, "status", status, "err", att.Error)
		d.settle(ctx, dl, att, store.DeliveryFailed)
	default:
		dl.NextAttemptMs = d.clock.Now().Add(backoff(d.retryBase, len(dl.Attempts)+1)).UnixMilli()
		d.settle(ctx, dl, att, store.DeliveryPending)
	}
}

// settle records an attempt and the delivery's new status.
func (d *deliverer) settle(ctx context.Context, dl store.Delivery, att store.Attempt, status string) {
	dl.Attempts = append(dl.Attempts, att)
	dl.Status = status
	if err := d.queues.UpdateDelivery(ctx, dl); err != nil && !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
		d.log.Error("record a delivery attempt", "delivery", dl.ID, "err", err)
	}
}

// backoff is base * 2^(attempts-1), with ±25% jitter, capped at an hour.
func backoff(base time.Duration, attempts int) time.Duration {
	d := base << min(max(attempts-1, 0), 20)
	d = min(d, time.Hour)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return d + jitter
}

// deliveryFetch performs a delivery's POST: the egress policy's Fetch.
type deliveryFetch func(context.Context, abi.FetchRequest) (abi.FetchResponse, error)

// webhookSender is the deliverySender of a server: a POST through fetch
// (the egress policy) with Standard Webhooks headers, 10 s at most.
func webhookSender(fetch deliveryFetch) deliverySender {
	return func(ctx context.Context, hook store.Webhook, dl store.Delivery, at time.Time) (int, error) {
		if fetch == nil {
			return 0, errors.New("the server has no egress policy for webhooks")
		}
		ts := strconv.FormatInt(at.Unix(), 10)
		sig, err := Sign(hook.SigningSecret, dl.ID, ts, dl.Payload)
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := fetch(ctx, abi.FetchRequest{
			URL: hook.URL, Method: http.MethodPost, Body: string(dl.Payload),
			Headers: map[string]string{
				"Content-Type": "application/json", "User-Agent": "fount-webhooks",
				"webhook-id": dl.ID, "webhook-timestamp": ts, "webhook-signature": sig,
				HeaderEmitter: dl.EmitterID, HeaderChannel: dl.Channel,
			},
		})
		if err != nil {
			return 0, err
		}
		return res.Status, nil
	}
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
