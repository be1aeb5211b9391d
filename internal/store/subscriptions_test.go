package store

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func subIDs(list []model.Subscription) []string {
	ids := []string{}
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestPutSubscription(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		tests := []struct {
			name   string
			in     model.Subscription
			wantID string // the id returned
			want   error
		}{
			{"new", model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", CreatedAt: 10}, "sub_1", nil},
			{"identical returns existing", model.Subscription{ID: "sub_9", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", CreatedAt: 99}, "sub_1", nil},
			{"other event name", model.Subscription{ID: "sub_2", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", EventName: "$errors"}, "sub_2", nil},
			{"other owner", model.Subscription{ID: "sub_3", OwnerID: "o_x", EmitterID: "dc_1", ListenerID: "dc_2"}, "sub_3", nil},
			{"glob emitter", model.Subscription{ID: "sub_4", OwnerID: "u_a", EmitterID: "dc_*", ListenerID: "wh_1"}, "sub_4", nil},
			{"reversed", model.Subscription{ID: "sub_5", OwnerID: "u_a", EmitterID: "dc_2", ListenerID: "dc_1"}, "sub_5", nil},
			{"id taken by another", model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_7", ListenerID: "dc_8"}, "", ErrConflict},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := b.PutSubscription(ctx, tt.in)
				wantErr(t, "PutSubscription", err, tt.want)
				if got.ID != tt.wantID {
					t.Errorf("PutSubscription = %q, want %q", got.ID, tt.wantID)
				}
			})
		}
		if _, err := b.PutSubscription(ctx, model.Subscription{}); err == nil {
			t.Error("PutSubscription with an empty id succeeded")
		}
		// The existing record came back unchanged.
		again, _ := b.PutSubscription(ctx, model.Subscription{ID: "sub_x", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", CreatedAt: 5})
		want := model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", CreatedAt: 10}
		if again != want {
			t.Errorf("idempotent put = %+v, want %+v", again, want)
		}
		list, err := b.ListSubscriptions(ctx, "u_a")
		wantErr(t, "ListSubscriptions", err, nil)
		if got := subIDs(list); !slices.Equal(got, []string{"sub_1", "sub_2", "sub_4", "sub_5"}) {
			t.Errorf("ListSubscriptions(u_a) = %v", got)
		}
		if list[0] != want {
			t.Errorf("listed %+v, want %+v", list[0], want)
		}
		if list, _ := b.ListSubscriptions(ctx, "u_none"); list == nil || len(list) != 0 {
			t.Errorf("ListSubscriptions of nobody = %#v, want empty", list)
		}
	})
}

func TestDeleteSubscription(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, s := range []model.Subscription{
			{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2"},
			{ID: "sub_2", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2", EventName: "$logs"},
			{ID: "sub_3", OwnerID: "u_a", EmitterID: "dc_2", ListenerID: "dc_3"},
		} {
			if _, err := b.PutSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name                              string
			owner, emitter, listener, evtName string
			want                              error
			left                              []string
		}{
			{"wrong owner", "u_b", "dc_1", "dc_2", "", ErrNotFound, []string{"sub_1", "sub_2", "sub_3"}},
			{"wrong event", "u_a", "dc_1", "dc_2", "$errors", ErrNotFound, []string{"sub_1", "sub_2", "sub_3"}},
			{"default channel", "u_a", "dc_1", "dc_2", "", nil, []string{"sub_2", "sub_3"}},
			{"again", "u_a", "dc_1", "dc_2", "", ErrNotFound, []string{"sub_2", "sub_3"}},
			{"named channel", "u_a", "dc_1", "dc_2", "$logs", nil, []string{"sub_3"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, "DeleteSubscription", b.DeleteSubscription(ctx, tt.owner, tt.emitter, tt.listener, tt.evtName), tt.want)
				list, _ := b.ListSubscriptions(ctx, "u_a")
				if got := subIDs(list); !slices.Equal(got, tt.left) {
					t.Errorf("left %v, want %v", got, tt.left)
				}
			})
		}
		// A deleted tuple can be subscribed again, and goes to the end.
		got, err := b.PutSubscription(ctx, model.Subscription{ID: "sub_4", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2"})
		wantErr(t, "PutSubscription after delete", err, nil)
		if got.ID != "sub_4" {
			t.Errorf("resubscribe returned %q", got.ID)
		}
		list, _ := b.ListSubscriptions(ctx, "u_a")
		if ids := subIDs(list); !slices.Equal(ids, []string{"sub_3", "sub_4"}) {
			t.Errorf("after resubscribe %v", ids)
		}
	})
}

func TestAutoSubscriptions(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		tests := []struct {
			name   string
			in     model.AutoSubscription
			wantID string
			want   error
		}{
			{"new", model.AutoSubscription{ID: "sub_1", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors", CreatedAt: 1}, "sub_1", nil},
			{"identical", model.AutoSubscription{ID: "sub_9", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors", CreatedAt: 2}, "sub_1", nil},
			{"other event", model.AutoSubscription{ID: "sub_2", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$logs"}, "sub_2", nil},
			{"other owner", model.AutoSubscription{ID: "sub_3", OwnerID: "o_x", ListenerID: "wh_1", EventName: "$errors"}, "sub_3", nil},
			{"other listener", model.AutoSubscription{ID: "sub_4", OwnerID: "u_a", ListenerID: "dc_1", EventName: "$errors"}, "sub_4", nil},
			{"id taken", model.AutoSubscription{ID: "sub_2", OwnerID: "u_a", ListenerID: "dc_9", EventName: "$logs"}, "", ErrConflict},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := b.PutAutoSubscription(ctx, tt.in)
				wantErr(t, "PutAutoSubscription", err, tt.want)
				if got.ID != tt.wantID {
					t.Errorf("PutAutoSubscription = %q, want %q", got.ID, tt.wantID)
				}
			})
		}
		if _, err := b.PutAutoSubscription(ctx, model.AutoSubscription{}); err == nil {
			t.Error("PutAutoSubscription with an empty id succeeded")
		}
		list, err := b.ListAutoSubscriptions(ctx, "u_a")
		wantErr(t, "ListAutoSubscriptions", err, nil)
		var ids []string
		for _, a := range list {
			ids = append(ids, a.ID)
		}
		if !slices.Equal(ids, []string{"sub_1", "sub_2", "sub_4"}) {
			t.Errorf("ListAutoSubscriptions(u_a) = %v", ids)
		}
		if list[0].CreatedAt != 1 {
			t.Errorf("identical put changed the record: %+v", list[0])
		}
		if list, _ := b.ListAutoSubscriptions(ctx, "u_none"); list == nil || len(list) != 0 {
			t.Errorf("ListAutoSubscriptions of nobody = %#v, want empty", list)
		}
	})
}
