package store

import "encoding/json"

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
	ID           string          `json:"id"`       // sc_...
	OwnerID      string          `json:"owner_id"` // user or org whose namespace holds Key
	Key          string          `json:"key,omitempty"`
	Name         string          `json:"name"`
	Version      string          `json:"version"`
	Code         string          `json:"code"`
	CodeHash     string          `json:"code_hash"` // sha256 of Code, hex
	ComponentURL string          `json:"component_url,omitempty"`
	Metadata     json.RawMessage `json:"metadata"` // host.Metadata: type, props, hooks, dedupe...
	CreatedAt    int64           `json:"created_at"`
	UpdatedAt    int64           `json:"updated_at"`
}

// Source is a deployed component.
type Source struct {
	ID          string `json:"id"`       // dc_...
	OwnerID     string `json:"owner_id"` // user or org
	UserID      string `json:"user_id"`  // who created it
	ComponentID string `json:"component_id"`
	Name        string `json:"name"`
	NameSlug    string `json:"name_slug"` // unique per owner
	// ConfiguredProps as stored: secret values are sealed (encrypted) by
	// the caller before they reach the store.
	ConfiguredProps json.RawMessage `json:"configured_props"`
	Active          bool            `json:"active"`
	CreatedAt       int64           `json:"created_at"`
	UpdatedAt       int64           `json:"updated_at"`
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
	CreatedAt     int64   `json:"created_at"`
	UpdatedAt     int64   `json:"updated_at"`
}

// Event is one stored emit of an emitter.
type Event struct {
	ID          string          `json:"id"` // <epoch_ms>-<seq>, increasing per emitter
	IndexedAtMs int64           `json:"indexed_at_ms"`
	EmitterID   string          `json:"emitter_id"`
	Name        string          `json:"name"` // channel; "" default, "$errors", "$logs", "$in"...
	EmitID      string          `json:"emit_id"`
	Summary     string          `json:"summary,omitempty"`
	Data        json.RawMessage `json:"data"` // the emitted event
}

// Page asks for one page of a list. Cursors are opaque strings the store
// produced; After and Before are mutually exclusive.
type Page struct {
	Limit  int
	After  string
	Before string
}

// PageOf is one page of a list in a stable order.
type PageOf[T any] struct {
	Items       []T
	Cursors     []string // Cursors[i] is the cursor of Items[i]
	TotalCount  int
	StartCursor string
	EndCursor   string
}
