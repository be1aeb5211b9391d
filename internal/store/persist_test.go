package store

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestReopenKeepsEverything(t *testing.T) {
	t.Parallel()
	eachReopenable(t, checkReopenKeepsEverything)
}

// checkReopenKeepsEverything is TestReopenKeepsEverything on one backend.
func checkReopenKeepsEverything(t *testing.T, open func() testStore) {
	b := open()
	withClock(b, 9000)
	mustFixtureComponent(t, b)
	steps := []struct {
		name string
		err  error
	}{
		{"user", b.CreateUser(ctx, model.User{ID: "u_a", Username: "ann"}, "hash-a")},
		{"key", b.AddKeyHash(ctx, "u_a", "hash-a2")},
		{"org", b.CreateOrg(ctx, model.Org{ID: "o_1", Members: []string{"u_a"}})},
		{"component", createComponent(ctx, b, model.Component{ID: "sc_1", OwnerID: "u_a", Key: "k"})},
		{"source 1", createSource(ctx, b, source("dc_1", "u_a", "one"))},
		{"source 2", createSource(ctx, b, source("dc_2", "u_a", "two"))},
		{"webhook", b.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_a"})},
		{"db", b.DBSet(ctx, "dc_1", "k", []byte(`true`))},
	}
	for _, s := range steps {
		if s.err != nil {
			t.Fatalf("%s: %v", s.name, s.err)
		}
	}
	if _, err := b.PutSubscription(ctx, model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "wh_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutAutoSubscription(ctx, model.AutoSubscription{ID: "sub_2", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, "dc_1", evs("", 3), 0)
	firstPage, err := b.ListSources(ctx, "u_a", Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b = open()
	withClock(b, 9000)

	if u, err := b.UserByKeyHash(ctx, "hash-a2"); err != nil || u.Username != "ann" {
		t.Errorf("user by key after reopen: %+v, %v", u, err)
	}
	if n, _ := b.CountUsers(ctx); n != 1 {
		t.Errorf("CountUsers after reopen = %d", n)
	}
	if orgs, _ := b.OrgsOfUser(ctx, "u_a"); len(orgs) != 1 || orgs[0].ID != "o_1" {
		t.Errorf("OrgsOfUser after reopen = %+v", orgs)
	}
	if c, err := b.ComponentByKey(ctx, "u_a", "k"); err != nil || c.ID != "sc_1" {
		t.Errorf("ComponentByKey after reopen = %+v, %v", c, err)
	}
	if taken, _ := b.SlugTaken(ctx, "u_a", "two"); !taken {
		t.Error("slug lost on reopen")
	}
	// A cursor from before the reopen still works.
	next, err := b.ListSources(ctx, "u_a", Page{Limit: 1, After: firstPage.EndCursor})
	if err != nil || len(next.Items) != 1 || next.Items[0].ID != "dc_2" {
		t.Errorf("page after reopen = %+v, %v", next, err)
	}
	if hooks, _ := b.ListWebhooks(ctx, "u_a", Page{}); len(hooks.Items) != 1 {
		t.Errorf("webhooks after reopen = %+v", hooks)
	}
	if subs, _ := b.ListSubscriptions(ctx, "u_a"); len(subs) != 1 || subs[0].ID != "sub_1" {
		t.Errorf("subscriptions after reopen = %+v", subs)
	}
	if autos, _ := b.ListAutoSubscriptions(ctx, "u_a"); len(autos) != 1 {
		t.Errorf("auto-subscriptions after reopen = %+v", autos)
	}
	if v, found, _ := b.DBGet(ctx, "dc_1", "k"); !found || string(v) != "true" {
		t.Errorf("db after reopen = %q, %v", v, found)
	}
	if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "", 0))); !slices.Equal(ids, []string{"9000-2", "9000-1", "9000-0"}) {
		t.Errorf("events after reopen = %v", ids)
	}
	// The id clock survived: the same millisecond continues the sequence.
	if next := mustAppend(t, b, "dc_1", evs("$logs", 1), 0); next[0].ID != "9000-3" {
		t.Errorf("id after reopen = %s, want 9000-3", next[0].ID)
	}
}
