// Package delivery sends what the engine routed to webhooks, and the
// requests of workflows' steps ($.send.http, $.send.s3): due deliveries,
// fairly between webhooks and accounts, with retries, breakers and the
// deactivation of dead webhooks.
package delivery

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Headers of a webhook delivery besides the Standard Webhooks ones.
const (
	HeaderEmitter = "X-Fount-Emitter-Id"
	HeaderChannel = "X-Fount-Channel"
)

// deliveryWorkers bounds concurrent webhook requests.
const deliveryWorkers = 16

// deliveryPoll is how often due deliveries are looked for when nothing
// wakes the loop (retries coming due, pauses ending).
const deliveryPoll = 250 * time.Millisecond

// maxPollPasses bounds the reads of one poll. A poll reads again only
// when the gate refused a delivery it offered (an account found at its
// cap once the webhook was read), and what it refused is skipped on the
// next read; the next poll goes on from where this one stopped.
const maxPollPasses = 4

// Sender makes one attempt of a delivery (a signed POST through the
// egress policy) and returns the status it got.
type Sender func(ctx context.Context, hook *model.Webhook, d model.Delivery, at time.Time) (int, error)

// Deliverer sends due webhook deliveries, up to deliveryWorkers at a time
// and fairly between webhooks and accounts: each poll takes the earliest
// due delivery of each webhook in turn, from the webhook after the last
// one served, and starts those the gate (deliveryGate) admits: one attempt
// per webhook, a few per account, none while a webhook's breaker is open.
// So a dead endpoint's backlog holds one worker at most, and costs the
// other webhooks one skipped index key per poll. Failed attempts are
// retried with exponential, jittered backoff; after maxAttempts the
// delivery has failed. Stop ends the loop, cancels the attempts in flight
// (they are not counted, and run again after a restart) and waits for
// them.
type Deliverer struct {
	clock       clock.Clock
	log         *slog.Logger
	store       store.Store
	queues      store.Queues
	send        Sender
	maxAttempts int
	retryBase   time.Duration
	finished    func(outcome string)
	// disableAfter failed deliveries in a row over at least disableAge
	// deactivate a webhook (0: never); onDisable is then told.
	disableAfter int
	disableAge   time.Duration
	onDisable    func(ctx context.Context, hook model.Webhook, dl model.Delivery)
	// owns, when set, tells the listeners whose deliveries this node
	// sends; the others' go out from the nodes that own them.
	owns func(listenerID string) bool

	wake   chan struct{}
	gate   *deliveryGate // the loop's alone
	cursor string        // the webhook served last; the loop's alone

	mu      sync.Mutex
	retired []finishedAttempt // attempts recorded, to retire from the gate
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// finishedAttempt is an attempt whose outcome is recorded.
type finishedAttempt struct {
	webhook string
	outcome outcome
}

// Config configures a Deliverer.
type Config struct {
	Clock       clock.Clock
	Log         *slog.Logger
	Store       store.Store
	Queues      store.Queues
	Send        Sender
	MaxAttempts int           // attempts of a delivery before it has failed
	RetryBase   time.Duration // the first retry's delay, doubled for each next one
	// Finished, when set, is told of each attempt's end: "delivered",
	// "retry" or "failed".
	Finished func(outcome string)
	// DisableAfter failed deliveries in a row over at least DisableAge
	// deactivate a webhook (0: never); OnDisable is then told.
	DisableAfter int
	DisableAge   time.Duration
	OnDisable    func(ctx context.Context, hook model.Webhook, dl model.Delivery)
	// Owns, when set, tells the listeners whose deliveries this node
	// sends; the others' go out from the nodes that own them.
	Owns func(listenerID string) bool
}

// New returns a stopped Deliverer.
func New(c Config) *Deliverer {
	d := &Deliverer{clock: c.Clock, log: c.Log, store: c.Store, queues: c.Queues, send: c.Send, maxAttempts: c.MaxAttempts, retryBase: c.RetryBase,
		finished: c.Finished, disableAfter: c.DisableAfter, disableAge: c.DisableAge, onDisable: c.OnDisable, owns: c.Owns,
		wake: make(chan struct{}, 1), gate: newDeliveryGate()}
	if d.finished == nil {
		d.finished = func(string) {}
	}
	return d
}

// Start starts the loop.
func (d *Deliverer) Start() {
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
func (d *Deliverer) Stop() {
	d.mu.Lock()
	cancel := d.cancel
	d.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	d.wg.Wait()
}

// Poke wakes the loop: deliveries were queued, or an attempt ended.
func (d *Deliverer) Poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// deliverDue starts the due deliveries the gate admits, as many as there
// are free workers.
//
// Finished attempts are retired from the gate here, by the loop, before
// the due deliveries are read, and only after their outcome was recorded:
// a read that raced the recording would otherwise see the delivery still
// due and send it twice.
func (d *Deliverer) deliverDue(ctx context.Context) {
	now := d.clock.Now()
	d.retire(now)
	d.gate.forgetIdle(now)
	skip := func(webhook string) bool { return (d.owns != nil && !d.owns(webhook)) || d.gate.skip(now, webhook) }
	for range maxPollPasses {
		limit := d.gate.free()
		if limit <= 0 {
			return
		}
		due, err := d.queues.DueDeliveries(ctx, now.UnixMilli(), d.cursor, limit, skip)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("read due deliveries", "err", err)
			}
			return
		}
		for _, dl := range due {
			d.cursor = dl.ListenerID
			if err := d.start(ctx, now, dl); err != nil {
				if ctx.Err() == nil {
					d.log.Error("read the webhook of a delivery", "delivery", dl.ID, "webhook", dl.ListenerID, "err", err)
				}
				return
			}
		}
		if len(due) < limit {
			return // every webhook with a delivery due was offered
		}
	}
}

// retire hands the finished attempts' outcomes to the gate, and logs the
// breakers that open or close.
func (d *Deliverer) retire(now time.Time) {
	d.mu.Lock()
	finished := d.retired
	d.retired = nil
	d.mu.Unlock()
	for _, f := range finished {
		switch opened, closed, pause := d.gate.done(now, f.webhook, f.outcome); {
		case opened:
			d.log.Warn("webhook unreachable: its deliveries are paused", "webhook", f.webhook,
				"failed_attempts", breakerThreshold, "pause", pause)
		case closed:
			d.log.Info("webhook reachable again: its deliveries resume", "webhook", f.webhook)
		}
	}
}

// start starts an attempt of dl, unless the gate refuses it: its account
// is at its cap, which was not known before the webhook was read. The
// error is the store's, reading the webhook.
func (d *Deliverer) start(ctx context.Context, now time.Time, dl model.Delivery) error {
	dest, err := d.destination(ctx, dl)
	found := err == nil
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	if !d.gate.admit(now, dl.ListenerID, dest.account) {
		return nil
	}
	d.wg.Add(1)
	go func() {
		o := outcomeNone
		defer func() {
			d.mu.Lock()
			d.retired = append(d.retired, finishedAttempt{webhook: dl.ListenerID, outcome: o})
			d.mu.Unlock()
			d.wg.Done()
			d.Poke()
		}()
		o = d.attempt(ctx, dl, dest, found)
	}()
	return nil
}

// destination is where a delivery goes: a webhook, or the request a
// workflow's step made ($.send.http, $.send.s3), which has no webhook.
type destination struct {
	hook    *model.Webhook // nil for a workflow's request
	account string         // whose share of the Deliverer it takes
	active  bool           // a webhook switched off takes none
}

// destination reads where dl goes. A workflow's request is always
// active: the send was made while the workflow ran.
func (d *Deliverer) destination(ctx context.Context, dl model.Delivery) (destination, error) {
	if dl.What() == model.DeliveryToWebhook {
		hook, err := d.store.GetWebhook(ctx, dl.ListenerID)
		if err != nil {
			return destination{}, err
		}
		return destination{hook: &hook, account: cmp.Or(hook.UserID, hook.OwnerID), active: hook.Active}, nil
	}
	wf, err := d.store.GetWorkflow(ctx, dl.ListenerID)
	if err != nil {
		return destination{}, err
	}
	return destination{account: cmp.Or(wf.UserID, wf.OwnerID), active: true}, nil
}

// attempt makes one attempt and records it: delivered on 2xx, otherwise a
// retry after backoff, or failed after the last attempt. Inactive or
// deleted (not found) webhooks receive nothing. It returns what the
// attempt told about the endpoint.
func (d *Deliverer) attempt(ctx context.Context, dl model.Delivery, dest destination, found bool) outcome {
	now := d.clock.Now()
	switch {
	case !found:
		// Deleted after the event was routed: the delivery must not stay
		// due forever.
		d.settle(ctx, dl, model.Attempt{AtMs: now.UnixMilli(), Error: "the " + dl.What().Listener() + " was deleted"}, model.DeliveryFailed)
		return outcomeNone
	case !dest.active:
		d.settle(ctx, dl, model.Attempt{AtMs: now.UnixMilli(), Error: "the webhook is inactive"}, model.DeliveryFailed)
		return outcomeNone
	}
	status, sendErr := d.send(ctx, dest.hook, dl, now)
	if ctx.Err() != nil {
		return outcomeNone // stopping: the attempt is not counted; it runs again on start
	}
	att := model.Attempt{AtMs: now.UnixMilli(), Status: status, DurationMs: d.clock.Now().Sub(now).Milliseconds()}
	if sendErr != nil {
		att.Error = egress.Describe(sendErr) // the tenant sees it: no server addresses
	}
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		d.settle(ctx, dl, att, model.DeliveryDelivered)
		d.finished("delivered")
		if dest.hook != nil && dest.hook.ConsecutiveFailures > 0 {
			d.recordOutcome(ctx, dest.hook, dl, true)
		}
	case len(dl.Attempts)+1 >= d.maxAttempts:
		d.log.Warn("webhook delivery failed", "delivery", dl.ID, "webhook", dl.ListenerID, "attempts", len(dl.Attempts)+1, "status", status, "err", att.Error)
		d.settle(ctx, dl, att, model.DeliveryFailed)
		d.finished("failed")
		d.recordOutcome(ctx, dest.hook, dl, false)
	default:
		dl.NextAttemptMs = d.clock.Now().Add(Backoff(d.retryBase, len(dl.Attempts)+1)).UnixMilli()
		d.settle(ctx, dl, att, model.DeliveryPending)
		d.finished("retry")
	}
	if sendErr != nil {
		return outcomeUnreachable
	}
	return outcomeAnswered
}

// settle records an attempt and the delivery's new status.
func (d *Deliverer) settle(ctx context.Context, dl model.Delivery, att model.Attempt, status string) {
	dl.Attempts = append(dl.Attempts, att)
	dl.Status = status
	if err := d.queues.UpdateDelivery(ctx, dl); err != nil && !errors.Is(err, model.ErrNotFound) && ctx.Err() == nil {
		d.log.Error("record a delivery attempt", "delivery", dl.ID, "err", err)
	}
}

// Backoff is base * 2^(attempts-1), with ±25% jitter, capped at an hour:
// the delay before the next of attempts failed attempts.
func Backoff(base time.Duration, attempts int) time.Duration {
	d := base << min(max(attempts-1, 0), 20)
	d = min(d, time.Hour)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return d + jitter
}

// recordOutcome counts a webhook's settled delivery toward deactivating
// it, and reports a deactivation. Workflows' requests (hook nil) are no
// webhook's.
func (d *Deliverer) recordOutcome(ctx context.Context, hook *model.Webhook, dl model.Delivery, delivered bool) {
	if hook == nil {
		return
	}
	w, disabled, err := d.store.RecordWebhookOutcome(ctx, hook.ID, delivered, d.clock.Now().UnixMilli(), d.disableAfter, d.disableAge)
	if err != nil {
		if !errors.Is(err, model.ErrNotFound) && ctx.Err() == nil {
			d.log.Error("record a webhook's delivery outcome", "webhook", hook.ID, "err", err)
		}
		return
	}
	if disabled {
		d.log.Warn("webhook deactivated", "webhook", w.ID, "failures", w.ConsecutiveFailures, "reason", w.DisabledReason)
		if d.onDisable != nil {
			d.onDisable(ctx, w, dl)
		}
	}
}
