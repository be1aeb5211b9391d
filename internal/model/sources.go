package model

import (
	"encoding/json"

	"github.com/fount-dev/fount/internal/component"
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
	EventName  string `json:"event_name"` // "" for the default channel
	CreatedAt  int64  `json:"created_at"`
}

// AutoSubscription delivers $errors or $logs of emitters created after it.
type AutoSubscription struct {
	ID         string `json:"id"` // sub_...
	OwnerID    string `json:"owner_id"`
	ListenerID string `json:"listener_id"`
	EventName  string `json:"event_name"` // $errors or $logs
	CreatedAt  int64  `json:"created_at"`
	// Order is the store's creation order, shared with sources (assigned
	// by PutAutoSubscription; 0 for records stored before it existed).
	Order uint64 `json:"order,omitempty"`
}

// Emitter is what routing needs to know of a source or a workflow whose
// events it routes: who it is, whose, and when it was created.
type Emitter struct {
	ID      string
	OwnerID string
	UserID  string // who created it
	// Order and CreatedAt place it among auto-subscriptions (AppliesTo).
	Order     uint64
	CreatedAt int64
}

// Emitter is src as an emitter of events.
func (src Source) Emitter() Emitter {
	return Emitter{ID: src.ID, OwnerID: src.OwnerID, UserID: src.UserID, Order: src.Order, CreatedAt: src.CreatedAt}
}

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
