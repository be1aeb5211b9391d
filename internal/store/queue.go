package store

import (
	"context"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// Routed is what an event stored by CompleteRun leads to: invocations of
// listener sources and deliveries to webhooks and workflows.
type Routed struct {
	Invocations []model.Invocation
	Deliveries  []model.Delivery
}

// RunCommit is everything one finished run changes, committed together.
type RunCommit struct {
	// Events to append to the source's log (ids are assigned), trimmed to
	// Keep per channel.
	Events []model.Event
	Keep   int
	// Pause, when not nil, is the workflow execution this run paused,
	// stored with it (paused.go).
	Pause *PausedExecution
	// MaxPaused, when above 0, bounds the workflow's paused executions:
	// a commit whose Pause would make more applies OverPaused(c, held)
	// instead, held being how many it holds once Resume is removed. It
	// is checked in the commit's transaction, so that no burst of runs,
	// committed together or by several nodes, passes it. OverPaused is
	// called inside the transaction, must not do I/O, and must pause
	// nothing.
	MaxPaused  int
	OverPaused func(c RunCommit, held int) RunCommit
	// Route is called inside the transaction for each stored event, with
	// its id assigned; what it returns is enqueued in the same
	// transaction. It must not do I/O.
	Route func(e model.Event) Routed
	// Release names events of the source's ChannelDelayed that this run
	// emits: Events[i] is the release of Release[i]. Each is removed from
	// ChannelDelayed in the same transaction; one that is gone by then
	// (cancelled) is not emitted.
	Release []string
	// Resume names the paused execution of the workflow that this run
	// continues (its execution id). The commit removes it first; when it is gone already (the execution was
	// resumed or cancelled by another run, or deleted), the commit
	// applies nothing but the removal of its invocation. A CompletedRun
	// that resumes an execution may have no invocation of its own (an
	// empty Invocation.ID, its TargetID the workflow): the paused record
	// stands for it, so that one release runs many waiting executions.
	Resume string
	// Dedupe, when not nil, replaces the source's dedupe state.
	Dedupe *model.DedupeState
	// DedupeAfter, when not nil, is the dedupe state once the first n of
	// Events are stored: what a run's first part, committed before the
	// rest (CompleteRuns), leaves. It is called inside the transaction
	// and must not do I/O.
	DedupeAfter func(n int) *model.DedupeState
	// Execution, when not nil, is the record of a workflow's execution,
	// stored with the run; the workflow keeps its newest ExecutionsKept.
	Execution      *model.Execution
	ExecutionsKept int
	// Deliveries are queued with the commit: a workflow's $.send.http
	// requests.
	Deliveries []model.Delivery
	// Outcome, when not nil, is how the run this commit ends went: it
	// is counted in the target's statistics of the minute. A workflow's
	// is read from its Execution when not given.
	Outcome *model.RunOutcome
	// Usage is added to the account's counters for the day.
	UsageAccount string
	UsageDay     string // YYYY-MM-DD, UTC
	Invocations  int64
	ComputeMs    int64
}

// CompletedRun pairs a finished invocation with what it changes.
type CompletedRun struct {
	Invocation model.Invocation
	Commit     RunCommit
}

// Queues is the engine's durable state. Bolt implements it.
type Queues interface {
	// AllSources returns every source of every owner.
	AllSources(ctx context.Context) ([]model.Source, error)
	// AllWorkflows returns every workflow of every owner.
	AllWorkflows(ctx context.Context) ([]model.Workflow, error)

	// EnqueueInvocation stores inv (ID and EnqueuedAtMs assigned) and
	// returns it.
	EnqueueInvocation(ctx context.Context, inv model.Invocation) (model.Invocation, error)
	// EnqueueInvocationWithin is EnqueueInvocation refused with
	// ErrQueueFull when inv's target holds limit queued invocations
	// already (limit <= 0: no bound), counted with the write, so that a
	// burst of enqueues cannot pass it.
	EnqueueInvocationWithin(ctx context.Context, inv model.Invocation, limit int) (model.Invocation, error)
	// PendingInvocations returns up to limit queued invocations of a
	// source, oldest first.
	PendingInvocations(ctx context.Context, sourceID string, limit int) ([]model.Invocation, error)
	// TargetsWithPending lists the sources and workflows that have queued
	// invocations.
	TargetsWithPending(ctx context.Context) ([]model.Target, error)
	// CountPending counts a source's queued invocations, up to limit: a
	// bound is checked without counting past it.
	CountPending(ctx context.Context, sourceID string, limit int) (int, error)
	// CompleteRun removes inv from the queue and applies c, atomically;
	// it returns the stored events. An invocation already removed gives
	// ErrNotFound and changes nothing.
	CompleteRun(ctx context.Context, inv model.Invocation, c RunCommit) ([]model.Event, error)
	// CompleteRuns commits several runs in order, in as few transactions
	// as keep each short; a run's completion is atomic with its last
	// events, and a run whose invocation is gone is skipped (nil
	// events). On error, the results of the runs committed before it
	// are returned with it.
	CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]model.Event, error)

	// CommitEvents applies c for a source without an invocation to
	// remove (events of its lifecycle outside a run).
	CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]model.Event, error)

	// GetDedupe returns a source's dedupe state (zero value when none).
	GetDedupe(ctx context.Context, sourceID string) (model.DedupeState, error)

	// DueDeliveries returns up to limit pending deliveries whose
	// NextAttemptMs is at or before nowMs, at most one per listener (its
	// earliest due), taking listeners in a fixed order from the one after
	// afterListener round to it; listeners skip returns true for are
	// passed over.
	DueDeliveries(ctx context.Context, nowMs int64, afterListener string, limit int, skip func(listenerID string) bool) ([]model.Delivery, error)
	// UpdateDelivery stores d (status, attempts, next attempt). A listener
	// keeps a bounded number of settled deliveries, the newest.
	UpdateDelivery(ctx context.Context, d model.Delivery) error
	// EnqueueDeliveries stores new pending deliveries (a replay), in one
	// transaction, with the same backlog bound as routed ones.
	EnqueueDeliveries(ctx context.Context, ds []model.Delivery) ([]model.Delivery, error)
	// GetDelivery returns a delivery by id, or ErrNotFound.
	GetDelivery(ctx context.Context, id string) (model.Delivery, error)
	// ListDeliveries lists a listener's deliveries, newest first.
	ListDeliveries(ctx context.Context, listenerID string, p Page) (PageOf[model.Delivery], error)

	// GetUsage returns an account's counters for a day.
	GetUsage(ctx context.Context, accountID, day string) (model.Usage, error)
	// AddUsage adds to an account's counters for a day: what ran outside
	// a run (loading code, hooks), which no run commit counts.
	AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error
	// AddNpmBytes adds to the bytes of npm tarballs an account's deploys
	// downloaded on a day.
	AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error

	// StatsOf returns a source's, workflow's or webhook's statistics
	// over a range, a point per step (stats.go).
	StatsOf(ctx context.Context, id string, from, to time.Time, step time.Duration) ([]model.Stats, error)

	// TimerLastFire and SetTimerLastFire remember when a source's timer
	// last fired (epoch ms), so schedules survive restarts.
	TimerLastFire(ctx context.Context, sourceID string) (int64, error)
	SetTimerLastFire(ctx context.Context, sourceID string, ms int64) error
	// FireTimer enqueues inv, the run of the tick due at dueMs of the
	// timer prop of a source or workflow (inv.TargetID), and records dueMs
	// as that timer's last fire (and its source's, unless later),
	// atomically, unless the timer already fired at or after dueMs: then
	// it changes nothing and returns false. Nodes sharing a store thus run
	// each tick once.
	FireTimer(ctx context.Context, inv model.Invocation, prop string, dueMs int64) (bool, error)
}
