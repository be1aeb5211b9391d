package engine

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/fount-dev/fount/store"
)

// router matches a run's events against subscriptions. It is built before
// the commit (reading subscriptions) and called inside it (no I/O).
type router struct {
	e         *Engine
	src       store.Source
	subs      []store.Subscription // the owner's, and the creator's exact ones
	autos     []store.AutoSubscription
	kicked    map[string]bool // listener sources given work
	delivered bool            // webhook deliveries queued
}

func (e *Engine) newRouter(ctx context.Context, l *live) (*router, error) {
	r := &router{e: e, src: l.src, kicked: map[string]bool{}}
	// Subscriptions live in the account that made them: the source's
	// owner, and its creator when the owner is an organization.
	owners := []string{l.src.OwnerID}
	if l.src.UserID != "" && l.src.UserID != l.src.OwnerID {
		owners = append(owners, l.src.UserID)
	}
	for i, owner := range owners {
		if owner == "" {
			continue
		}
		subs, err := e.cfg.Store.ListSubscriptions(ctx, owner)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			// A glob (dc_*) covers the sources of the account that made
			// it: a member's personal glob never reaches an org's sources.
			if i == 0 || s.EmitterID == l.src.ID {
				r.subs = append(r.subs, s)
			}
		}
		if i > 0 {
			continue // auto-subscriptions, too, are the owner's alone
		}
		autos, err := e.cfg.Store.ListAutoSubscriptions(ctx, owner)
		if err != nil {
			return nil, err
		}
		r.autos = append(r.autos, autos...)
	}
	return r, nil
}

// listeners returns who gets an event of the given channel.
func (r *router) listeners(channel string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, s := range r.subs {
		if s.EventName != channel {
			continue
		}
		if s.EmitterID == r.src.ID || (s.EmitterID == "dc_*" && strings.HasPrefix(r.src.ID, "dc_")) {
			add(s.ListenerID)
		}
	}
	for _, a := range r.autos {
		// An auto-subscription applies to emitters created after it.
		if a.EventName == channel && a.CreatedAt <= r.src.CreatedAt {
			add(a.ListenerID)
		}
	}
	return out
}

// route is store.RunCommit.Route for an event of a run that was reached
// through hops subscription hops.
func (r *router) route(ev store.Event, hops int) store.Routed {
	var out store.Routed
	for _, id := range r.listeners(ev.Name) {
		switch {
		case strings.HasPrefix(id, "dc_"):
			if hops+1 > r.e.cfg.MaxHops {
				continue // a loop: commit reports it on $errors
			}
			out.Invocations = append(out.Invocations, store.Invocation{SourceID: id, Kind: kindEvent, Event: ev.Data, Hops: hops + 1})
			r.kicked[id] = true
		case strings.HasPrefix(id, "wh_"):
			out.Deliveries = append(out.Deliveries, store.Delivery{ListenerID: id, EmitterID: ev.EmitterID, EventID: ev.ID, Channel: ev.Name, Payload: deliveryPayload(ev)})
			r.delivered = true
		case strings.HasPrefix(id, "p_"):
			// Workflows come in a later issue: the delivery waits in the
			// queue, never due until a workflow runner takes it.
			out.Deliveries = append(out.Deliveries, store.Delivery{ListenerID: id, EmitterID: ev.EmitterID, EventID: ev.ID, Channel: ev.Name,
				Payload: deliveryPayload(ev), NextAttemptMs: math.MaxInt64})
		}
	}
	return out
}

// deliveryPayload is the body a webhook receives: the event summary with
// the whole event.
func deliveryPayload(ev store.Event) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"id":            ev.ID,
		"indexed_at_ms": ev.IndexedAtMs,
		"event":         ev.Data,
		"metadata":      map[string]any{"emit_id": ev.EmitID, "name": ev.Name, "emitter_id": ev.EmitterID, "summary": ev.Summary},
	})
	return b
}

// wouldLoop reports whether any of events has a source listener, which a
// run at the hop limit may not reach.
func (r *router) wouldLoop(events []store.Event) bool {
	for _, ev := range events {
		for _, id := range r.listeners(ev.Name) {
			if strings.HasPrefix(id, "dc_") {
				return true
			}
		}
	}
	return false
}
