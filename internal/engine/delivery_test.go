package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/internal/wait"
)

// scriptedSender answers each attempt with the next status of its script
// (0: a network error), then 200.
type scriptedSender struct {
	mu       sync.Mutex
	script   []int
	attempts atomic.Int32
}

func (s *scriptedSender) send(_ context.Context, _ *model.Webhook, _ model.Delivery, _ time.Time) (int, error) {
	s.attempts.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return 200, nil
	}
	status := s.script[0]
	s.script = s.script[1:]
	if status == 0 {
		return 0, errors.New("connection refused")
	}
	return status, nil
}

// queueDelivery routes one delivery to listener through a run commit.
func queueDelivery(t *testing.T, st *store.Bolt, listener string) {
	t.Helper()
	inv, err := st.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_a", Kind: kindManual})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CompleteRuns(ctx, []store.CompletedRun{{Invocation: inv, Commit: store.RunCommit{
		Events: []model.Event{{EmitID: "e1", Data: []byte(`{}`)}},
		Route: func(ev model.Event) store.Routed {
			return store.Routed{Deliveries: []model.Delivery{{ListenerID: listener, EmitterID: "dc_a", EventID: ev.ID, Payload: []byte(`{}`)}}}
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
}

func deliveryOf(t *testing.T, st *store.Bolt, listener string) model.Delivery {
	t.Helper()
	pg, err := st.ListDeliveries(ctx, listener, model.Page{Limit: 10})
	if err != nil || len(pg.Items) != 1 {
		t.Fatalf("deliveries of %s: %+v, %v", listener, pg.Items, err)
	}
	return pg.Items[0]
}

func TestDelivererRetriesThenSettles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     []int
		webhook    *model.Webhook // nil: deleted after the event was routed
		want       string
		wantTries  int
		wantStatus []int
	}{
		{"delivered at once", nil, &model.Webhook{Active: true}, model.DeliveryDelivered, 1, []int{200}},
		{"retried after failures", []int{500, 0}, &model.Webhook{Active: true}, model.DeliveryDelivered, 3, []int{500, 0, 200}},
		{"failed after the last attempt", []int{500, 502, 503}, &model.Webhook{Active: true}, model.DeliveryFailed, 3, []int{500, 502, 503}},
		{"an inactive webhook gets nothing", nil, &model.Webhook{Active: false}, model.DeliveryFailed, 0, []int{0}},
		{"a deleted webhook gets nothing", nil, nil, model.DeliveryFailed, 0, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sender := &scriptedSender{script: tt.script}
			te := newTestEngine(t, func(c *Config) {
				c.MaxAttempts, c.RetryBase = 3, time.Second
				if tt.webhook == nil {
					c.Store = goneWebhooks{c.Store.(*store.Bolt)}
				}
				c.deliverySend = sender.send
			})
			h := model.Webhook{Active: true}
			if tt.webhook != nil {
				h = *tt.webhook
			}
			h.ID, h.OwnerID = "wh_1", "u_owner"
			if err := te.st.CreateWebhook(ctx, h); err != nil {
				t.Fatal(err)
			}
			queueDelivery(t, te.st, "wh_1")
			te.deliverer.Poke()
			waitFor(t, "the delivery to settle", func() bool {
				te.clock.Advance(time.Minute) // past any backoff
				return deliveryOf(t, te.st, "wh_1").Status != model.DeliveryPending
			})
			d := deliveryOf(t, te.st, "wh_1")
			if d.Status != tt.want || int(sender.attempts.Load()) != tt.wantTries || len(d.Attempts) != len(tt.wantStatus) {
				t.Fatalf("status %s after %d sends, attempts %+v; want %s after %d", d.Status, sender.attempts.Load(), d.Attempts, tt.want, tt.wantTries)
			}
			for i, a := range d.Attempts {
				if a.Status != tt.wantStatus[i] {
					t.Errorf("attempt %d status %d, want %d", i, a.Status, tt.wantStatus[i])
				}
			}
		})
	}
}

// goneWebhooks is a store whose webhooks have all just been deleted: the
// window between routing an event and its webhook's deletion.
type goneWebhooks struct{ *store.Bolt }

func (goneWebhooks) GetWebhook(context.Context, string) (model.Webhook, error) {
	return model.Webhook{}, model.ErrNotFound
}

func TestDelivererStop(t *testing.T) {
	t.Parallel()
	sender := &scriptedSender{}
	te := newTestEngine(t, func(c *Config) { c.deliverySend = sender.send })
	if err := te.st.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_owner", Active: true}); err != nil {
		t.Fatal(err)
	}
	queueDelivery(t, te.st, "wh_1")
	te.deliverer.Poke()
	waitFor(t, "a delivery while running", func() bool { return sender.attempts.Load() == 1 })
	te.deliverer.Stop()
	te.deliverer.Stop()
	queueDelivery(t, te.st, "dc_other") // a second delivery, to another listener
	if err := te.st.CreateWebhook(ctx, model.Webhook{ID: "wh_2", OwnerID: "u_owner", Active: true}); err != nil {
		t.Fatal(err)
	}
	queueDelivery(t, te.st, "wh_2")
	te.deliverer.Poke()
	te.clock.Advance(time.Minute)
	// Stop waited for the loop to end, so nothing is left to take the
	// poke or the tick; a loop that survived would send within this window.
	if wait.Poll(200*time.Millisecond, func() bool { return sender.attempts.Load() != 1 }) {
		t.Fatalf("%d sends after Stop", sender.attempts.Load()-1)
	}
	if d := deliveryOf(t, te.st, "wh_2"); d.Status != model.DeliveryPending {
		t.Errorf("a delivery was settled after Stop: %+v", d)
	}
}

// TestDeadWebhookIsDeactivated: failed deliveries in a row, spanning the
// minimum age, deactivate a webhook with a reason and an $errors event on
// the source; a delivery in between resets the count.
func TestDeadWebhookIsDeactivated(t *testing.T) {
	t.Parallel()
	sender := &scriptedSender{script: []int{500, 200, 500, 500, 500}}
	te := newTestEngine(t, func(c *Config) {
		c.MaxAttempts, c.RetryBase = 1, time.Second
		c.DisableWebhookAfter, c.DisableWebhookAge = 3, time.Hour
		c.deliverySend = sender.send
	})
	src := te.deploy(te.saveComponent("s", &fakeComponent{}), nil)
	if err := te.st.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_owner", URL: "https://h.example/", Active: true}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		inv, err := te.st.EnqueueInvocation(ctx, model.Invocation{TargetID: src.ID, Kind: kindManual})
		if err != nil {
			t.Fatal(err)
		}
		_, err = te.st.CompleteRuns(ctx, []store.CompletedRun{{Invocation: inv, Commit: store.RunCommit{
			Events: []model.Event{{EmitID: "e" + string(rune('a'+i)), Data: []byte(`{}`)}},
			Route: func(ev model.Event) store.Routed {
				return store.Routed{Deliveries: []model.Delivery{{ListenerID: "wh_1", EmitterID: src.ID, EventID: ev.ID, Payload: []byte(`{}`)}}}
			},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		te.deliverer.Poke()
		// The outcome is counted after the delivery settles, in a write
		// of its own: wait for both before the clock moves on.
		failuresAfter := []int{1, 0, 1, 2, 3}[i]
		waitFor(t, "the delivery to settle and count", func() bool {
			pg, err := te.st.ListDeliveries(ctx, "wh_1", model.Page{Limit: 10})
			if err != nil || len(pg.Items) != i+1 || pg.Items[0].Status == model.DeliveryPending {
				return false
			}
			h, err := te.st.GetWebhook(ctx, "wh_1")
			return err == nil && h.ConsecutiveFailures == failuresAfter
		})
		te.clock.Advance(40 * time.Minute)
	}
	h, err := te.st.GetWebhook(ctx, "wh_1")
	if err != nil {
		t.Fatal(err)
	}
	// 500 (1), 200 (reset), 500, 500, 500: three in a row over 80 minutes.
	if h.Active || h.ConsecutiveFailures != 3 || !strings.Contains(h.DisabledReason, "3 deliveries in a row failed") {
		t.Errorf("webhook %+v, want deactivated after 3 failures", h)
	}
	// The $errors event is stored after the delivery settles, in a
	// transaction of its own.
	var errs []model.Event
	waitFor(t, "the $errors event of the deactivation", func() bool {
		errs, err = te.st.ListEvents(ctx, src.ID, "$errors", 10)
		return err == nil && len(errs) > 0
	})
	if len(errs) != 1 || !strings.Contains(string(errs[0].Data), "wh_1") {
		t.Errorf("$errors of the source: %v", errs)
	}
}

// TestDeliveriesNameTheirListener: a delivery whose listener is gone
// fails naming what it was for: a webhook, or the workflow of a
// $.send.http or $.send.s3, by its kind, or for a delivery stored before
// deliveries named their kind, by its fields.
func TestDeliveriesNameTheirListener(t *testing.T) {
	t.Parallel()
	sender := &scriptedSender{}
	te := newTestEngine(t, func(c *Config) { c.deliverySend = sender.send })
	request := &model.DeliveryRequest{Method: "POST", URL: "https://example.com"}
	for _, c := range []struct {
		listener string
		d        model.Delivery
		want     string
	}{
		{"wh_gone", model.Delivery{Kind: model.DeliveryToWebhook}, "the webhook was deleted"},
		{"p_gone", model.Delivery{Kind: model.DeliverySendHTTP, Channel: "$send.http", Request: request}, "the workflow was deleted"},
		{"p_gone_s3", model.Delivery{Kind: model.DeliverySendS3, Channel: model.ChannelSendS3, Request: request}, "the workflow was deleted"},
		{"p_gone_older", model.Delivery{Channel: "$send.http", Request: request}, "the workflow was deleted"},
		{"wh_gone_older", model.Delivery{}, "the webhook was deleted"},
	} {
		d := c.d
		d.ListenerID, d.EmitterID, d.Payload = c.listener, "p_x", []byte(`{}`)
		if _, err := te.st.EnqueueDeliveries(ctx, []model.Delivery{d}); err != nil {
			t.Fatal(err)
		}
		te.deliverer.Poke()
		waitFor(t, "the delivery to "+c.listener+" to settle", func() bool {
			return deliveryOf(t, te.st, c.listener).Status != model.DeliveryPending
		})
		got := deliveryOf(t, te.st, c.listener)
		if got.Status != model.DeliveryFailed || len(got.Attempts) != 1 || got.Attempts[0].Error != c.want {
			t.Errorf("a delivery to %s, gone: %s %+v; want failed, %q", c.listener, got.Status, got.Attempts, c.want)
		}
	}
	if n := sender.attempts.Load(); n != 0 {
		t.Errorf("%d sends to listeners that are gone", n)
	}
	if k := (model.Delivery{Channel: model.ChannelSendS3, Request: request}).What(); k != model.DeliverySendS3 {
		t.Errorf("an older $.send.s3 delivery is %q", k)
	}
}
