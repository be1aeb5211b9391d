package route

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// accounts are subscriptions by the account that made them.
type accounts struct {
	subs  map[string][]model.Subscription
	autos map[string][]model.AutoSubscription
	fail  error
}

func (a accounts) ListSubscriptions(_ context.Context, owner string) ([]model.Subscription, error) {
	return a.subs[owner], a.fail
}

func (a accounts) ListAutoSubscriptions(_ context.Context, owner string) ([]model.AutoSubscription, error) {
	return a.autos[owner], a.fail
}

// TestNewReadsTheAccountsOfAnEmitter: an organization's source is routed
// by the organization's subscriptions (globs included) and
// auto-subscriptions, and by its creator's exact subscriptions only; a
// glob does not route a listener's own events to it.
func TestNewReadsTheAccountsOfAnEmitter(t *testing.T) {
	t.Parallel()
	st := accounts{
		subs: map[string][]model.Subscription{
			"o_org": {
				{EmitterID: "dc_*", ListenerID: "wh_org_glob", ListenerKind: model.ListenerWebhook},
				{EmitterID: "dc_src", ListenerID: "p_org", ListenerKind: model.ListenerWorkflow},
			},
			"u_member": {
				{EmitterID: "dc_*", ListenerID: "wh_member_glob", ListenerKind: model.ListenerWebhook},
				{EmitterID: "dc_src", ListenerID: "wh_member_exact", ListenerKind: model.ListenerWebhook},
			},
		},
		autos: map[string][]model.AutoSubscription{
			"o_org":    {{ListenerID: "wh_org_errors", EventName: "$errors"}},
			"u_member": {{ListenerID: "wh_member_errors", EventName: "$errors"}},
		},
	}
	src := model.Source{ID: "dc_src", OwnerID: "o_org", UserID: "u_member", Order: NewestOrder}
	r, err := New(context.Background(), st, src.Emitter(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listenerIDs(r.Listeners("")), []string{"wh_org_glob", "p_org", "wh_member_exact"}; !slices.Equal(got, want) {
		t.Errorf("listeners %v, want %v", got, want)
	}
	if got := listenerIDs(r.Listeners("$errors")); !slices.Equal(got, []string{"wh_org_errors"}) {
		t.Errorf("$errors listeners %v, want the organization's auto-subscription only", got)
	}

	self := accounts{subs: map[string][]model.Subscription{"u_a": {{EmitterID: "p_*", ListenerID: "p_self", ListenerKind: model.ListenerWorkflow}}}}
	wf := model.Workflow{ID: "p_self", OwnerID: "u_a", UserID: "u_a"}
	r, err = New(context.Background(), self, wf.Emitter(), 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Listeners(""); len(got) != 0 {
		t.Errorf("a workflow's glob routes its own events to it: %v", listenerIDs(got))
	}
	if _, err := New(context.Background(), accounts{fail: errors.New("store down")}, src.Emitter(), 8); err == nil {
		t.Error("New hides the store's failure")
	}
}

// TestRouteWithinTheHopBound: an event queues its runnable listeners'
// invocations a hop further and wakes them, queues webhook deliveries
// with the event summary, and stops at the hop bound, which WouldLoop
// foretells.
func TestRouteWithinTheHopBound(t *testing.T) {
	t.Parallel()
	src := model.Source{ID: "dc_src", OwnerID: "u_a", UserID: "u_a"}
	r := &Router{src: src.Emitter(), maxHops: 2, kicked: map[model.Target]bool{}, subs: []model.Subscription{
		{EmitterID: "dc_src", ListenerID: "dc_next", ListenerKind: model.ListenerSource},
		{EmitterID: "dc_src", ListenerID: "wh_hook", ListenerKind: model.ListenerWebhook},
	}}
	ev := model.Event{ID: "7-1", EmitterID: "dc_src", EmitID: "e1", DedupeID: "d1", Summary: "one", Data: json.RawMessage(`{"n":1}`), IndexedAtMs: 5}
	routed := r.At(1)(ev)
	if len(routed.Invocations) != 1 || routed.Invocations[0].Hops != 2 || routed.Invocations[0].TargetID != "dc_next" || string(routed.Invocations[0].Event) != `{"n":1}` {
		t.Errorf("invocations %+v, want dc_next's at hop 2", routed.Invocations)
	}
	if len(routed.Deliveries) != 1 || routed.Deliveries[0].Kind != model.DeliveryToWebhook || routed.Deliveries[0].ListenerID != "wh_hook" {
		t.Fatalf("deliveries %+v, want the webhook's", routed.Deliveries)
	}
	var payload struct {
		ID       string          `json:"id"`
		Event    json.RawMessage `json:"event"`
		Metadata map[string]any  `json:"metadata"`
	}
	if err := json.Unmarshal(routed.Deliveries[0].Payload, &payload); err != nil || payload.ID != "7-1" || string(payload.Event) != `{"n":1}` ||
		payload.Metadata["id"] != "d1" || payload.Metadata["summary"] != "one" {
		t.Errorf("payload %s (%v)", routed.Deliveries[0].Payload, err)
	}
	if woken := r.Woken(); len(woken) != 1 || woken[0] != model.SourceTarget("dc_next") || !r.Delivered() {
		t.Errorf("woken %v, delivered %v", woken, r.Delivered())
	}
	if at := r.Route(ev, 2); len(at.Invocations) != 0 || len(at.Deliveries) != 1 {
		t.Errorf("at the hop bound: %d invocations, %d deliveries; want none and the webhook's", len(at.Invocations), len(at.Deliveries))
	}
	if !r.WouldLoop([]model.Event{ev}) || r.WouldLoop([]model.Event{{Name: "other"}}) {
		t.Error("WouldLoop does not tell events with a runnable listener")
	}
}
