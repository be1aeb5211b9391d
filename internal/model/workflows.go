package model

import (
	"encoding/json"
	"strconv"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
)

// Trigger types of a workflow.
const (
	TriggerHTTP   = "http"   // an endpoint of its own
	TriggerTimer  = "timer"  // a cron or interval schedule
	TriggerSource = "source" // events of an emitter, as a subscription listener
	TriggerManual = "manual" // runs only when asked (POST /workflows/{id}/run)
)

// Step kinds of a workflow.
const (
	StepCode   = "code"   // a module exporting defineComponent({...}) or a plain object
	StepAction = "action" // an action component with configured props
)

// Workflow is a trigger and ordered steps. Its steps' code is stored in
// the record, so that a workflow never depends on a saved component the
// component limit could drop.
type Workflow struct {
	ID       string          `json:"id"`       // p_...
	OwnerID  string          `json:"owner_id"` // user or org
	UserID   string          `json:"user_id"`  // who created it
	Name     string          `json:"name"`
	NameSlug string          `json:"name_slug"` // unique per owner among workflows
	Active   bool            `json:"active"`
	Trigger  WorkflowTrigger `json:"trigger"`
	Steps    []WorkflowStep  `json:"steps"`
	// Controls shape how its executions run.
	Controls
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
	// Version counts the workflow's updates, so that the engine knows
	// when the steps it has loaded are stale. Each is a deployment
	// (DeploymentID).
	Version uint64 `json:"version"`
	// Order is the store's creation order, shared with sources and
	// auto-subscriptions (assigned by CreateWorkflow).
	Order uint64 `json:"order,omitempty"`
}

// WorkflowTrigger is what starts a workflow's executions.
type WorkflowTrigger struct {
	Type string `json:"type"` // TriggerHTTP, TriggerTimer, TriggerSource or TriggerManual
	// HTTP: the endpoint's token, and whether the workflow answers the
	// request itself with $.respond().
	Endpoint component.EndpointToken `json:"endpoint,omitempty"`
	Respond  bool                    `json:"respond,omitempty"`
	// TokenHash is the hex sha256 of the bearer token requests must
	// carry; empty: none. The token itself is never stored.
	TokenHash string `json:"token_hash,omitempty"`
	// Timer: the schedule.
	Timer *component.TimerSpec `json:"timer,omitempty"`
	// Source: the emitter (an id or a glob) and channel whose events
	// start executions, through the subscription SubscriptionID.
	EmitterID      string `json:"emitter_id,omitempty"`
	EventName      string `json:"event_name,omitempty"`
	SubscriptionID string `json:"subscription_id,omitempty"`
}

// WorkflowStep is one step: its code and configured props.
type WorkflowStep struct {
	Name string `json:"name"` // unique in the workflow; steps.<name> in later steps
	Kind string `json:"kind"` // StepCode or StepAction
	// Key is the registry key of an action step deployed by key.
	Key      string            `json:"key,omitempty"`
	Code     string            `json:"code"`
	Filename string            `json:"filename,omitempty"`
	Modules  map[string]string `json:"modules,omitempty"`
	// Bundle and Packages are as a Component's: Code with its npm
	// packages bundled in, and their lock.
	Bundle    string             `json:"bundle,omitempty"`
	BundleMap string             `json:"bundle_map,omitempty"`
	SourceMap string             `json:"source_map,omitempty"` // Code to its author's files
	Packages  []Package          `json:"packages,omitempty"`
	Metadata  component.Metadata `json:"metadata"`
	// Props are the configured values; a string may hold {{...}}
	// expressions, evaluated in the sandbox at each execution. Values
	// named in SecretProps are sealed.
	Props       map[string]json.RawMessage `json:"props,omitempty"`
	SecretProps []string                   `json:"secret_props,omitempty"`
}

// RunCode is the code the sandbox runs: the bundle when there is one.
func (s WorkflowStep) RunCode() string {
	if s.Bundle != "" {
		return s.Bundle
	}
	return s.Code
}

// Execution states.
const (
	ExecutionSuccess = "success"
	ExecutionExited  = "exited" // a step returned $.flow.exit(reason)
	ExecutionError   = "error"  // a step threw, timed out or ran out of memory
	// ExecutionPaused waits on $.flow.delay, suspend or rerun (Pause).
	ExecutionPaused = "paused"
	// ExecutionCancelled was paused and cancelled: by its cancel URL, or
	// a suspend that was not resumed in time.
	ExecutionCancelled = "cancelled"
)

// ExecutionPause is what a paused execution waits for.
type ExecutionPause struct {
	Kind string `json:"kind"` // delay, suspend or rerun
	// Step is the step that paused it; a rerun runs it again.
	Step string `json:"step"`
	// UntilMs is when it goes on by itself (a suspend: when it is
	// cancelled), epoch ms.
	UntilMs int64 `json:"until_ms"`
}

// Execution is one run of a workflow: its trigger event and what each
// step did. Values are capped in size by the engine; Truncated says so.
type Execution struct {
	ID          string          `json:"id"` // ExecutionID(workflow, invocation id)
	WorkflowID  string          `json:"workflow_id"`
	Event       json.RawMessage `json:"event"` // the trigger event
	StartedAtMs int64           `json:"started_at_ms"`
	DurationMs  int64           `json:"duration_ms"`
	Status      string          `json:"status"` // one of the Execution states
	// ExitReason is $.flow.exit's reason, or why a paused execution was
	// cancelled.
	ExitReason string `json:"exit_reason,omitempty"`
	// Pause is what a paused execution waits for.
	Pause     *ExecutionPause `json:"pause,omitempty"`
	Steps     []StepExecution `json:"steps"`
	Truncated bool            `json:"truncated,omitempty"`
	// DeploymentID names the version of the workflow that ran (empty in
	// records from before it was kept).
	DeploymentID string `json:"deployment_id,omitempty"`
}

// Emitter is wf as an emitter of events: its steps' emits and errors.
func (wf Workflow) Emitter() Emitter {
	return Emitter{Kind: TargetWorkflow, ID: wf.ID, OwnerID: wf.OwnerID, UserID: wf.UserID, Order: wf.Order, CreatedAt: wf.CreatedAt}
}

// Controls are a workflow's execution controls.
type Controls struct {
	// Throttle bounds how many executions start per interval; nil: no
	// bound.
	Throttle *Throttle `json:"throttle,omitempty"`
	// Concurrency is how many executions run at once (0 or 1: one at a
	// time, in arrival order).
	Concurrency int `json:"concurrency,omitempty"`
	// QueueSize bounds the executions waiting to start: a request past
	// it is refused (0: no bound).
	QueueSize int `json:"queue_size,omitempty"`
	// Retry reruns a failed execution from its failed step (nil: none).
	Retry *Retry `json:"retry,omitempty"`
}

// Throttle is at most Limit executions started per IntervalSeconds; the
// rest wait in the workflow's queue, in order.
type Throttle struct {
	Limit           int `json:"limit"`
	IntervalSeconds int `json:"interval_seconds"`
}

// DataStore is a named key-value store of an account, shared by its
// sources and workflows through data_store props. Keys and Bytes count
// what it holds (keys and values, expired ones until they are swept).
type DataStore struct {
	ID        string `json:"id"` // ds_...
	OwnerID   string `json:"owner_id"`
	Name      string `json:"name"`
	CreatedAt int64  `json:"created_at"`
	Keys      int    `json:"keys"`
	Bytes     int64  `json:"bytes"`
}

// DataEntry is a key of a data store with its JSON value; ExpiresAtMs,
// when not 0, is when it stops being there.
type DataEntry struct {
	Key         string          `json:"k"`
	Value       json.RawMessage `json:"v"`
	ExpiresAtMs int64           `json:"e,omitempty"`
}

// Retry reruns a failed execution's failed step up to Attempts more
// times, with exponential backoff, before it counts as failed.
type Retry struct {
	Attempts int `json:"attempts"`
}

// StepID is the id of workflowID's step named name: the specification's
// cell id (c_...), the same across updates that keep the step's name.
func StepID(workflowID, name string) string {
	return ids.Derive(ids.Cell, workflowID, name)
}

// DeploymentID is the id of version of workflowID (d_...): every update
// of its definition deploys a new version; pausing or resuming it does
// not.
func DeploymentID(workflowID string, version uint64) string {
	return ids.Derive(ids.Deployment, workflowID, strconv.FormatUint(version, 10))
}

// StepExecution is what one step of an execution did.
type StepExecution struct {
	Name        string                     `json:"name"`
	Status      string                     `json:"status"` // ExecutionSuccess, ExecutionExited or ExecutionError
	DurationMs  int64                      `json:"duration_ms"`
	ReturnValue json.RawMessage            `json:"$return_value,omitempty"`
	Exports     map[string]json.RawMessage `json:"exports,omitempty"`
	Summary     string                     `json:"$summary,omitempty"`
	Logs        []StepLog                  `json:"logs,omitempty"`
	Error       *StepError                 `json:"error,omitempty"`
	Truncated   bool                       `json:"truncated,omitempty"`
}

// StepLog is one console line of a step.
type StepLog struct {
	AtMs  int64  `json:"at_ms"`
	Level string `json:"level"`
	Text  string `json:"text"`
}

// StepError is why a step failed.
type StepError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
}
