package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/webhook"
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

// deliverySender makes one attempt of a delivery (a signed POST through
// the egress policy) and returns the status it got.
type deliverySender func(ctx context.Context, hook *model.Webhook, d model.Delivery, at time.Time) (int, error)

// deliverer sends due webhook deliveries, up to deliveryWorkers at a time
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
type deliverer struct {
	clock       Clock
	log         *slog.Logger
	store       store.Store
	queues      store.Queues
	send        deliverySender
	maxAttempts int
	retryBase   time.Duration
	observe     Observer
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

	mu       sync.Mutex
	finished []finishedAttempt // attempts recorded, to retire from the gate
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// finishedAttempt is an attempt whose outcome is recorded.
type finishedAttempt struct {
	webhook string
	outcome outcome
}

func newDeliverer(clock Clock, log *slog.Logger, st store.Store, q store.Queues, send deliverySender, maxAttempts int, retryBase time.Duration) *deliverer {
	return &deliverer{clock: clock, log: log, store: st, queues: q, send: send, maxAttempts: maxAttempts, retryBase: retryBase,
		wake: make(chan struct{}, 1), gate: newDeliveryGate(), observe: noObserver{}}
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

// poke wakes the loop: deliveries were queued, or an attempt ended.
func (d *deliverer) poke() {
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
func (d *deliverer) deliverDue(ctx context.Context) {
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
func (d *deliverer) retire(now time.Time) {
	d.mu.Lock()
	finished := d.finished
	d.finished = nil
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
func (d *deliverer) start(ctx context.Context, now time.Time, dl model.Delivery) error {
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
			d.finished = append(d.finished, finishedAttempt{webhook: dl.ListenerID, outcome: o})
			d.mu.Unlock()
			d.wg.Done()
			d.poke()
		}()
		o = d.attempt(ctx, dl, dest, found)
	}()
	return nil
}

// destination is where a delivery goes: a webhook, or the request a
// workflow's step made ($.send.http, $.send.s3), which has no webhook.
type destination struct {
	hook    *model.Webhook // nil for a workflow's request
	account string         // whose share of the deliverer it takes
	active  bool           // a webhook switched off takes none
}

// destination reads where dl goes. A workflow's request is always
// active: the send was made while the workflow ran.
func (d *deliverer) destination(ctx context.Context, dl model.Delivery) (destination, error) {
	if dl.Request == nil {
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
func (d *deliverer) attempt(ctx context.Context, dl model.Delivery, dest destination, found bool) outcome {
	now := d.clock.Now()
	switch {
	case !found:
		// Deleted after the event was routed: the delivery must not stay
		// due forever.
		d.settle(ctx, dl, model.Attempt{AtMs: now.UnixMilli(), Error: "the webhook was deleted"}, model.DeliveryFailed)
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
		d.observe.DeliveryFinished("delivered")
		if dest.hook != nil && dest.hook.ConsecutiveFailures > 0 {
			d.recordOutcome(ctx, dest.hook, dl, true)
		}
	case len(dl.Attempts)+1 >= d.maxAttempts:
		d.log.Warn("webhook delivery failed", "delivery", dl.ID, "webhook", dl.ListenerID, "attempts", len(dl.Attempts)+1, "status", status, "err", att.Error)
		d.settle(ctx, dl, att, model.DeliveryFailed)
		d.observe.DeliveryFinished("failed")
		d.recordOutcome(ctx, dest.hook, dl, false)
	default:
		dl.NextAttemptMs = d.clock.Now().Add(backoff(d.retryBase, len(dl.Attempts)+1)).UnixMilli()
		d.settle(ctx, dl, att, model.DeliveryPending)
		d.observe.DeliveryFinished("retry")
	}
	if sendErr != nil {
		return outcomeUnreachable
	}
	return outcomeAnswered
}

// settle records an attempt and the delivery's new status.
func (d *deliverer) settle(ctx context.Context, dl model.Delivery, att model.Attempt, status string) {
	dl.Attempts = append(dl.Attempts, att)
	dl.Status = status
	if err := d.queues.UpdateDelivery(ctx, dl); err != nil && !errors.Is(err, model.ErrNotFound) && ctx.Err() == nil {
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

// ObjectSink is the operator's bucket, which workflows' $.send.s3 writes
// to (an *s3.Bucket).
type ObjectSink interface {
	// Name is the bucket's name.
	Name() string
	// Put writes body under key and returns the server's status.
	Put(ctx context.Context, key string, body []byte) (int, error)
}

// channelSendS3 marks the deliveries of $.send.s3: their Request's URL is
// the object's key, its Body the object.
const channelSendS3 = "$send.s3"

// webhookSender is the deliverySender of a server: a POST through fetch
// (the egress policy) with Standard Webhooks headers, 10 s at most; a
// workflow's $.send.http request as it was given; a $.send.s3 object
// written to objects.
func webhookSender(fetch deliveryFetch, objects ObjectSink) deliverySender {
	return func(ctx context.Context, hook *model.Webhook, dl model.Delivery, at time.Time) (int, error) {
		if dl.Request != nil && dl.Channel == channelSendS3 {
			if objects == nil {
				return 0, errors.New("$.send.s3: the server no longer has a bucket configured (--s3-endpoint)")
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			return objects.Put(ctx, dl.Request.URL, []byte(dl.Request.Body))
		}
		if fetch == nil {
			return 0, errors.New("the server has no egress policy for webhooks")
		}
		if dl.Request != nil {
			return sendRequest(ctx, fetch, *dl.Request)
		}
		ts := strconv.FormatInt(at.Unix(), 10)
		sig, err := webhook.Sign(hook.SigningSecret, dl.ID, ts, dl.Payload)
		if err != nil {
			return 0, err
		}
		if hook.PreviousSecret != "" && at.UnixMilli() < hook.PreviousUntilMs {
			// Both keys sign while a rotation overlaps, space-separated as
			// Standard Webhooks allows; a receiver accepts either.
			if prev, err := webhook.Sign(hook.PreviousSecret, dl.ID, ts, dl.Payload); err == nil {
				sig += " " + prev
			}
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

// sendRequest makes a workflow's $.send.http request as it was given,
// 10 s at most.
func sendRequest(ctx context.Context, fetch deliveryFetch, req model.DeliveryRequest) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	headers := map[string]string{"User-Agent": "fount-workflows"}
	typed := false
	for k, v := range req.Headers {
		headers[k] = v
		typed = typed || strings.EqualFold(k, "Content-Type")
	}
	if !typed && req.Body != "" {
		headers["Content-Type"] = "application/json"
	}
	res, err := fetch(ctx, abi.FetchRequest{URL: req.URL, Method: req.Method, Headers: headers, Body: req.Body})
	if err != nil {
		return 0, err
	}
	return res.Status, nil
}

// recordOutcome counts a webhook's settled delivery toward deactivating
// it, and reports a deactivation. Workflows' requests (hook nil) are no
// webhook's.
func (d *deliverer) recordOutcome(ctx context.Context, hook *model.Webhook, dl model.Delivery, delivered bool) {
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
