package engine

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/store"
)

// goneWebhooks is a store whose webhooks have all just been deleted: the
// window between routing an event and the webhook's deletion.
type goneWebhooks struct {
	*store.Bolt
	lookups atomic.Int64
}

func (g *goneWebhooks) GetWebhook(context.Context, string) (store.Webhook, error) {
	g.lookups.Add(1)
	return store.Webhook{}, store.ErrNotFound
}

// TestDeliveryToADeletedWebhookStops: a delivery whose webhook is gone is
// marked failed once, not retried in a tight loop.
func TestDeliveryToADeletedWebhookStops(t *testing.T) {
	ctx := context.Background()
	b, err := store.OpenBolt(filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CreateWebhook(ctx, store.Webhook{ID: "wh_x", OwnerID: "u_1", URL: "https://example.com", Active: true, SigningSecret: "whsec_AAAA"}); err != nil {
		t.Fatal(err)
	}
	inv, _ := b.EnqueueInvocation(ctx, store.Invocation{SourceID: "dc_a", Kind: kindManual})
	_, err = b.CompleteRuns(ctx, []store.CompletedRun{{Invocation: inv, Commit: store.RunCommit{
		Events: []store.Event{{EmitID: "e1", Data: []byte(`{}`)}},
		Route: func(ev store.Event) store.Routed {
			return store.Routed{Deliveries: []store.Delivery{{ListenerID: "wh_x", EmitterID: "dc_a", EventID: ev.ID, Payload: []byte(`{}`)}}}
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	g := &goneWebhooks{Bolt: b}
	e := New(Config{Store: g, Queues: b})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	e.Stop()
	if n := g.lookups.Load(); n < 1 || n > 3 {
		t.Fatalf("%d webhook lookups for one orphaned delivery; want it settled at the first", n)
	}
	pg, err := b.ListDeliveries(ctx, "wh_x", store.Page{Limit: 10})
	if err != nil || len(pg.Items) != 1 || pg.Items[0].Status != store.DeliveryFailed {
		t.Fatalf("delivery = %+v, %v; want failed", pg.Items, err)
	}
}
