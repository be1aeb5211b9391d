package store

import (
	"encoding/json"

	"github.com/fount-dev/fount/component"
)

// Plans of a user.
const (
	PlanFree = "free"
	PlanPaid = "paid"
)

// User is an account.
type User struct {
	ID        string `json:"id"` // u_...
	Username  string `json:"username"`
	Email     string `json:"email"`
	Plan      string `json:"plan"`  // PlanFree or PlanPaid
	Owner     bool   `json:"owner"` // the server's owner, created on first start; may administer
	CreatedAt int64  `json:"created_at"`
}

// Org is an organization; its members may use its resources.
type Org struct {
	ID        string   `json:"id"` // o_...
	Orgname   string   `json:"orgname"`
	Name      string   `json:"name"`
	Email     string   `json:"email"`
	Members   []string `json:"members"` // user ids, in the order they joined
	CreatedAt int64    `json:"created_at"`
}

// Component is a saved component: code plus what introspection found.
type Component struct {
	ID       string `json:"id"`       // sc_...
	OwnerID  string `json:"owner_id"` // user or org whose namespace holds Key
	Key      string `json:"key,omitempty"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Code     string `json:"code"`
	CodeHash string `json:"code_hash"` // sha256 of Code, hex
	// Bundle is Code with the npm packages it imports bundled in, what
	// the sandbox runs; "" when Code imports none.
	Bundle string `json:"bundle,omitempty"`
	// Packages is the lock: the package versions in Bundle.
	Packages []Package `json:"packages,omitempty"`
	// SourceMap maps Code to the author's files (from the client, when it
	// bundled them); BundleMap maps Bundle to Code and the packages' files.
	SourceMap    string             `json:"source_map,omitempty"`
	BundleMap    string             `json:"bundle_map,omitempty"`
	ComponentURL string             `json:"component_url,omitempty"`
	Metadata     component.Metadata `json:"metadata"` // what introspection found: type, props, hooks, dedupe...
	CreatedAt    int64              `json:"created_at"`
	UpdatedAt    int64              `json:"updated_at"`
}

// Package is one npm package version bundled into a component.
type Package struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"` // "sha512-<base64>"
}

// RunCode is the code the sandbox runs: the bundle when there is one.
func (c Component) RunCode() string {
	if c.Bundle != "" {
		return c.Bundle
	}
	return c.Code
}

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
	Active     bool             `json:"active"`
	CreatedAt  int64            `json:"created_at"`
	UpdatedAt  int64            `json:"updated_at"`
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

// AppliesTo reports whether a covers src: src was created after a. When
// both records are from before creation orders existed, they compare by
// their creation second as fount did then (a tie applies), so that an
// upgrade changes no delivery.
func (a AutoSubscription) AppliesTo(src Source) bool {
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

// Webhook is an account-level delivery URL.
type Webhook struct {
	ID            string  `json:"id"` // wh_...
	OwnerID       string  `json:"owner_id"`
	UserID        string  `json:"user_id"`
	Name          *string `json:"name"`
	Description   *string `json:"description"`
	URL           string  `json:"url"`
	Active        bool    `json:"active"`
	SigningSecret string  `json:"signing_secret"` // whsec_...
	// PreviousSecret also signs deliveries until PreviousUntilMs, after a
	// rotation, so that receivers can switch keys without a gap.
	PreviousSecret  string `json:"previous_secret,omitempty"`
	PreviousUntilMs int64  `json:"previous_until_ms,omitempty"`
	// ConsecutiveFailures counts the deliveries that failed for good in a
	// row, since FailingSinceMs; DisabledReason says why the engine
	// deactivated the webhook, if it did.
	ConsecutiveFailures int    `json:"consecutive_failures,omitempty"`
	FailingSinceMs      int64  `json:"failing_since_ms,omitempty"`
	DisabledReason      string `json:"disabled_reason,omitempty"`
	CreatedAt           int64  `json:"created_at"`
	UpdatedAt           int64  `json:"updated_at"`
}

// Event is one stored emit of an emitter.
type Event struct {
	ID          string `json:"id"` // <epoch_ms>-<seq>, increasing per emitter
	IndexedAtMs int64  `json:"indexed_at_ms"`
	EmitterID   string `json:"emitter_id"`
	Name        string `json:"name"` // channel; "" default, "$errors", "$logs", "$in"...
	EmitID      string `json:"emit_id"`
	// DedupeID is the id the component gave the emit ($emit's meta.id),
	// "" when it gave none.
	DedupeID string          `json:"dedupe_id,omitempty"`
	Summary  string          `json:"summary,omitempty"`
	Data     json.RawMessage `json:"data"` // the emitted event
	// Size is the length of Data as stored, set by PageEvents, whose
	// preview may cut Data short (it is no longer JSON then).
	Size int `json:"-"`
}

// Page asks for one page of a list. Cursors are opaque strings the store
// produced; After and Before are mutually exclusive. MaxBytes, when above
// 0, ends the page early once its records' stored size would pass it
// (it always holds at least one); the page then keeps the records
// nearest the cursor, so that paging on from it misses none.
type Page struct {
	Limit    int
	After    string
	Before   string
	MaxBytes int
}

// PageOf is one page of a list in a stable order.
type PageOf[T any] struct {
	Items       []T
	Cursors     []string // Cursors[i] is the cursor of Items[i]
	TotalCount  int
	StartCursor string
	EndCursor   string
}
