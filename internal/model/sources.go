package model

import (
	"encoding/json"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
)

// Source is a deployed component.
type Source struct {
	ID          string `json:"id"`       // dc_...
	OwnerID     string `json:"owner_id"` // user or org
	UserID      string `json:"user_id"`  // who created it
	ComponentID string `json:"component_id"`
	Name        string `json:"name"`
	NameSlug    string `json:"name_slug"` // unique per owner
	// ConfiguredProps are the values of the component's props as the
	// user configured them (timers normalised to component.TimerSpec).
	// Values named in SecretProps are sealed (encrypted) by the engine
	// before they reach the store. HTTP interfaces are in Endpoints.
	ConfiguredProps map[string]json.RawMessage `json:"configured_props"`
	// SecretProps names the sealed values of ConfiguredProps: those of
	// props declared secret, and only those.
	SecretProps []string `json:"secret_props,omitempty"`
	// Endpoints holds the endpoint token of each HTTP-interface prop; the
	// URL is derived from it when the source is shown.
	Endpoints map[string]component.EndpointToken `json:"endpoints,omitempty"`
	// AddedProps are the props the component's additionalProps method
	// added for these values, at the last deploy or update that gave
	// props: an update that keeps the props keeps them without running
	// the method again.
	AddedProps []component.Prop `json:"added_props,omitempty"`
	// Controls bound its runs: a throttle and a queue size (a source's
	// runs are one at a time, in order, and never retried).
	Controls
	Active    bool  `json:"active"`
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
	// Order is the store's creation order, shared with auto-subscriptions
	// (assigned by CreateSource; 0 for sources stored before it existed).
	Order uint64 `json:"order,omitempty"`
}

// Subscription connects an emitter (or a glob dc_* / p_*) to a listener.
type Subscription struct {
	ID         string `json:"id"` // sub_...
	OwnerID    string `json:"owner_id"`
	EmitterID  string `json:"emitter_id"`
	ListenerID string `json:"listener_id"`
	// ListenerKind is what ListenerID names; one stored before
	// subscriptions named it has none, and Listener tells it from the id.
	ListenerKind ListenerKind `json:"listener_kind,omitempty"`
	EventName    string       `json:"event_name"` // "" for the default channel
	CreatedAt    int64        `json:"created_at"`
}

// ListenerKind is what a subscription delivers to.
type ListenerKind string

// The kinds of listeners: a source or a workflow runs with the event, a
// webhook receives it.
const (
	ListenerSource   ListenerKind = "source"
	ListenerWorkflow ListenerKind = "workflow"
	ListenerWebhook  ListenerKind = "webhook"
)

// Listener names what a subscription delivers to.
type Listener struct {
	Kind ListenerKind
	ID   string
}

// Target is the source or workflow the listener runs; false for a
// webhook.
func (l Listener) Target() (Target, bool) {
	switch l.Kind {
	case ListenerSource:
		return SourceTarget(l.ID), true
	case ListenerWorkflow:
		return WorkflowTarget(l.ID), true
	}
	return Target{}, false
}

// listenerOf is the listener a subscription names: kind, or for one
// stored before subscriptions named it, what its id says.
func listenerOf(kind ListenerKind, id string) Listener {
	if kind != "" {
		return Listener{Kind: kind, ID: id}
	}
	switch stored, _ := ids.Of(id); stored {
	case ids.Source:
		kind = ListenerSource
	case ids.Workflow:
		kind = ListenerWorkflow
	case ids.Webhook:
		kind = ListenerWebhook
	}
	return Listener{Kind: kind, ID: id}
}

// Listener is what the subscription delivers to.
func (s Subscription) Listener() Listener { return listenerOf(s.ListenerKind, s.ListenerID) }

// Listener is what the auto-subscription delivers to.
func (a AutoSubscription) Listener() Listener { return listenerOf(a.ListenerKind, a.ListenerID) }

// AutoSubscription delivers $errors or $logs of emitters created after it.
type AutoSubscription struct {
	ID           string       `json:"id"` // sub_...
	OwnerID      string       `json:"owner_id"`
	ListenerID   string       `json:"listener_id"`
	ListenerKind ListenerKind `json:"listener_kind,omitempty"` // as Subscription's
	EventName    string       `json:"event_name"`              // $errors or $logs
	CreatedAt    int64        `json:"created_at"`
	// Order is the store's creation order, shared with sources (assigned
	// by PutAutoSubscription; 0 for records stored before it existed).
	Order uint64 `json:"order,omitempty"`
}

// Emitter is what routing needs to know of a source or a workflow whose
// events it routes: who it is, whose, and when it was created.
type Emitter struct {
	Kind    TargetKind
	ID      string
	OwnerID string
	UserID  string // who created it
	// Order and CreatedAt place it among auto-subscriptions (AppliesTo).
	Order     uint64
	CreatedAt int64
}

// Emitter is src as an emitter of events.
func (src Source) Emitter() Emitter {
	return Emitter{Kind: TargetSource, ID: src.ID, OwnerID: src.OwnerID, UserID: src.UserID, Order: src.Order, CreatedAt: src.CreatedAt}
}

// Target is the source or workflow that emits.
func (em Emitter) Target() Target { return Target{Kind: em.Kind, ID: em.ID} }

// AppliesTo reports whether a covers src: src was created after a. When
// both records are from before creation orders existed, they compare by
// their creation second as fount did then (a tie applies), so that an
// upgrade changes no delivery.
func (a AutoSubscription) AppliesTo(src Emitter) bool {
	if a.Order != 0 && src.Order != 0 {
		return src.Order > a.Order
	}
	if a.Order == 0 && src.Order != 0 {
		return true // a predates orders; src does not
	}
	if a.Order != 0 && src.Order == 0 {
		return false
	}
	return src.CreatedAt >= a.CreatedAt
}
