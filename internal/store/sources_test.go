package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func source(id, owner, slug string) model.Source {
	return model.Source{ID: id, OwnerID: owner, UserID: "u_a", ComponentID: "sc_fixture", Name: slug, NameSlug: slug,
		ConfiguredProps: map[string]json.RawMessage{"url": json.RawMessage(`"https://example.com"`)}, Active: true, CreatedAt: 1, UpdatedAt: 1}
}

func TestCreateAndGetSource(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		want := source("dc_1", "u_a", "rss")
		wantErr(t, "CreateSource", createSource(ctx, b, want), nil)
		tests := []struct {
			name string
			s    model.Source
			want error
		}{
			{"slug taken for the owner", source("dc_2", "u_a", "rss"), ErrConflict},
			{"same slug, other owner", source("dc_3", "o_x", "rss"), nil},
			{"id taken", source("dc_1", "u_a", "rss-2"), ErrConflict},
			{"other slug", source("dc_4", "u_a", "rss-2"), nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, "CreateSource", createSource(ctx, b, tt.s), tt.want)
			})
		}
		if err := createSource(ctx, b, model.Source{}); err == nil {
			t.Error("CreateSource with an empty id succeeded")
		}
		got, err := b.GetSource(ctx, "dc_1")
		wantErr(t, "GetSource", err, nil)
		want.Order = 1 // the first thing created
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetSource = %+v, want %+v", got, want)
		}
		_, err = b.GetSource(ctx, "dc_2")
		wantErr(t, "GetSource of a refused source", err, ErrNotFound)
		checkPagination(t, sourceLister(b, "u_a"), []string{"dc_1", "dc_4"})

		slugTests := []struct {
			owner, slug string
			want        bool
		}{
			{"u_a", "rss", true},
			{"u_a", "rss-2", true},
			{"o_x", "rss", true},
			{"o_x", "rss-2", false},
			{"u_b", "rss", false},
			{"u_a", "", false},
		}
		for _, tt := range slugTests {
			got, err := b.SlugTaken(ctx, tt.owner, tt.slug)
			wantErr(t, "SlugTaken", err, nil)
			if got != tt.want {
				t.Errorf("SlugTaken(%s, %q) = %v, want %v", tt.owner, tt.slug, got, tt.want)
			}
		}
	})
}

func TestUpdateSource(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, s := range []model.Source{source("dc_1", "u_a", "one"), source("dc_2", "u_a", "two"), source("dc_3", "u_b", "three")} {
			wantErr(t, "CreateSource", createSource(ctx, b, s), nil)
		}
		renamed := source("dc_1", "u_a", "uno")
		renamed.Active = false
		tests := []struct {
			name string
			s    model.Source
			want error
		}{
			{"same slug, new props", func() model.Source { s := source("dc_1", "u_a", "one"); s.Name = "One!"; return s }(), nil},
			{"slug taken by another", source("dc_1", "u_a", "two"), ErrConflict},
			{"new slug", renamed, nil},
			{"unknown source", source("dc_zz", "u_a", "zz"), ErrNotFound},
			{"slug of another owner is free", source("dc_2", "u_a", "three"), nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, "UpdateSource", updateSource(ctx, b, tt.s), tt.want)
			})
		}
		if err := updateSource(ctx, b, source("dc_3", "u_a", "three")); err == nil {
			t.Error("UpdateSource moved a source to another owner")
		}
		got, _ := b.GetSource(ctx, "dc_1")
		renamed.Order = 1 // kept from the create
		if !reflect.DeepEqual(got, renamed) {
			t.Errorf("after updates dc_1 = %+v, want %+v", got, renamed)
		}
		slugs := []struct {
			owner, slug string
			want        bool
		}{
			{"u_a", "one", false}, // released by the rename
			{"u_a", "uno", true},
			{"u_a", "two", false},
			{"u_a", "three", true},
			{"u_b", "three", true},
		}
		for _, tt := range slugs {
			if got, _ := b.SlugTaken(ctx, tt.owner, tt.slug); got != tt.want {
				t.Errorf("SlugTaken(%s, %s) = %v, want %v", tt.owner, tt.slug, got, tt.want)
			}
		}
		// The released slug is free for a new source; the updated ones stay
		// in creation order.
		wantErr(t, "CreateSource on released slug", createSource(ctx, b, source("dc_4", "u_a", "one")), nil)
		checkPagination(t, sourceLister(b, "u_a"), []string{"dc_1", "dc_2", "dc_4"})
	})
}

func TestListSourcesPagination(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		var mine, theirs []string
		for i := range 12 {
			id := fmt.Sprintf("dc_a%02d", i)
			wantErr(t, "CreateSource", createSource(ctx, b, source(id, "u_a", id)), nil)
			mine = append(mine, id)
			if i%3 == 0 { // interleave another owner's sources
				id := fmt.Sprintf("dc_b%02d", i)
				wantErr(t, "CreateSource", createSource(ctx, b, source(id, "u_ab", id)), nil)
				theirs = append(theirs, id)
			}
		}
		t.Run("owner u_a", func(t *testing.T) { checkPagination(t, sourceLister(b, "u_a"), mine) })
		t.Run("owner u_ab", func(t *testing.T) { checkPagination(t, sourceLister(b, "u_ab"), theirs) })
		t.Run("empty owner", func(t *testing.T) { checkPagination(t, sourceLister(b, "u_none"), nil) })

		pg, err := b.ListSources(ctx, "u_none", Page{})
		wantErr(t, "ListSources", err, nil)
		if pg.Items == nil || len(pg.Items) != 0 || pg.TotalCount != 0 {
			t.Errorf("empty list = %+v, want non-nil empty items", pg)
		}

		// Deleting the item a cursor points at keeps the cursor usable.
		all, _ := b.ListSources(ctx, "u_a", Page{Limit: 100})
		cur := all.Cursors[4]
		wantErr(t, "DeleteSource", deleteSource(ctx, b, mine[4]), nil)
		mine = slices.Delete(mine, 4, 5)
		after, err := b.ListSources(ctx, "u_a", Page{Limit: 2, After: cur})
		wantErr(t, "ListSources after a deleted cursor", err, nil)
		if ids := idsOf(after.Items); !slices.Equal(ids, mine[4:6]) || after.TotalCount != 11 {
			t.Errorf("after deleted cursor = %v (total %d), want %v (11)", ids, after.TotalCount, mine[4:6])
		}
		before, err := b.ListSources(ctx, "u_a", Page{Limit: 2, Before: cur})
		wantErr(t, "ListSources before a deleted cursor", err, nil)
		if ids := idsOf(before.Items); !slices.Equal(ids, mine[2:4]) {
			t.Errorf("before deleted cursor = %v, want %v", ids, mine[2:4])
		}
		t.Run("after delete", func(t *testing.T) { checkPagination(t, sourceLister(b, "u_a"), mine) })

		// Before the deleted last item of the list whose keys sort last.
		theirAll, _ := b.ListSources(ctx, "u_ab", Page{Limit: 100})
		last := len(theirs) - 1
		wantErr(t, "DeleteSource", deleteSource(ctx, b, theirs[last]), nil)
		before, err = b.ListSources(ctx, "u_ab", Page{Limit: 2, Before: theirAll.Cursors[last]})
		wantErr(t, "ListSources before a deleted last cursor", err, nil)
		if ids := idsOf(before.Items); !slices.Equal(ids, theirs[last-2:last]) {
			t.Errorf("before deleted last cursor = %v, want %v", ids, theirs[last-2:last])
		}

		// Cursors of another owner's list or of webhooks are refused.
		other, _ := b.ListSources(ctx, "u_ab", Page{Limit: 1})
		checkBadCursors(t, sourceLister(b, "u_a"), other.EndCursor)
		wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_a"}), nil)
		hooks, _ := b.ListWebhooks(ctx, "u_a", Page{})
		checkBadCursors(t, sourceLister(b, "u_a"), hooks.EndCursor)
	})
}

func idsOf(sources []model.Source) []string {
	ids := []string{}
	for _, s := range sources {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestDeleteSourceCascade(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, s := range []model.Source{source("dc_1", "u_a", "one"), source("dc_2", "u_a", "two"), source("dc_3", "u_a", "three")} {
			wantErr(t, "CreateSource", createSource(ctx, b, s), nil)
		}
		wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_a"}), nil)
		subs := []model.Subscription{
			{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_2"}, // dc_1 emits
			{ID: "sub_2", OwnerID: "u_a", EmitterID: "dc_2", ListenerID: "dc_1"}, // dc_1 listens
			{ID: "sub_3", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "dc_1"}, // both ends
			{ID: "sub_4", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "wh_1", EventName: "$errors"},
			{ID: "sub_5", OwnerID: "u_a", EmitterID: "dc_2", ListenerID: "dc_3"}, // untouched
			{ID: "sub_6", OwnerID: "u_a", EmitterID: "dc_*", ListenerID: "wh_1"}, // untouched
			{ID: "sub_7", OwnerID: "u_b", EmitterID: "dc_3", ListenerID: "dc_2"}, // untouched
		}
		for _, s := range subs {
			if _, err := b.PutSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range []model.AutoSubscription{
			{ID: "sub_a1", OwnerID: "u_a", ListenerID: "dc_1", EventName: "$errors"},
			{ID: "sub_a2", OwnerID: "u_a", ListenerID: "dc_2", EventName: "$errors"},
		} {
			if _, err := b.PutAutoSubscription(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []string{"dc_1", "dc_2"} {
			for _, ch := range []string{"", "$logs"} {
				if _, err := b.AppendEvents(ctx, id, []model.Event{{Name: ch, Data: json.RawMessage(`1`)}}, 0); err != nil {
					t.Fatal(err)
				}
			}
			wantErr(t, "DBSet", b.DBSet(ctx, id, "k", []byte(`"v"`)), nil)
		}

		wantErr(t, "DeleteSource", deleteSource(ctx, b, "dc_1"), nil)
		wantErr(t, "DeleteSource again", deleteSource(ctx, b, "dc_1"), ErrNotFound)

		_, err := b.GetSource(ctx, "dc_1")
		wantErr(t, "GetSource deleted", err, ErrNotFound)
		if taken, _ := b.SlugTaken(ctx, "u_a", "one"); taken {
			t.Error("slug of the deleted source is still taken")
		}
		checkPagination(t, sourceLister(b, "u_a"), []string{"dc_2", "dc_3"})

		gotSubs := func(owner string) []string {
			list, err := b.ListSubscriptions(ctx, owner)
			wantErr(t, "ListSubscriptions", err, nil)
			var ids []string
			for _, s := range list {
				ids = append(ids, s.ID)
			}
			return ids
		}
		if got := gotSubs("u_a"); !slices.Equal(got, []string{"sub_5", "sub_6"}) {
			t.Errorf("subscriptions of u_a = %v, want [sub_5 sub_6]", got)
		}
		if got := gotSubs("u_b"); !slices.Equal(got, []string{"sub_7"}) {
			t.Errorf("subscriptions of u_b = %v, want [sub_7]", got)
		}
		wantErr(t, "DeleteSubscription of a cascaded one",
			b.DeleteSubscription(ctx, "u_a", "dc_1", "dc_2", ""), ErrNotFound)
		autos, _ := b.ListAutoSubscriptions(ctx, "u_a")
		if len(autos) != 1 || autos[0].ID != "sub_a2" {
			t.Errorf("auto-subscriptions = %+v, want only sub_a2", autos)
		}

		for _, ch := range []string{"", "$logs"} {
			if evs, _ := b.ListEvents(ctx, "dc_1", ch, 0); len(evs) != 0 {
				t.Errorf("dc_1 channel %q still has %d events", ch, len(evs))
			}
			if evs, _ := b.ListEvents(ctx, "dc_2", ch, 0); len(evs) != 1 {
				t.Errorf("dc_2 channel %q has %d events, want 1", ch, len(evs))
			}
		}
		if _, found, _ := b.DBGet(ctx, "dc_1", "k"); found {
			t.Error("db of the deleted source survives")
		}
		if v, found, _ := b.DBGet(ctx, "dc_2", "k"); !found || string(v) != `"v"` {
			t.Errorf("db of dc_2 = %q, %v", v, found)
		}
		// The deleted emitter's id clock is gone too.
		if hasEventClock(t, b, "dc_1") {
			t.Error("event clock of dc_1 survives")
		}
	})
}
