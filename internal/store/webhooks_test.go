package store

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestWebhooks(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		name := "alerts"
		want := model.Webhook{ID: "wh_1", OwnerID: "u_a", UserID: "u_a", Name: &name, URL: "https://example.com/hook",
			Active: true, SigningSecret: "whsec_x", CreatedAt: 1, UpdatedAt: 2}
		tests := []struct {
			name string
			w    model.Webhook
			want error
		}{
			{"new", want, nil},
			{"id taken", model.Webhook{ID: "wh_1", OwnerID: "u_b"}, ErrConflict},
			{"empty id", model.Webhook{OwnerID: "u_a"}, errAny},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := b.CreateWebhook(ctx, tt.w)
				if tt.want == errAny {
					if err == nil {
						t.Fatal("CreateWebhook succeeded")
					}
					return
				}
				wantErr(t, "CreateWebhook", err, tt.want)
			})
		}
		got, err := b.GetWebhook(ctx, "wh_1")
		wantErr(t, "GetWebhook", err, nil)
		if got.ID != want.ID || got.Name == nil || *got.Name != name || got.Description != nil || got.URL != want.URL ||
			got.SigningSecret != want.SigningSecret || got.UpdatedAt != 2 {
			t.Errorf("GetWebhook = %+v, want %+v", got, want)
		}
		_, err = b.GetWebhook(ctx, "wh_zz")
		wantErr(t, "GetWebhook unknown", err, ErrNotFound)
	})
}

// errAny marks a test case that expects some error.
var errAny = fmt.Errorf("any error")

func TestListWebhooksPagination(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		var ids []string
		for i := range 11 {
			id := fmt.Sprintf("wh_%02d", i)
			wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: id, OwnerID: "o_1"}), nil)
			ids = append(ids, id)
			wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: id + "x", OwnerID: "o_2"}), nil)
		}
		checkPagination(t, webhookLister(b, "o_1"), ids)
		other, _ := b.ListWebhooks(ctx, "o_2", Page{})
		checkBadCursors(t, webhookLister(b, "o_1"), other.StartCursor)
		checkPagination(t, webhookLister(b, "o_3"), nil)
	})
}

func TestDeleteWebhook(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, id := range []string{"wh_1", "wh_2"} {
			wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: id, OwnerID: "u_a"}), nil)
		}
		for _, s := range []model.Subscription{
			{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "wh_1"},
			{ID: "sub_2", OwnerID: "u_a", EmitterID: "dc_*", ListenerID: "wh_1", EventName: "$errors"},
			{ID: "sub_3", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "wh_2"},
			{ID: "sub_4", OwnerID: "u_a", EmitterID: "wh_1", ListenerID: "dc_9"}, // not a listener: kept
		} {
			if _, err := b.PutSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range []model.AutoSubscription{
			{ID: "sub_a1", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors"},
			{ID: "sub_a2", OwnerID: "u_a", ListenerID: "wh_2", EventName: "$errors"},
		} {
			if _, err := b.PutAutoSubscription(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		wantErr(t, "DeleteWebhook", b.DeleteWebhook(ctx, "wh_1"), nil)
		wantErr(t, "DeleteWebhook again", b.DeleteWebhook(ctx, "wh_1"), ErrNotFound)
		_, err := b.GetWebhook(ctx, "wh_1")
		wantErr(t, "GetWebhook deleted", err, ErrNotFound)
		checkPagination(t, webhookLister(b, "u_a"), []string{"wh_2"})
		list, _ := b.ListSubscriptions(ctx, "u_a")
		if got := subIDs(list); !slices.Equal(got, []string{"sub_3", "sub_4"}) {
			t.Errorf("subscriptions after DeleteWebhook = %v, want [sub_3 sub_4]", got)
		}
		autos, _ := b.ListAutoSubscriptions(ctx, "u_a")
		if len(autos) != 1 || autos[0].ID != "sub_a2" {
			t.Errorf("auto-subscriptions after DeleteWebhook = %+v", autos)
		}
	})
}
