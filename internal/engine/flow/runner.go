package flow

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// TriggerStep is the reserved name of the trigger in steps.*.
const TriggerStep = "trigger"

// Config configures a Runner. Every field is required but Objects and
// Observer; the engine gives its own values.
type Config struct {
	Store     store.Store
	Clock     clock.Clock
	Logger    *slog.Logger
	Host      Host
	Delayed   *delayed.Scheduler[model.Target] // when paused executions are due
	Throttles *batch.Throttles                 // forgotten with a deleted workflow
	// Objects is the operator's bucket of $.send.s3; nil: none.
	Objects delivery.ObjectSink
	// Observer is told of each step's run, for metrics; nil: nobody.
	Observer interface {
		RunFinished(kind, outcome string, d time.Duration)
	}
	PublicURL           string         // the base of resume and cancel URLs
	Limits              sandbox.Limits // of each step's call
	ExecutionTimeout    time.Duration  // of all of an execution's steps
	EventsKept          int
	ExecutionsKept      int
	ExecutionRetryBase  time.Duration // the first wait of model.Retry
	MaxPausedExecutions int           // of one workflow
}

// Host is what a workflow's steps need of the engine around them: their
// code loaded with their props, a sandbox reserved for each call, and
// what a call may reach.
type Host interface {
	// LoadStep loads step of wf with its static props, and returns its
	// templates (props evaluated at each execution).
	LoadStep(ctx context.Context, wf model.Workflow, step model.WorkflowStep) (sandbox.Source, map[string]string, error)
	// Reserve waits, at most until deadline, for a sandbox for account's
	// call on target; release frees it.
	Reserve(ctx context.Context, account, target string, limits sandbox.Limits, deadline time.Time) (release func(), err error)
	// Capabilities are the accounts, data stores and egress a call of
	// step of wf may reach; explain adds to a call's error what became
	// of an account it used.
	Capabilities(wf model.Workflow, step model.WorkflowStep) (caps sandbox.Capabilities, explain func(error) error)
	// DB is a workflow's $.service.db.
	DB(workflowID string) sandbox.KV
	// Channels bounds the channels one execution of a workflow adds.
	Channels(workflowID string) *emit.Budget
	// MapStack maps the stack of err, thrown by step of wf, to its
	// author's files; oneOff: a step run on its own, of no stored
	// workflow.
	MapStack(err error, wf model.Workflow, step model.WorkflowStep, oneOff bool) error
}

// Runner runs workflows' executions: the batch runner of their queues
// (package batch), with their loaded steps and the due times of their
// paused executions.
type Runner struct {
	cfg    Config
	host   Host
	log    *slog.Logger
	loaded *loadedSet
	due    *pausedDueSet
}

// New returns a Runner of cfg.
func New(cfg Config) *Runner {
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	return &Runner{cfg: cfg, host: cfg.Host, log: cfg.Logger, loaded: newLoadedSet(), due: newPausedDueSet()}
}

type noObserver struct{}

func (noObserver) RunFinished(string, string, time.Duration) {}

// Forget drops what the runner holds of workflow id: its loaded steps,
// throttle window and paused executions' due times (deleted, or taken
// over by another node).
func (r *Runner) Forget(id string) {
	r.loaded.forget(id)
	r.cfg.Throttles.Forget(id)
	r.cfg.Delayed.Forget(model.WorkflowTarget(id))
	r.due.forget(id)
}

// Unload closes workflow id's loaded steps (updated: they load anew).
func (r *Runner) Unload(id string) { r.loaded.forget(id) }

// Account returns the account a loaded workflow's executions count
// against; false when it is not loaded.
func (r *Runner) Account(id string) (string, bool) { return r.loaded.account(id) }

// Close closes every loaded workflow's steps.
func (r *Runner) Close() { r.loaded.closeAll() }

// flowURL is the base of an execution's resume and cancel URLs, as a
// JSON string: the step adds its secret and the action.
func (r *Runner) flowURL(executionID string) json.RawMessage {
	b, _ := json.Marshal(strings.TrimRight(r.cfg.PublicURL, "/") + component.FlowPath + executionID)
	return b
}
