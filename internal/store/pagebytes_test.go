package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// TestPagesBoundedInBytes: with MaxBytes, a page of large records ends
// early and keeps the records nearest its cursor, so that paging on from
// its end (forwards) or its start (backwards) returns every record once,
// in order.
func TestPagesBoundedInBytes(t *testing.T) {
	t.Parallel()
	const n, size, perPage = 9, 2000, 3
	big := strings.Repeat("x", size)
	eachBackend(t, func(t *testing.T, b testStore) {
		var sources, webhooks []string
		for i := range n {
			s := source(fmt.Sprint("dc_", i), "u_a", fmt.Sprint("s", i))
			s.Name = big
			wantErr(t, "CreateSource", createSource(ctx, b, s), nil)
			sources = append(sources, s.ID)
			w := model.Webhook{ID: fmt.Sprint("wh_", i), OwnerID: "u_a", Description: &big}
			wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, w), nil)
			webhooks = append(webhooks, w.ID)
		}
		deliveries := routeDeliveries(t, b, "wh_0", n, big)
		// Each record is size bytes and at most 400 more: perPage of them fit.
		maxBytes := perPage * (size + 400)
		lists := []struct {
			name string
			list lister
			want []string
		}{
			{"sources", sourceLister(b, "u_a"), sources},
			{"webhooks", webhookLister(b, "u_a"), webhooks},
			{"deliveries", deliveryLister(b, "wh_0"), deliveries},
		}
		for _, l := range lists {
			t.Run(l.name, func(t *testing.T) {
				t.Parallel()
				all := mustPage(t, l.list, Page{Limit: 100}, n)
				if !slices.Equal(all.ids, l.want) {
					t.Fatalf("the whole list = %v, want %v", all.ids, l.want)
				}
				var forward []string
				for p := (Page{Limit: 100, MaxBytes: maxBytes}); ; {
					pg := mustPage(t, l.list, p, n)
					if len(pg.ids) == 0 {
						break
					}
					if len(pg.ids) != perPage {
						t.Fatalf("page after %q holds %d records, want %d", p.After, len(pg.ids), perPage)
					}
					forward = append(forward, pg.ids...)
					p.After = pg.end
				}
				if !slices.Equal(forward, l.want) {
					t.Fatalf("forwards = %v, want %v", forward, l.want)
				}
				backward := []string{l.want[n-1]}
				for p := (Page{Limit: 100, MaxBytes: maxBytes, Before: all.cursors[n-1]}); ; {
					pg := mustPage(t, l.list, p, n)
					if len(pg.ids) == 0 {
						break
					}
					backward = append(slices.Clone(pg.ids), backward...)
					p.Before = pg.start
				}
				if !slices.Equal(backward, l.want) {
					t.Fatalf("backwards = %v, want %v", backward, l.want)
				}
				one := mustPage(t, l.list, Page{Limit: 100, MaxBytes: 1}, n)
				if len(one.ids) != 1 {
					t.Errorf("a budget below one record gave %d records, want 1", len(one.ids))
				}
			})
		}
	})
}

// routeDeliveries stores n events of emitter dc_r, each delivered to
// listener with data as its payload, and returns the deliveries' ids
// newest first, as ListDeliveries lists them.
func routeDeliveries(t *testing.T, b testStore, listener string, n int, data string) []string {
	t.Helper()
	payload, _ := json.Marshal(data)
	route := func(ev model.Event) Routed {
		return Routed{Deliveries: []model.Delivery{{ListenerID: listener, EmitterID: ev.EmitterID, EventID: ev.ID, Payload: payload}}}
	}
	s := source("dc_r", "u_r", "r")
	events := make([]model.Event, n)
	for i := range events {
		events[i] = model.Event{EmitID: fmt.Sprint(i), Data: json.RawMessage(`{}`)}
	}
	if _, _, err := b.CreateSource(ctx, s, RunCommit{Events: events, Keep: n, Route: route}); err != nil {
		t.Fatal(err)
	}
	pg, err := b.ListDeliveries(ctx, listener, Page{Limit: 100})
	if err != nil || len(pg.Items) != n {
		t.Fatalf("ListDeliveries: %d items, %v", len(pg.Items), err)
	}
	var ids []string
	for _, d := range pg.Items {
		ids = append(ids, d.ID)
	}
	return ids
}
