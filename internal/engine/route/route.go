package route

import (
	"context"
	"encoding/json"
	"math"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Router matches an emitter's events against subscriptions. It is built
// before a commit (reading subscriptions) and called inside it (no I/O).
type Router struct {
	src       model.Emitter
	maxHops   int
	subs      []model.Subscription // the owner's, and the creator's exact ones
	autos     []model.AutoSubscription
	kicked    map[model.Target]bool // listeners given work
	delivered bool                  // webhook deliveries queued
}

// NewestOrder stands for the creation order of a source being created: it
// comes after every auto-subscription already stored.
const NewestOrder = math.MaxUint64

// Subscriptions are what a Router reads of the store.
type Subscriptions interface {
	ListSubscriptions(ctx context.Context, ownerID string) ([]model.Subscription, error)
	ListAutoSubscriptions(ctx context.Context, ownerID string) ([]model.AutoSubscription, error)
}

// New reads the subscriptions that can match src's events, for runs that
// may reach maxHops subscription hops. Subscriptions live in the account
// that made them: the source's owner, and its creator when the owner is
// an organization.
func New(ctx context.Context, st Subscriptions, src model.Emitter, maxHops int) (*Router, error) {
	r := &Router{src: src, maxHops: maxHops, kicked: map[model.Target]bool{}}
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

// Listeners returns who gets an event of the given channel.
func (r *Router) Listeners(channel string) []model.Listener {
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

// Route is store.RunCommit.Route for an event of a run that was reached
// through hops subscription hops.
func (r *Router) Route(ev model.Event, hops int) store.Routed {
	var out store.Routed
	for _, l := range r.Listeners(ev.Name) {
		if t, runs := l.Target(); runs {
			if hops+1 > r.maxHops {
				continue // a loop: the commit reports it on $errors
			}
			inv := model.NewInvocation(t, model.InvocationEvent, ev.Data)
			inv.Hops = hops + 1
			out.Invocations = append(out.Invocations, inv)
			r.kicked[t] = true
		} else if l.Kind == model.ListenerWebhook {
			out.Deliveries = append(out.Deliveries, model.Delivery{Kind: model.DeliveryToWebhook, ListenerID: l.ID, EmitterID: ev.EmitterID, EventID: ev.ID, Channel: ev.Name, Payload: DeliveryPayload(ev)})
			r.delivered = true
		}
	}
	return out
}

// At returns Route for events reached through hops subscription hops.
func (r *Router) At(hops int) func(model.Event) store.Routed {
	return func(ev model.Event) store.Routed { return r.Route(ev, hops) }
}

// deliveryMetadata is an event summary's metadata.
func deliveryMetadata(ev model.Event) map[string]any {
	m := map[string]any{"emit_id": ev.EmitID, "name": ev.Name, "emitter_id": ev.EmitterID, "summary": ev.Summary}
	if ev.DedupeID != "" {
		m["id"] = ev.DedupeID
	}
	return m
}

// DeliveryPayload is the body a webhook receives: the event summary with
// the whole event.
func DeliveryPayload(ev model.Event) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"id":            ev.ID,
		"indexed_at_ms": ev.IndexedAtMs,
		"event":         ev.Data,
		"metadata":      deliveryMetadata(ev),
	})
	return b
}

// WouldLoop reports whether any of events has a source listener, which a
// run at the hop limit may not reach.
func (r *Router) WouldLoop(events []model.Event) bool {
	for _, ev := range events {
		for _, l := range r.Listeners(ev.Name) {
			if _, runs := l.Target(); runs {
				return true
			}
		}
	}
	return false
}

// Emitter is whose events r routes.
func (r *Router) Emitter() model.Emitter { return r.src }

// Woken are the sources and workflows r gave work to, to be woken once
// the commit that queued it is done.
func (r *Router) Woken() []model.Target {
	out := make([]model.Target, 0, len(r.kicked))
	for t := range r.kicked {
		out = append(out, t)
	}
	return out
}

// Delivered reports whether r queued webhook deliveries.
func (r *Router) Delivered() bool { return r.delivered }
