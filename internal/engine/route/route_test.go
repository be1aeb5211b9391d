package route

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestRouterListeners(t *testing.T) {
	t.Parallel()
	src := model.Source{ID: "dc_me", OwnerID: "u_a", UserID: "u_a", Order: 10}
	subs := []model.Subscription{
		{EmitterID: "dc_me", ListenerID: "wh_exact"},
		{EmitterID: "dc_me", ListenerID: "dc_orders", EventName: "orders"},
		{EmitterID: "dc_*", ListenerID: "wh_glob"},
		{EmitterID: "p_*", ListenerID: "wh_workflows_only"},
		{EmitterID: "dc_other", ListenerID: "wh_other"},
		{EmitterID: "dc_me", ListenerID: "wh_exact"}, // a duplicate listener is listed once
	}
	autos := []model.AutoSubscription{
		{ListenerID: "wh_old_errors", EventName: "$errors", Order: 5},
		{ListenerID: "wh_new_errors", EventName: "$errors", Order: 11},
		{ListenerID: "wh_logs", EventName: "$logs", Order: 1},
	}
	r := &Router{src: src.Emitter(), maxHops: 8, subs: subs, autos: autos, kicked: map[model.Target]bool{}}
	tests := []struct {
		channel string
		want    []string
	}{
		{"", []string{"wh_exact", "wh_glob"}},
		{"orders", []string{"dc_orders"}},
		{"$errors", []string{"wh_old_errors"}}, // the auto-subscription made after the source does not apply
		{"$logs", []string{"wh_logs"}},
		{"other", nil},
	}
	for _, tt := range tests {
		if got := listenerIDs(r.Listeners(tt.channel)); !slices.Equal(got, tt.want) {
			t.Errorf("listeners(%q) = %v, want %v", tt.channel, got, tt.want)
		}
	}
	created := src
	created.Order = NewestOrder // a source being created: every stored auto-subscription applies
	r.src = created.Emitter()
	if got := listenerIDs(r.Listeners("$errors")); !slices.Equal(got, []string{"wh_old_errors", "wh_new_errors"}) {
		t.Errorf("listeners of a new source's $errors = %v", got)
	}
}

// listenerIDs are the ids of listeners, in order.
func listenerIDs(listeners []model.Listener) []string {
	var out []string
	for _, l := range listeners {
		out = append(out, l.ID)
	}
	return out
}

// TestRouteByListenerKind: a subscription's listener runs (a source or
// a workflow) or is delivered to (a webhook) as its kind says; one
// stored before subscriptions named it, as its id says.
func TestRouteByListenerKind(t *testing.T) {
	t.Parallel()
	r := &Router{src: model.Emitter{ID: "dc_me"}, maxHops: 2, kicked: map[model.Target]bool{}, subs: []model.Subscription{
		{EmitterID: "dc_me", ListenerID: "dc_next"}, {EmitterID: "dc_me", ListenerID: "wh_1"}, {EmitterID: "dc_me", ListenerID: "p_flow"},
		// The kind, not the id, says what a listener is.
		{EmitterID: "dc_me", ListenerID: "named_flow", ListenerKind: model.ListenerWorkflow},
		{EmitterID: "dc_me", ListenerID: "named_hook", ListenerKind: model.ListenerWebhook},
	}}
	ev := model.Event{ID: "1-0", EmitterID: "dc_me", Data: []byte(`{"a":1}`)}
	out := r.Route(ev, 0)
	var got []model.Target
	for _, inv := range out.Invocations {
		got = append(got, inv.Target())
		if inv.Hops != 1 || inv.Kind != model.InvocationEvent || string(inv.Event) != `{"a":1}` {
			t.Errorf("invocation %+v", inv)
		}
	}
	want := []model.Target{model.SourceTarget("dc_next"), model.WorkflowTarget("p_flow"), model.WorkflowTarget("named_flow")}
	if !slices.Equal(got, want) {
		t.Errorf("invocations of %v, want %v", got, want)
	}
	if len(out.Deliveries) != 2 || out.Deliveries[0].ListenerID != "wh_1" || out.Deliveries[1].ListenerID != "named_hook" {
		t.Errorf("deliveries %+v", out.Deliveries)
	}
	if !r.kicked[want[0]] || !r.kicked[want[1]] || !r.kicked[want[2]] || !r.delivered {
		t.Error("route did not note whom it gave work")
	}
	if out := r.Route(ev, 2); len(out.Invocations) != 0 {
		t.Errorf("an event at the hop limit reached a source: %+v", out.Invocations)
	}
	if !r.WouldLoop([]model.Event{ev}) {
		t.Error("wouldLoop missed a source listener")
	}
}
