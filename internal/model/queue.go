package model

import (
	"encoding/json"

	"github.com/fount-dev/fount/internal/ids"
)

// TargetKind is what runs invocations: a source or a workflow.
type TargetKind string

// The kinds of targets.
const (
	TargetSource   TargetKind = "source"
	TargetWorkflow TargetKind = "workflow"
)

// Target names a source or a workflow: what queued invocations, timers,
// endpoints and subscriptions lead to. It is comparable, a map key.
type Target struct {
	Kind TargetKind
	ID   string
}

// SourceTarget and WorkflowTarget name a source and a workflow.
func SourceTarget(id string) Target   { return Target{Kind: TargetSource, ID: id} }
func WorkflowTarget(id string) Target { return Target{Kind: TargetWorkflow, ID: id} }

// String is the target as logs name it: its kind and id.
func (t Target) String() string { return string(t.Kind) + " " + t.ID }

// IsWorkflow reports whether the target is a workflow.
func (t Target) IsWorkflow() bool { return t.Kind == TargetWorkflow }

// TargetOfStored is the target that id names, for a record stored before
// records named their target's kind (an invocation queued, or a
// subscription made, by an older fount): what its id says.
func TargetOfStored(id string) (Target, bool) {
	switch kind, _ := ids.Of(id); kind {
	case ids.Source:
		return SourceTarget(id), true
	case ids.Workflow:
		return WorkflowTarget(id), true
	}
	return Target{}, false
}

// Invocation is durable work for one source: an HTTP request, a timer
// fire, a manual run, or an event delivered through a subscription. It
// stays queued until the run's results are committed with CompleteRun, in
// the same transaction, so a crash never loses an acknowledged request.
type Invocation struct {
	ID string `json:"id"` // assigned by EnqueueInvocation; increasing per store
	// TargetID is the source or workflow that runs it (stored as
	// source_id, its name from before workflows).
	TargetID string `json:"source_id"`
	// TargetKind is what TargetID names; one queued before invocations
	// named it has none, and Target tells it from the id.
	TargetKind TargetKind      `json:"target_kind,omitempty"`
	Kind       InvocationKind  `json:"kind"` // why it runs, set by the engine
	Event      json.RawMessage `json:"event"`
	Hops       int             `json:"hops,omitempty"` // subscription hops that led here (loop bound)
	// ReplyTo names the in-memory waiter of a customResponse request; it
	// is meaningless after a restart, when nobody waits any more.
	ReplyTo      string `json:"reply_to,omitempty"`
	EnqueuedAtMs int64  `json:"enqueued_at_ms"`
}

// NewInvocation is an invocation of target, queued for why.
func NewInvocation(target Target, why InvocationKind, event json.RawMessage) Invocation {
	return Invocation{TargetID: target.ID, TargetKind: target.Kind, Kind: why, Event: event}
}

// Target is what runs the invocation.
func (inv Invocation) Target() Target {
	if inv.TargetKind != "" {
		return Target{Kind: inv.TargetKind, ID: inv.TargetID}
	}
	t, _ := TargetOfStored(inv.TargetID)
	return t
}

// InvocationKind is why an invocation runs: the trigger that queued it,
// or what the engine goes on with.
type InvocationKind string

// The kinds of invocations.
const (
	InvocationHTTP   InvocationKind = "http"   // a request to an endpoint
	InvocationTimer  InvocationKind = "timer"  // a timer's fire
	InvocationManual InvocationKind = "manual" // a run asked through the API or the CLI
	InvocationEvent  InvocationKind = "event"  // an event of a subscription
	// InvocationRelease emits a source's delayed events, or goes on with
	// a workflow's paused executions, whose time has come.
	InvocationRelease InvocationKind = "release"
	// InvocationResume goes on with, or cancels, a paused execution whose
	// resume or cancel URL was called.
	InvocationResume InvocationKind = "resume"
)

// Delivery is one event on its way to a webhook or workflow listener.
type Delivery struct {
	ID string `json:"id"` // assigned by the store
	// Kind is what the delivery is; one stored before deliveries named it
	// has none, and What tells it from its fields.
	Kind       DeliveryKind    `json:"kind,omitempty"`
	ListenerID string          `json:"listener_id"`
	EmitterID  string          `json:"emitter_id"`
	EventID    string          `json:"event_id"`
	Channel    string          `json:"channel"`
	Payload    json.RawMessage `json:"payload"` // the body to send
	// Request, when set, is a workflow's $.send.http: sent as it is, not
	// signed, instead of Payload.
	Request       *DeliveryRequest `json:"request,omitempty"`
	Status        string           `json:"status"` // DeliveryPending, DeliveryDelivered, DeliveryFailed
	Attempts      []Attempt        `json:"attempts"`
	NextAttemptMs int64            `json:"next_attempt_ms"`
	CreatedAtMs   int64            `json:"created_at_ms"`
}

// DeliveryKind is what a delivery is: an event for a webhook (its
// listener), or a workflow's $.send.http request or $.send.s3 object
// (the workflow is its listener).
type DeliveryKind string

// The kinds of deliveries.
const (
	DeliveryToWebhook DeliveryKind = "webhook"
	DeliverySendHTTP  DeliveryKind = "send.http"
	DeliverySendS3    DeliveryKind = "send.s3"
)

// ChannelSendS3 is the channel of the deliveries of $.send.s3 stored
// before deliveries named their kind: their Request's URL is the
// object's key, its Body the object.
const ChannelSendS3 = "$send.s3"

// What is the delivery's kind: Kind, or for one stored before deliveries
// named it, what its fields say (a Request is a workflow's send, to S3
// on ChannelSendS3).
func (d Delivery) What() DeliveryKind {
	switch {
	case d.Kind != "":
		return d.Kind
	case d.Request == nil:
		return DeliveryToWebhook
	case d.Channel == ChannelSendS3:
		return DeliverySendS3
	}
	return DeliverySendHTTP
}

// Listener names what a delivery's listener is: "webhook" or "workflow".
func (k DeliveryKind) Listener() string {
	if k == DeliveryToWebhook {
		return "webhook"
	}
	return "workflow"
}

// DeliveryRequest is the HTTP request of a workflow's $.send.http.
type DeliveryRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Attempt is one try of a delivery.
type Attempt struct {
	AtMs       int64  `json:"at_ms"`
	Status     int    `json:"status,omitempty"` // HTTP status, 0 when none came back
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"duration_ms"`
}

// DedupeState is what a source's dedupe strategy remembers.
type DedupeState struct {
	Unique   []string `json:"unique,omitempty"`   // last ids, oldest first (at most 100)
	Greatest *float64 `json:"greatest,omitempty"` // largest numeric id so far
	Last     string   `json:"last,omitempty"`     // id of the last emitted event
}

// Usage is an account's counters for one day.
type Usage struct {
	Invocations int64 `json:"invocations"`
	ComputeMs   int64 `json:"compute_ms"`
	NpmBytes    int64 `json:"npm_bytes,omitempty"` // of tarballs downloaded for the account's deploys
}

// Plus is u with d added.
func (u Usage) Plus(d Usage) Usage {
	return Usage{Invocations: u.Invocations + d.Invocations, ComputeMs: u.ComputeMs + d.ComputeMs, NpmBytes: u.NpmBytes + d.NpmBytes}
}
