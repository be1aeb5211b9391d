package engine

import (
	"context"
	"encoding/json"
	"math"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// router matches an emitter's events against subscriptions. It is built
// before a commit (reading subscriptions) and called inside it (no I/O).
type router struct {
	src       model.Emitter
	maxHops   int
	subs      []model.Subscription // the owner's, and the creator's exact ones
	autos     []model.AutoSubscription
	kicked    map[model.Target]bool // listeners given work
	delivered bool                  // webhook deliveries queued
}

// newestOrder stands for the creation order of a source being created: it
// comes after every auto-subscription already stored.
const newestOrder = math.MaxUint64

// newRouter reads the subscriptions that can match src's events.
// Subscriptions live in the account that made them: the source's owner,
// and its creator when the owner is an organization.
func newRouter(ctx context.Context, st store.Store, src model.Emitter, maxHops int) (*router, error) {
	r := &router{src: src, maxHops: maxHops, kicked: map[model.Target]bool{}}
	owners := []string{src.OwnerID}
	if src.UserID != "" && src.UserID != src.OwnerID {
		owners = append(owners, src.UserID)
	}
	for i, owner := range owners {
		if owner == "" {
			continue
		}
		subs, err := st.ListSubscriptions(ctx, owner)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			// A glob (dc_*) covers the sources of the account that made
			// it: a member's personal glob never reaches an org's sources.
			if i == 0 || s.EmitterID == src.ID {
				r.subs = append(r.subs, s)
			}
		}
		if i > 0 {
			continue // auto-subscriptions, too, are the owner's alone
		}
		autos, err := st.ListAutoSubscriptions(ctx, owner)
		if err != nil {
			return nil, err
		}
		r.autos = append(r.autos, autos...)
	}
	return r, nil
}

// listeners returns who gets an event of the given channel.
func (r *router) listeners(channel string) []model.Listener {
	seen := map[string]bool{}
	var out []model.Listener
	add := func(l model.Listener) {
		if !seen[l.ID] {
			seen[l.ID] = true
			out = append(out, l)
		}
	}
	for _, s := range r.subs {
		// A glob covers the owner's emitters but the listener itself: a
		// workflow triggered by p_* does not run on its own emits.
		if s.ListenerID == r.src.ID && s.EmitterID != r.src.ID {
			continue
		}
		if s.EventName == channel && ids.Matches(s.EmitterID, r.src.ID) {
			add(s.Listener())
		}
	}
	for _, a := range r.autos {
		// The specification: an auto-subscription applies to emitters
		// created after it; existing ones need a subscription.
		if a.EventName == channel && a.AppliesTo(r.src) {
			add(a.Listener())
		}
	}
	return out
}

// route is store.RunCommit.Route for an event of a run that was reached
// through hops subscription hops.
func (r *router) route(ev model.Event, hops int) store.Routed {
	var out store.Routed
	for _, l := range r.listeners(ev.Name) {
		if t, runs := l.Target(); runs {
			if hops+1 > r.maxHops {
				continue // a loop: the commit reports it on $errors
			}
			inv := model.NewInvocation(t, kindEvent, ev.Data)
			inv.Hops = hops + 1
			out.Invocations = append(out.Invocations, inv)
			r.kicked[t] = true
		} else if l.Kind == model.ListenerWebhook {
			out.Deliveries = append(out.Deliveries, model.Delivery{Kind: model.DeliveryToWebhook, ListenerID: l.ID, EmitterID: ev.EmitterID, EventID: ev.ID, Channel: ev.Name, Payload: deliveryPayload(ev)})
			r.delivered = true
		}
	}
	return out
}

// at returns route for events reached through hops subscription hops.
func (r *router) at(hops int) func(model.Event) store.Routed {
	return func(ev model.Event) store.Routed { return r.route(ev, hops) }
}

// deliveryMetadata is an event summary's metadata.
func deliveryMetadata(ev model.Event) map[string]any {
	m := map[string]any{"emit_id": ev.EmitID, "name": ev.Name, "emitter_id": ev.EmitterID, "summary": ev.Summary}
	if ev.DedupeID != "" {
		m["id"] = ev.DedupeID
	}
	return m
}

// deliveryPayload is the body a webhook receives: the event summary with
// the whole event.
func deliveryPayload(ev model.Event) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"id":            ev.ID,
		"indexed_at_ms": ev.IndexedAtMs,
		"event":         ev.Data,
		"metadata":      deliveryMetadata(ev),
	})
	return b
}

// wouldLoop reports whether any of events has a source listener, which a
// run at the hop limit may not reach.
func (r *router) wouldLoop(events []model.Event) bool {
	for _, ev := range events {
		for _, l := range r.listeners(ev.Name) {
			if _, runs := l.Target(); runs {
				return true
			}
		}
	}
	return false
}
