package store

import (
	"context"
	"encoding/json"
)

// Invocation is durable work for one source: an HTTP request, a timer
// fire, a manual run, or an event delivered through a subscription. It
// stays queued until the run's results are committed with CompleteRun, in
// the same transaction, so a crash never loses an acknowledged request.
type Invocation struct {
	ID       string          `json:"id"` // assigned by EnqueueInvocation; increasing per store
	SourceID string          `json:"source_id"`
	Kind     string          `json:"kind"` // set by the engine: "http", "timer", "manual", "event", "release"
	Event    json.RawMessage `json:"event"`
	Hops     int             `json:"hops,omitempty"` // subscription hops that led here (loop bound)
	// ReplyTo names the in-memory waiter of a customResponse request; it
	// is meaningless after a restart, when nobody waits any more.
	ReplyTo      string `json:"reply_to,omitempty"`
	EnqueuedAtMs int64  `json:"enqueued_at_ms"`
}

// Delivery is one event on its way to a webhook or workflow listener.
type Delivery struct {
	ID         string          `json:"id"` // assigned by the store
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

// Routed is what an event stored by CompleteRun leads to: invocations of
// listener sources and deliveries to webhooks and workflows.
type Routed struct {
	Invocations []Invocation
	Deliveries  []Delivery
}

// RunCommit is everything one finished run changes, committed together.
type RunCommit struct {
	// Events to append to the source's log (ids are assigned), trimmed to
	// Keep per channel.
	Events []Event
	Keep   int
	// Route is called inside the transaction for each stored event, with
	// its id assigned; what it returns is enqueued in the same
	// transaction. It must not do I/O.
	Route func(e Event) Routed
	// Release names events of the source's ChannelDelayed that this run
	// emits: Events[i] is the release of Release[i]. Each is removed from
	// ChannelDelayed in the same transaction; one that is gone by then
	// (cancelled) is not emitted.
	Release []string
	// Dedupe, when not nil, replaces the source's dedupe state.
	Dedupe *DedupeState
	// DedupeAfter, when not nil, is the dedupe state once the first n of
	// Events are stored: what a run's first part, committed before the
	// rest (CompleteRuns), leaves. It is called inside the transaction
	// and must not do I/O.
	DedupeAfter func(n int) *DedupeState
	// Execution, when not nil, is the record of a workflow's execution,
	// stored with the run; the workflow keeps its newest ExecutionsKept.
	Execution      *Execution
	ExecutionsKept int
	// Deliveries are queued with the commit: a workflow's $.send.http
	// requests.
	Deliveries []Delivery
	// Usage is added to the account's counters for the day.
	UsageAccount string
	UsageDay     string // YYYY-MM-DD, UTC
	Invocations  int64
	ComputeMs    int64
}

// CompletedRun pairs a finished invocation with what it changes.
type CompletedRun struct {
	Invocation Invocation
	Commit     RunCommit
}

// Usage is an account's counters for one day.
type Usage struct {
	Invocations int64 `json:"invocations"`
	ComputeMs   int64 `json:"compute_ms"`
	NpmBytes    int64 `json:"npm_bytes,omitempty"` // of tarballs downloaded for the account's deploys
}

func (u Usage) plus(d Usage) Usage {
	return Usage{Invocations: u.Invocations + d.Invocations, ComputeMs: u.ComputeMs + d.ComputeMs, NpmBytes: u.NpmBytes + d.NpmBytes}
}

// Queues is the engine's durable state. Bolt implements it.
type Queues interface {
	// AllSources returns every source of every owner.
	AllSources(ctx context.Context) ([]Source, error)
	// AllWorkflows returns every workflow of every owner.
	AllWorkflows(ctx context.Context) ([]Workflow, error)

	// EnqueueInvocation stores inv (ID and EnqueuedAtMs assigned) and
	// returns it.
	EnqueueInvocation(ctx context.Context, inv Invocation) (Invocation, error)
	// PendingInvocations returns up to limit queued invocations of a
	// source, oldest first.
	PendingInvocations(ctx context.Context, sourceID string, limit int) ([]Invocation, error)
	// SourcesWithPending lists the sources that have queued invocations.
	SourcesWithPending(ctx context.Context) ([]string, error)
	// CompleteRun removes inv from the queue and applies c, atomically;
	// it returns the stored events. An invocation already removed gives
	// ErrNotFound and changes nothing.
	CompleteRun(ctx context.Context, inv Invocation, c RunCommit) ([]Event, error)
	// CompleteRuns commits several runs in order, in as few transactions
	// as keep each short; a run's completion is atomic with its last
	// events, and a run whose invocation is gone is skipped (nil
	// events). On error, the results of the runs committed before it
	// are returned with it.
	CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]Event, error)

	// CommitEvents applies c for a source without an invocation to
	// remove (events of its lifecycle outside a run).
	CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]Event, error)

	// GetDedupe returns a source's dedupe state (zero value when none).
	GetDedupe(ctx context.Context, sourceID string) (DedupeState, error)

	// DueDeliveries returns up to limit pending deliveries whose
	// NextAttemptMs is at or before nowMs, at most one per listener (its
	// earliest due), taking listeners in a fixed order from the one after
	// afterListener round to it; listeners skip returns true for are
	// passed over.
	DueDeliveries(ctx context.Context, nowMs int64, afterListener string, limit int, skip func(listenerID string) bool) ([]Delivery, error)
	// UpdateDelivery stores d (status, attempts, next attempt). A listener
	// keeps a bounded number of settled deliveries, the newest.
	UpdateDelivery(ctx context.Context, d Delivery) error
	// EnqueueDeliveries stores new pending deliveries (a replay), in one
	// transaction, with the same backlog bound as routed ones.
	EnqueueDeliveries(ctx context.Context, ds []Delivery) ([]Delivery, error)
	// GetDelivery returns a delivery by id, or ErrNotFound.
	GetDelivery(ctx context.Context, id string) (Delivery, error)
	// ListDeliveries lists a listener's deliveries, newest first.
	ListDeliveries(ctx context.Context, listenerID string, p Page) (PageOf[Delivery], error)

	// GetUsage returns an account's counters for a day.
	GetUsage(ctx context.Context, accountID, day string) (Usage, error)
	// AddUsage adds to an account's counters for a day: what ran outside
	// a run (loading code, hooks), which no run commit counts.
	AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error
	// AddNpmBytes adds to the bytes of npm tarballs an account's deploys
	// downloaded on a day.
	AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error

	// TimerLastFire and SetTimerLastFire remember when a source's timer
	// last fired (epoch ms), so schedules survive restarts.
	TimerLastFire(ctx context.Context, sourceID string) (int64, error)
	SetTimerLastFire(ctx context.Context, sourceID string, ms int64) error
	// FireTimer enqueues inv, the run of the tick due at dueMs of the
	// timer prop of a source or workflow (inv.SourceID), and records dueMs
	// as that timer's last fire (and its source's, unless later),
	// atomically, unless the timer already fired at or after dueMs: then
	// it changes nothing and returns false. Nodes sharing a store thus run
	// each tick once.
	FireTimer(ctx context.Context, inv Invocation, prop string, dueMs int64) (bool, error)
}
