package store

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// mustDeliver creates d at clock nowMs as CompleteRun's routing does and
// returns the stored delivery.
func mustDeliver(t *testing.T, st testStore, nowMs int64, d model.Delivery) model.Delivery {
	t.Helper()
	in := d
	err := st.(kv.Engine).Update(ctx, func(tx kv.Tx) error {
		var err error
		d, err = tx.CreateDelivery(nowMs, in)
		return err
	})
	if err != nil {
		t.Fatalf("createDelivery: %v", err)
	}
	return d
}

func deliveryIDs(list []model.Delivery) []string {
	ids := []string{}
	for _, d := range list {
		ids = append(ids, d.ID)
	}
	return ids
}

// deliveryRecords counts the deliveries stored, with their index
// entries: bbolt's index buckets must hold as many keys as the records.
func deliveryRecords(t *testing.T, st testStore) int {
	t.Helper()
	n, err := beneathOf(st).DeliveryRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dueIndex returns every pending delivery due at nowMs, in due index
// order (listener, then due order): what DueDeliveries serves from.
func dueIndex(t *testing.T, st testStore, nowMs int64) []model.Delivery {
	t.Helper()
	out, err := beneathOf(st).DueIndex(ctx, nowMs)
	if err != nil {
		t.Fatalf("read the due index: %v", err)
	}
	return out
}

func TestDueDeliveries(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) { checkDueDeliveries(t, b) })
}

// checkDueDeliveries is TestDueDeliveries on one store b.
func checkDueDeliveries(t *testing.T, b testStore) {
	// Created in this order (ids 1..5) with these next attempts.
	next := []int64{300, 100, 200, 100, 500}
	var ds []model.Delivery
	for i, n := range next {
		ds = append(ds, mustDeliver(t, b, 50, model.Delivery{ListenerID: "wh_1", EventID: fmt.Sprint("e", i), NextAttemptMs: n,
			Payload: json.RawMessage(`{}`)}))
	}
	if d := ds[0]; d.ID == "" || d.Status != model.DeliveryPending || d.CreatedAtMs != 50 || d.Attempts == nil {
		t.Fatalf("created delivery = %+v", d)
	}
	// The ids' form is the backend's: the test names deliveries by their
	// creation order, "1" to "5".
	label := map[string]string{}
	for i, d := range ds {
		label[d.ID] = fmt.Sprint(i + 1)
	}
	labels := func(ds []model.Delivery) []string {
		out := []string{}
		for _, d := range ds {
			out = append(out, label[d.ID])
		}
		return out
	}
	dueTests := []struct {
		name      string
		now       int64
		wantFirst []string // DueDeliveries: the listener's earliest due only
		wantIndex []string // the whole index up to now
	}{
		{"by next attempt then id", 250, []string{"2"}, []string{"2", "4", "3"}},
		{"exactly due", 100, []string{"2"}, []string{"2", "4"}},
		{"nothing due yet", 99, []string{}, []string{}},
		{"negative now", -1, []string{}, []string{}},
		{"all", 1000, []string{"2"}, []string{"2", "4", "3", "1", "5"}},
	}
	for _, tt := range dueTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.DueDeliveries(ctx, tt.now, "", 0, nil)
			wantErr(t, "DueDeliveries", err, nil)
			if !slices.Equal(labels(got), tt.wantFirst) {
				t.Errorf("DueDeliveries(%d) = %v, want %v", tt.now, labels(got), tt.wantFirst)
			}
			if got := labels(dueIndex(t, b, tt.now)); !slices.Equal(got, tt.wantIndex) {
				t.Errorf("due index up to %d = %v, want %v", tt.now, got, tt.wantIndex)
			}
		})
	}

	// Deliver 2, fail 3, retry 4 later with an attempt recorded.
	updates := []model.Delivery{ds[1], ds[2], ds[3]}
	updates[0].Status = model.DeliveryDelivered
	updates[1].Status = model.DeliveryFailed
	updates[2].NextAttemptMs = 400
	updates[2].Attempts = []model.Attempt{{AtMs: 100, Status: 500, DurationMs: 3}}
	for _, d := range updates {
		wantErr(t, "UpdateDelivery "+d.ID, b.UpdateDelivery(ctx, d), nil)
	}
	if got := labels(dueIndex(t, b, 1000)); !slices.Equal(got, []string{"1", "4", "5"}) {
		t.Errorf("due after updates = %v, want [1 4 5]", got)
	}
	if got := labels(must(b.DueDeliveries(ctx, 350, "", 0, nil))); !slices.Equal(got, []string{"1"}) {
		t.Errorf("due at 350 = %v, want [1]", got)
	}
	// The due index holds the pending deliveries only.
	if n := len(dueIndex(t, b, math.MaxInt64)); n != 3 {
		t.Errorf("due index has %d entries, want 3", n)
	}
	// The record was replaced.
	all := must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 100}))
	byID := map[string]model.Delivery{}
	for _, d := range all.Items {
		byID[label[d.ID]] = d
	}
	if d := byID["4"]; len(d.Attempts) != 1 || d.Attempts[0].Status != 500 || d.NextAttemptMs != 400 {
		t.Errorf("delivery 4 = %+v", d)
	}
	if byID["2"].Status != model.DeliveryDelivered || byID["3"].Status != model.DeliveryFailed {
		t.Errorf("statuses = %q, %q", byID["2"].Status, byID["3"].Status)
	}
	// Back to pending: due again, and first.
	again := byID["2"]
	again.Status, again.NextAttemptMs = model.DeliveryPending, 10
	wantErr(t, "UpdateDelivery back to pending", b.UpdateDelivery(ctx, again), nil)
	if got := labels(dueIndex(t, b, 350)); !slices.Equal(got, []string{"2", "1"}) {
		t.Errorf("due at 350 = %v, want [2 1]", got)
	}
	if got := labels(must(b.DueDeliveries(ctx, 350, "", 0, nil))); !slices.Equal(got, []string{"2"}) {
		t.Errorf("DueDeliveries at 350 = %v, want [2]", got)
	}

	errTests := []struct {
		name string
		d    model.Delivery
		want error
	}{
		{"unknown id", model.Delivery{ID: "99", ListenerID: "wh_1", Status: model.DeliveryPending}, ErrNotFound},
		{"not an id", model.Delivery{ID: "one", ListenerID: "wh_1", Status: model.DeliveryPending}, ErrNotFound},
		{"empty id", model.Delivery{ListenerID: "wh_1", Status: model.DeliveryPending}, ErrNotFound},
		{"bad status", model.Delivery{ID: ds[0].ID, ListenerID: "wh_1", Status: "lost"}, errAny},
		{"empty status", model.Delivery{ID: ds[0].ID, ListenerID: "wh_1"}, errAny},
		{"empty listener", model.Delivery{ID: ds[0].ID, Status: model.DeliveryDelivered}, errAny},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			err := b.UpdateDelivery(ctx, tt.d)
			if tt.want == errAny {
				if err == nil {
					t.Fatal("UpdateDelivery succeeded")
				}
				return
			}
			wantErr(t, "UpdateDelivery", err, tt.want)
		})
	}
	if got := labels(dueIndex(t, b, 350)); !slices.Equal(got, []string{"2", "1"}) {
		t.Errorf("refused updates changed the due list: %v", got)
	}
}

// TestUpdateDeliveryKeepsItsListener: a delivery belongs to its listener
// for good (on JetStream its id names the listener); an update naming
// another changes nothing.
func TestUpdateDeliveryKeepsItsListener(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		d := mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_1"})
		moved := d
		moved.ListenerID, moved.Status = "wh_2", model.DeliveryDelivered
		if err := b.UpdateDelivery(ctx, moved); err == nil {
			t.Fatal("UpdateDelivery moved a delivery to another listener")
		}
		if pg := must(b.ListDeliveries(ctx, "wh_1", Page{})); !slices.Equal(deliveryIDs(pg.Items), []string{d.ID}) || pg.Items[0].Status != model.DeliveryPending {
			t.Errorf("wh_1 lists %+v", pg.Items)
		}
		if pg := must(b.ListDeliveries(ctx, "wh_2", Page{})); pg.TotalCount != 0 {
			t.Errorf("wh_2 lists %+v", pg.Items)
		}
	})
}

// TestDeliveriesAreBounded: a listener keeps its newest deliveriesKept
// settled deliveries and every pending one, up to maxPendingDeliveries;
// past that a new delivery is stored failed, saying why. Other
// listeners' logs are untouched.
func TestDeliveriesAreBounded(t *testing.T) {
	t.Parallel()
	const kept, maxPending = 20, 50 // the bounds themselves are checked below
	eachBackend(t, func(t *testing.T, b testStore) {
		setDeliveryBounds(b, kept, maxPending)
		other := mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_2", Status: model.DeliveryFailed})
		var pending []string
		for i := range 3 {
			pending = append(pending, mustDeliver(t, b, int64(i+1), model.Delivery{ListenerID: "wh_1"}).ID)
		}
		for i := range kept + 5 { // settled as they are created (replayed, say)
			mustDeliver(t, b, int64(i+10), model.Delivery{ListenerID: "wh_1", Status: model.DeliveryDelivered})
		}
		all := must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 100}))
		if all.TotalCount != kept+3 {
			t.Fatalf("wh_1 keeps %d deliveries, want %d settled and 3 pending", all.TotalCount, kept)
		}
		newest := all.Items[0].ID

		// Settling a pending one trims the oldest settled one again.
		d := deliveryByID(t, b, "wh_1", pending[1])
		d.Status = model.DeliveryFailed
		wantErr(t, "settle", b.UpdateDelivery(ctx, d), nil)
		all = must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 100}))
		if all.TotalCount != kept+2 || all.Items[0].ID != newest {
			t.Fatalf("after settling one: %d deliveries, newest %s; want %d, newest %s", all.TotalCount, all.Items[0].ID, kept+2, newest)
		}
		if got := deliveryIDs(dueIndex(t, b, math.MaxInt64)); !slices.Equal(got, []string{pending[0], pending[2]}) {
			t.Errorf("due index %v, want %v", got, []string{pending[0], pending[2]})
		}
		if got := deliveryIDs(must(b.ListDeliveries(ctx, "wh_2", Page{})).Items); !slices.Equal(got, []string{other.ID}) {
			t.Errorf("wh_2 keeps %v", got)
		}

		// A full backlog: the next delivery is failed at once, with the reason.
		for range maxPending - 2 {
			mustDeliver(t, b, 100, model.Delivery{ListenerID: "wh_1"})
		}
		over := mustDeliver(t, b, 200, model.Delivery{ListenerID: "wh_1", Payload: json.RawMessage(`{"n":1}`)})
		if over.Status != model.DeliveryFailed || len(over.Attempts) != 1 || over.Attempts[0].Error != kv.BacklogFull(maxPending) || string(over.Payload) != `{"n":1}` {
			t.Errorf("a delivery past the backlog: %+v, want failed with %q and its payload", over, kv.BacklogFull(maxPending))
		}
		if n := len(dueIndex(t, b, math.MaxInt64)); n != maxPending {
			t.Errorf("%d pending, want %d", n, maxPending)
		}
	})
	bs, js := openTestBolt(t), openTestJetStream(t)
	for _, st := range []beneath{beneathOf(bs), beneathOf(js)} {
		if kept, pending := st.DeliveryBounds(); kept != 1000 || pending != 10_000 {
			t.Errorf("bounds of a store: %d settled, %d pending; SECURITY.md says 1,000 and 10,000", kept, pending)
		}
	}
}

// setDeliveryBounds changes the bounds of a store's deliveries.
func setDeliveryBounds(st testStore, kept, maxPending int) {
	beneathOf(st).SetDeliveryBounds(kept, maxPending)
}

// deliveryByID is the stored delivery id of listener.
func deliveryByID(t *testing.T, b testStore, listener, id string) model.Delivery {
	t.Helper()
	d, err := b.GetDelivery(ctx, id)
	if err != nil || d.ListenerID != listener {
		t.Fatalf("delivery %s of %s: %+v, %v", id, listener, d, err)
	}
	return d
}

func deliveryLister(b testStore, listener string) lister {
	return func(p Page) (plainPage, error) {
		pg, err := b.ListDeliveries(ctx, listener, p)
		return plain(pg, err, func(d model.Delivery) string { return d.ID })
	}
}

func TestListDeliveriesPagination(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		var newestFirst []string
		for i := range 11 {
			d := mustDeliver(t, b, int64(i), model.Delivery{ListenerID: "wh_1"})
			newestFirst = append([]string{d.ID}, newestFirst...)
			mustDeliver(t, b, int64(i), model.Delivery{ListenerID: "wh_10"}) // a listener whose id extends wh_1
		}
		// After walks to older deliveries, Before to newer; pages are newest first.
		checkPagination(t, deliveryLister(b, "wh_1"), newestFirst)
		other := must(b.ListDeliveries(ctx, "wh_10", Page{}))
		if other.TotalCount != 11 {
			t.Errorf("wh_10 TotalCount = %d", other.TotalCount)
		}
		checkBadCursors(t, deliveryLister(b, "wh_1"), other.StartCursor)
		if err := b.CreateWebhook(ctx, model.Webhook{ID: "wh_x", OwnerID: "wh_1"}); err != nil {
			t.Fatal(err)
		}
		hooks := must(b.ListWebhooks(ctx, "wh_1", Page{}))
		checkBadCursors(t, deliveryLister(b, "wh_1"), hooks.StartCursor)
		checkPagination(t, deliveryLister(b, "wh_none"), nil)

		// Explicit: page 2 of size 4 is older than page 1.
		first := must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 4}))
		second := must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 4, After: first.EndCursor}))
		if got := deliveryIDs(second.Items); !slices.Equal(got, newestFirst[4:8]) {
			t.Errorf("second page = %v, first = %v", got, deliveryIDs(first.Items))
		}
		back := must(b.ListDeliveries(ctx, "wh_1", Page{Limit: 2, Before: second.StartCursor}))
		if got := deliveryIDs(back.Items); !slices.Equal(got, newestFirst[2:4]) {
			t.Errorf("before second page = %v", got)
		}
	})
}

func TestDeleteWebhookDeletesDeliveries(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, id := range []string{"wh_1", "wh_2"} {
			wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: id, OwnerID: "u_a"}), nil)
		}
		var gone []model.Delivery
		for i := range 3 {
			gone = append(gone, mustDeliver(t, b, int64(i), model.Delivery{ListenerID: "wh_1"}))
			mustDeliver(t, b, int64(i), model.Delivery{ListenerID: "wh_2"})
		}
		gone[1].Status = model.DeliveryDelivered
		wantErr(t, "UpdateDelivery", b.UpdateDelivery(ctx, gone[1]), nil)

		wantErr(t, "DeleteWebhook", b.DeleteWebhook(ctx, "wh_1"), nil)

		if pg := must(b.ListDeliveries(ctx, "wh_1", Page{})); pg.TotalCount != 0 {
			t.Errorf("wh_1 deliveries after delete = %+v", pg.Items)
		}
		due := dueIndex(t, b, 100)
		if len(due) != 3 {
			t.Errorf("due after delete = %+v", due)
		}
		for _, d := range due {
			if d.ListenerID != "wh_2" {
				t.Errorf("due delivery of a deleted webhook: %+v", d)
			}
		}
		for _, d := range gone {
			wantErr(t, "UpdateDelivery of a deleted webhook's delivery", b.UpdateDelivery(ctx, d), ErrNotFound)
		}
		if n := deliveryRecords(t, b); n != 3 {
			t.Errorf("%d delivery records are stored, want wh_2's 3", n)
		}
		if pg := must(b.ListDeliveries(ctx, "wh_2", Page{})); pg.TotalCount != 3 {
			t.Errorf("wh_2 deliveries = %d, want 3", pg.TotalCount)
		}
	})
}

// TestDueDeliveriesRoundRobin: one delivery per listener, its earliest
// due, listeners in turn from the one after afterListener, wrapping; a
// skipped listener is passed over and a long backlog takes one place.
func TestDueDeliveriesRoundRobin(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		first := map[string]string{} // listener -> id of its earliest due delivery
		for i := range 50 {          // wh_a's backlog: 50 deliveries due at 100
			d := mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_a", NextAttemptMs: 100})
			if i == 0 {
				first["wh_a"] = d.ID
			}
		}
		mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_b", NextAttemptMs: 300})
		first["wh_b"] = mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_b", NextAttemptMs: 200}).ID
		first["wh_c"] = mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_c", NextAttemptMs: 100}).ID
		mustDeliver(t, b, 1, model.Delivery{ListenerID: "wh_d", NextAttemptMs: 5000})         // not due yet
		mustDeliver(t, b, 1, model.Delivery{ListenerID: "p_w", NextAttemptMs: math.MaxInt64}) // never due (a workflow's)

		skipB := func(id string) bool { return id == "wh_b" }
		tests := []struct {
			name  string
			now   int64
			after string
			limit int
			skip  func(string) bool
			want  []string // listeners, in the order returned
		}{
			{"from the start", 1000, "", 0, nil, []string{"wh_a", "wh_b", "wh_c"}},
			{"after a, wrapping", 1000, "wh_a", 0, nil, []string{"wh_b", "wh_c", "wh_a"}},
			{"after c, wrapping", 1000, "wh_c", 0, nil, []string{"wh_a", "wh_b", "wh_c"}},
			{"after a listener with nothing due", 1000, "wh_d", 0, nil, []string{"wh_a", "wh_b", "wh_c"}},
			{"after a listener with nothing at all", 1000, "wh_bb", 0, nil, []string{"wh_a", "wh_b", "wh_c"}},
			{"limit", 1000, "wh_a", 1, nil, []string{"wh_b"}},
			{"skipped", 1000, "", 0, skipB, []string{"wh_a", "wh_c"}},
			{"skipped, wrapping", 1000, "wh_a", 0, skipB, []string{"wh_c", "wh_a"}},
			{"only what is due", 150, "wh_a", 0, nil, []string{"wh_c", "wh_a"}},
			{"nothing due", 99, "wh_a", 0, nil, []string{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := b.DueDeliveries(ctx, tt.now, tt.after, tt.limit, tt.skip)
				wantErr(t, "DueDeliveries", err, nil)
				listeners := []string{}
				for _, d := range got {
					listeners = append(listeners, d.ListenerID)
					if d.ID != first[d.ListenerID] {
						t.Errorf("%s: got delivery %s, want its earliest due %s", d.ListenerID, d.ID, first[d.ListenerID])
					}
				}
				if !slices.Equal(listeners, tt.want) {
					t.Errorf("DueDeliveries(%d, after %q, limit %d) = %v, want %v", tt.now, tt.after, tt.limit, listeners, tt.want)
				}
			})
		}

		// A caller that passes the last listener it got serves each in turn.
		var turns []string
		after := ""
		for range 6 {
			got := must(b.DueDeliveries(ctx, 1000, after, 1, nil))
			if len(got) != 1 {
				t.Fatalf("DueDeliveries after %q = %+v", after, got)
			}
			after = got[0].ListenerID
			turns = append(turns, after)
		}
		if want := []string{"wh_a", "wh_b", "wh_c", "wh_a", "wh_b", "wh_c"}; !slices.Equal(turns, want) {
			t.Errorf("turns = %v, want %v", turns, want)
		}
	})
}
