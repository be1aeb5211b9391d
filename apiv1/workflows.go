package apiv1

import "encoding/json"

// Workflows are fount's extension: the specification leaves workflow
// development out of its REST API and reads only a workflow's events.

// WorkflowDefinition is a workflow as a user writes it: a trigger and
// ordered steps, each step's code bundled.
type WorkflowDefinition struct {
	Name           string      `json:"name" maxLength:"256" required:"true" description:"unique per owner by its slug; a deploy by name updates the workflow with that slug"`
	Active         *bool       `json:"active,omitempty" default:"true" description:"false keeps the trigger down; manual runs still work"`
	Trigger        TriggerSpec `json:"trigger" required:"true"`
	Steps          []StepSpec  `json:"steps" required:"true" minItems:"1" maxItems:"50"`
	UpdatePackages bool        `json:"update_packages,omitempty" description:"resolve the steps' npm imports to the newest matching versions, instead of keeping the versions of unchanged steps"`
	Controls
}

// Controls are a workflow's execution controls; each left out is off.
type Controls struct {
	Throttle    *Throttle `json:"throttle,omitempty" description:"at most limit executions start per interval_seconds; the rest wait in the queue, in order"`
	Concurrency int       `json:"concurrency,omitempty" minimum:"0" maximum:"50" description:"executions that run at once (0 or 1: one at a time, in arrival order)"`
	QueueSize   int       `json:"queue_size,omitempty" minimum:"0" maximum:"10000" description:"most executions waiting to start; an HTTP request or a run past it gets 429 (0: no bound)"`
	Retry       *Retry    `json:"retry,omitempty" description:"rerun a failed execution's failed step, with exponential backoff, before it counts as failed"`
}

// Retry reruns a failed execution's failed step.
type Retry struct {
	Attempts int `json:"attempts" required:"true" minimum:"1" maximum:"8" description:"reruns after the first failure"`
}

// Throttle bounds how many executions of a workflow start per interval.
type Throttle struct {
	Limit           int `json:"limit" required:"true" minimum:"1" maximum:"10000"`
	IntervalSeconds int `json:"interval_seconds" required:"true" minimum:"1" maximum:"86400"`
}

// TriggerSpec is what starts a workflow's executions.
type TriggerSpec struct {
	Type string `json:"type" required:"true" enum:"http,timer,source,manual"`
	// HTTP.
	Respond bool   `json:"respond,omitempty" description:"http: the workflow answers with $.respond(); without one the request gets 502"`
	Token   string `json:"token,omitempty" description:"http: a static bearer token (16 to 256 characters of A-Z a-z 0-9 - . _ ~ + /, then = padding); a request without Authorization: Bearer <token> gets 401 and queues nothing. On update, \"[redacted]\" keeps the stored token and an empty one removes it"`
	// Timer.
	Timer json.RawMessage `json:"timer,omitempty" description:"timer: {\"intervalSeconds\": n} or {\"cron\": \"...\", \"timezone\": \"Europe/Paris\"} (timezone optional, an IANA name; the server's zone without it)"`
	// Source events.
	EmitterID string `json:"emitter_id,omitempty" description:"source: a dc_ or p_ id, or the glob dc_* or p_*"`
	EventName string `json:"event_name,omitempty" description:"source: the channel; default the default channel"`
}

// StepSpec is one step: a code step or an action with its props.
type StepSpec struct {
	Name      string                     `json:"name" required:"true" description:"letters, digits and _; later steps read steps.<name>"`
	Kind      string                     `json:"kind,omitempty" enum:"code,action" default:"code"`
	Code      string                     `json:"code,omitempty" description:"the step's bundled module; for an action, or its key"`
	Key       string                     `json:"key,omitempty" description:"action: a published component's registry key, instead of code"`
	Filename  string                     `json:"filename,omitempty"`
	SourceMap string                     `json:"source_map,omitempty" maxLength:"4194304" description:"a source map v3 from code to its author's files, so that stack traces name them; at most 4 MiB"`
	Modules   map[string]string          `json:"modules,omitempty" description:"further bundled modules by specifier"`
	Props     map[string]json.RawMessage `json:"props,omitempty" description:"configured props; a string may hold {{steps.<name>...}} expressions, evaluated in the sandbox"`
}

// CreateWorkflowRequest deploys a workflow.
type CreateWorkflowRequest struct {
	Common
	WorkflowDefinition
}

// UpdateWorkflowRequest replaces a workflow's definition.
type UpdateWorkflowRequest struct {
	Common
	ByID
	WorkflowDefinition
}

// SetWorkflowActiveRequest switches a workflow on or off without sending
// its definition again.
type SetWorkflowActiveRequest struct {
	Common
	ByID
	Active *bool `json:"active" required:"true" description:"false stops its trigger (manual runs still work); true starts it"`
}

// SetWorkflowControlsRequest replaces a workflow's execution controls:
// what it leaves out is off.
type SetWorkflowControlsRequest struct {
	Common
	ByID
	Controls
}

// WorkflowByIDRequest names a workflow.
type WorkflowByIDRequest struct {
	Common
	ByID
}

// Workflow is a deployed workflow.
type Workflow struct {
	ID       string         `json:"id" required:"true" description:"p_ id"`
	OwnerID  string         `json:"owner_id" required:"true"`
	UserID   string         `json:"user_id" required:"true"`
	Name     string         `json:"name" required:"true"`
	NameSlug string         `json:"name_slug" required:"true"`
	Active   bool           `json:"active" required:"true"`
	Trigger  TriggerView    `json:"trigger" required:"true"`
	Steps    []WorkflowStep `json:"steps" required:"true" nullable:"false"`
	Version  uint64         `json:"version" required:"true" description:"how many times it was updated"`
	Controls
	// PausedExecutions is read by GET /v1/workflows/{id} only.
	PausedExecutions int `json:"paused_executions,omitempty" description:"executions waiting on $.flow.delay, suspend, rerun or a retry (GET of one workflow only)"`
	// DeploymentID names the version deployed (d_...): each update of
	// the definition deploys a new one; pausing and resuming do not.
	DeploymentID string `json:"deployment_id" required:"true" description:"d_ id of the deployed version"`
	CreatedAt    int64  `json:"created_at" required:"true"`
	UpdatedAt    int64  `json:"updated_at" required:"true"`
}

// TriggerView is a deployed workflow's trigger.
type TriggerView struct {
	Type           string          `json:"type" required:"true"`
	EndpointURL    string          `json:"endpoint_url,omitempty" description:"http: where requests start executions"`
	Respond        bool            `json:"respond,omitempty"`
	Auth           string          `json:"auth,omitempty" enum:"bearer" description:"http: bearer when requests need the trigger's token (never shown)"`
	Timer          json.RawMessage `json:"timer,omitempty" description:"timer: {cron, interval_seconds, timezone}"`
	EmitterID      string          `json:"emitter_id,omitempty"`
	EventName      string          `json:"event_name,omitempty"`
	SubscriptionID string          `json:"subscription_id,omitempty" description:"source: the subscription that delivers the events"`
}

// WorkflowStep is a deployed step; secret props read "[redacted]".
type WorkflowStep struct {
	ID               string                     `json:"id" required:"true" description:"c_ id (the specification's cell), kept across updates that keep the step's name"`
	Name             string                     `json:"name" required:"true"`
	Kind             string                     `json:"kind" required:"true"`
	Key              string                     `json:"key,omitempty"`
	ComponentName    string                     `json:"component_name" required:"true"`
	ComponentVersion string                     `json:"component_version" required:"true"`
	Props            map[string]json.RawMessage `json:"props" required:"true" nullable:"false"`
	Packages         []Package                  `json:"packages,omitempty" description:"the npm packages bundled into the step's code (its lock)"`
}

// RunWorkflowRequest queues a manual execution.
type RunWorkflowRequest struct {
	Common
	ByID
	Event json.RawMessage `json:"event,omitempty" description:"the trigger event (steps.trigger.event); default {}"`
}

// ExecutionQueued answers a manual run.
type ExecutionQueued struct {
	WorkflowID  string `json:"workflow_id" required:"true"`
	ExecutionID string `json:"execution_id" required:"true" description:"GET /v1/executions/{id} once it has run"`
	Queued      bool   `json:"queued" required:"true"`
}

// ExecutionsRequest lists a workflow's kept executions.
type ExecutionsRequest struct {
	Common
	ByID
	Limit int `query:"limit" json:"-" minimum:"1" maximum:"1000" default:"100" description:"the newest N"`
}

// ExecutionByIDRequest names an execution.
type ExecutionByIDRequest struct {
	Common
	ByID
}

// ExecutionSummary is an execution without its values and logs.
type ExecutionSummary struct {
	ID           string        `json:"id" required:"true"`
	WorkflowID   string        `json:"workflow_id" required:"true"`
	DeploymentID string        `json:"deployment_id,omitempty" description:"d_ id of the version that ran (absent for executions recorded before it was kept)"`
	Status       string        `json:"status" required:"true" enum:"success,exited,error,paused,cancelled"`
	ExitReason   string        `json:"exit_reason,omitempty" description:"$.flow.exit's reason, or why a paused execution was cancelled"`
	Pause        *Pause        `json:"pause,omitempty" description:"what a paused execution waits for"`
	StartedAtMs  int64         `json:"started_at_ms" required:"true"`
	DurationMs   int64         `json:"duration_ms" required:"true"`
	Steps        []StepSummary `json:"steps" required:"true" nullable:"false"`
}

// Pause is what a paused execution waits for: its delay, a call of its
// resume URL (a suspend), or the rerun of a step.
type Pause struct {
	Kind    string `json:"kind" required:"true" enum:"delay,suspend,rerun,retry"`
	Step    string `json:"step" required:"true" description:"the step that paused it; a rerun runs it again"`
	UntilMs int64  `json:"until_ms" required:"true" description:"when it goes on by itself; a suspend is cancelled then"`
}

// StepSummary is a step of an execution without its values and logs.
type StepSummary struct {
	ID         string `json:"id" required:"true" description:"c_ id of the step"`
	Name       string `json:"name" required:"true"`
	Status     string `json:"status" required:"true" enum:"success,exited,error"`
	DurationMs int64  `json:"duration_ms" required:"true"`
	Summary    string `json:"$summary,omitempty"`
	Error      string `json:"error,omitempty" description:"name: message of the step's error"`
}

// Execution is one run of a workflow with what each step did. Values
// over 16 KiB read {"truncated": true, "bytes": N}.
type Execution struct {
	ID           string          `json:"id" required:"true"`
	WorkflowID   string          `json:"workflow_id" required:"true"`
	DeploymentID string          `json:"deployment_id,omitempty" description:"d_ id of the version that ran (absent for executions recorded before it was kept)"`
	Status       string          `json:"status" required:"true" enum:"success,exited,error,paused,cancelled"`
	ExitReason   string          `json:"exit_reason,omitempty" description:"$.flow.exit's reason, or why a paused execution was cancelled"`
	Pause        *Pause          `json:"pause,omitempty" description:"what a paused execution waits for"`
	StartedAtMs  int64           `json:"started_at_ms" required:"true"`
	DurationMs   int64           `json:"duration_ms" required:"true"`
	Event        json.RawMessage `json:"event" required:"true" description:"the trigger event"`
	Steps        []StepExecution `json:"steps" required:"true" nullable:"false"`
	Truncated    bool            `json:"truncated,omitempty" description:"values and logs were dropped to keep the record small"`
}

// StepExecution is what one step of an execution did.
type StepExecution struct {
	ID          string                     `json:"id" required:"true" description:"c_ id of the step"`
	Name        string                     `json:"name" required:"true"`
	Status      string                     `json:"status" required:"true" enum:"success,exited,error"`
	DurationMs  int64                      `json:"duration_ms" required:"true"`
	ReturnValue json.RawMessage            `json:"$return_value,omitempty"`
	Exports     map[string]json.RawMessage `json:"exports,omitempty"`
	Summary     string                     `json:"$summary,omitempty"`
	Logs        []StepLog                  `json:"logs,omitempty"`
	Error       *StepError                 `json:"error,omitempty"`
	Truncated   bool                       `json:"truncated,omitempty"`
}

// StepLog is a console line of a step.
type StepLog struct {
	AtMs  int64  `json:"at_ms" required:"true"`
	Level string `json:"level" required:"true"`
	Text  string `json:"text" required:"true"`
}

// StepError is why a step failed.
type StepError struct {
	Name    string `json:"name" required:"true"`
	Message string `json:"message" required:"true"`
	Stack   string `json:"stack,omitempty"`
}

// RunActionRequest runs an action once, outside any workflow.
type RunActionRequest struct {
	Common
	Code  string                     `json:"code" required:"true" maxLength:"5242880" description:"the action's bundled module (type: \"action\")"`
	Props map[string]json.RawMessage `json:"props,omitempty" description:"configured props; a string may hold {{steps.<name>...}} expressions, read from steps"`
	Steps map[string]json.RawMessage `json:"steps,omitempty" description:"the steps context the action sees, e.g. {\"trigger\": {\"event\": {...}}}"`
}

// ActionRun is what an action run on its own gave back. Its emits and
// sends are reported, not stored or sent.
type ActionRun struct {
	Status      string                     `json:"status" required:"true" enum:"success,exited,error"`
	ExitReason  string                     `json:"exit_reason,omitempty"`
	DurationMs  int64                      `json:"duration_ms" required:"true"`
	ReturnValue json.RawMessage            `json:"$return_value,omitempty"`
	Exports     map[string]json.RawMessage `json:"exports,omitempty"`
	Summary     string                     `json:"$summary,omitempty"`
	Logs        []StepLog                  `json:"logs,omitempty"`
	Error       *StepError                 `json:"error,omitempty"`
	Emits       []json.RawMessage          `json:"emits,omitempty" description:"what $.send.emit emitted; not stored"`
	Sends       []ActionSend               `json:"sends,omitempty" description:"$.send.http and $.send.sse requests; not performed"`
}

// ActionSend is a $.send request an action run on its own made.
type ActionSend struct {
	Kind    string            `json:"kind" required:"true" enum:"http,sse"`
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Channel string            `json:"channel,omitempty"`
	Payload json.RawMessage   `json:"payload,omitempty"`
}

// StepRef names a workflow and one of its steps in the path.
type StepRef struct {
	ByID
	Step string `path:"step" json:"-" maxLength:"64" required:"true" description:"the step's name"`
}

// StepPropsRequest asks for a deployed step's props with those its
// additionalProps method adds for the values given (extension).
type StepPropsRequest struct {
	Common
	StepRef
	ConfiguredProps map[string]json.RawMessage `json:"configured_props,omitempty" description:"the values so far; a secret as \"[redacted]\" stands for its stored value"`
}

// StepConfigureRequest asks for a page of a deployed step's prop's
// options (extension).
type StepConfigureRequest struct {
	Common
	StepRef
	PropName        string                     `json:"prop_name" maxLength:"256" required:"true" description:"the prop whose options to list"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props,omitempty" description:"the values configured so far"`
	Page            int                        `json:"page,omitempty" minimum:"0" description:"the page the options method is asked for"`
	PrevContext     json.RawMessage            `json:"prev_context,omitempty" description:"the context the previous page returned"`
}

// SetStepPropsRequest replaces a deployed step's props, keeping its code
// and the rest of the workflow (extension).
type SetStepPropsRequest struct {
	Common
	StepRef
	Props map[string]json.RawMessage `json:"props" required:"true" description:"every value of the step; a secret as \"[redacted]\" keeps its stored value; strings may hold {{...}} expressions"`
}
