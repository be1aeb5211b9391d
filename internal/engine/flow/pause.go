package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// A step's $.flow.delay, $.flow.suspend or $.flow.rerun pauses its
// execution once the step ends. The execution is then a record in the
// store's table of paused executions (store.RunCommit.Pause: its state,
// a pausedExecution, and its due time), committed with the step; the
// Runner keeps the due times of the workflows this node runs in memory
// (due.go), and the delayed scheduler the earliest of each: after a
// restart, LoadPaused reads them again. When one is due, a release
// invocation of the workflow runs every due execution on; a call of its
// resume or cancel URL queues a resume invocation for it. Either commits
// the execution's next part with the removal of its record
// (store.RunCommit.Resume), so that whichever comes first goes on and
// the other finds nothing: no part runs twice.

// maxPausedState bounds a paused execution's stored state: the steps'
// values so far are kept whole, unlike the execution's record.
const maxPausedState = 1 << 20

// errTooManyPaused fails a step that would pause its execution while its
// workflow holds held paused executions, its most.
func errTooManyPaused(held int) error {
	return fmt.Errorf("the workflow has %d paused executions, the most this server keeps (--max-paused-executions)", held)
}

// Actions on a paused execution.
const (
	flowDue    = "due"                // its time came
	flowResume = ingress.ActionResume // its resume URL was called
	flowCancel = ingress.ActionCancel // its cancel URL was called
)

// pausedExecution is the stored state of a paused execution.
type pausedExecution struct {
	Kind string `json:"kind"` // abi.FlowDelay, FlowSuspend, FlowRerun, or PauseRetry
	// Step is the step that paused; Next the one to run after a delay or
	// a suspend ("" when Step was the last). A rerun runs Step again.
	Step string `json:"step"`
	Next string `json:"next,omitempty"`
	// Steps are steps.* before Step, and StepData Step's own values.
	Steps     json.RawMessage  `json:"steps"`
	StepData  json.RawMessage  `json:"step_data,omitempty"`
	Context   json.RawMessage  `json:"context"` // steps.trigger.context
	Event     json.RawMessage  `json:"event"`   // the trigger event
	Execution *model.Execution `json:"execution"`
	// SecretHash is the SHA-256 of the resume and cancel URLs' secret.
	SecretHash string `json:"secret_hash"`
	// A rerun's count of runs so far (a retry's: of retries), its
	// context, its most reruns.
	Runs       int             `json:"runs,omitempty"`
	RunContext json.RawMessage `json:"run_context,omitempty"`
	MaxReruns  int             `json:"max_reruns,omitempty"`
	TimeoutMs  int64           `json:"timeout_ms,omitempty"` // a suspend's
}

// pause is st paused by step i's res.flow, as the commit stores it.
func (r *Runner) pause(ctx context.Context, lf *liveFlow, st *flowState, i, runs int, res stepResult) (*store.PausedExecution, error) {
	wf, f := lf.wf, res.flow
	p := pausedExecution{Kind: f.Kind, Step: wf.Steps[i].Name, SecretHash: ingress.SecretHash(f.Secret)}
	switch f.Kind {
	case abi.FlowRerun:
		p.Runs, p.RunContext, p.MaxReruns = runs, f.Context, f.MaxReruns
	default:
		p.StepData = res.data
		if i+1 < len(wf.Steps) {
			p.Next = wf.Steps[i+1].Name
		}
		if f.Kind == abi.FlowSuspend {
			p.TimeoutMs = f.Ms
		}
	}
	until := r.cfg.Clock.Now().Add(time.Duration(f.Ms) * time.Millisecond)
	paused, err := r.pausedAs(ctx, wf.ID, st, p, until)
	if err != nil {
		return nil, fmt.Errorf("$.flow.%s: %w", f.Kind, err)
	}
	return paused, nil
}

// pausedAs is st paused as p until until, as the commit stores it; st's
// record says it is paused. It fails, changing nothing, when the
// workflow holds its most paused executions or the state is too large
// to keep.
func (r *Runner) pausedAs(ctx context.Context, workflowID string, st *flowState, p pausedExecution, until time.Time) (*store.PausedExecution, error) {
	waiting, err := r.cfg.Store.CountPaused(ctx, workflowID)
	if err != nil {
		return nil, fmt.Errorf("count the workflow's paused executions: %w", err)
	}
	if waiting >= r.cfg.MaxPausedExecutions { // checked again in the commit's transaction, with the pauses of the runs committed with it
		return nil, errTooManyPaused(waiting)
	}
	pause := &model.ExecutionPause{Kind: p.Kind, Step: p.Step, UntilMs: until.UnixMilli()}
	p.Steps, p.Context, p.Event = st.steps.obj.close(), st.context, st.event
	p.Execution = st.pausedRecord(r.cfg.Clock.Now())
	p.Execution.Status, p.Execution.Pause = model.ExecutionPaused, pause
	state, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if len(state) > maxPausedState {
		return nil, fmt.Errorf("the execution's state (the steps' values so far) is %d bytes, over the %d a paused execution keeps", len(state), maxPausedState)
	}
	st.rec.Status, st.rec.Pause = model.ExecutionPaused, pause
	return &store.PausedExecution{ExecutionID: st.rec.ID, State: state,
		PausedEntry: store.PausedEntry{DueMs: until.UnixMilli(), SecretHash: p.SecretHash}}, nil
}

// pausedRecord is the execution's record as its pause keeps it: with the
// time its part so far took, which runFlow adds to the record it commits
// only once the part ends.
func (st *flowState) pausedRecord(now time.Time) *model.Execution {
	rec := *st.rec
	rec.DurationMs += now.Sub(st.start).Milliseconds()
	return &rec
}

// ResumeEvent is the event of the resume invocation (model.InvocationResume)
// of a call of an execution's resume or cancel URL (action: ingress.ActionResume
// or ingress.ActionCancel), with the request's body (data) and the whole
// request.
func ResumeEvent(executionID, action string, data, request json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(flowAction{Action: action, ExecutionID: executionID, Data: data, Request: request})
}

// flowAction is what goes on with a paused execution.
type flowAction struct {
	Action string `json:"action"` // flowDue, flowResume or flowCancel
	// ExecutionID is the paused execution's id. A resume queued before
	// paused executions had a table of their own named the event that
	// kept it (paused_id) and may carry that event (paused), from which
	// its id is read.
	ExecutionID string          `json:"execution_id,omitempty"`
	OldEventID  string          `json:"paused_id,omitempty"`
	OldPaused   json.RawMessage `json:"paused,omitempty"`
	// Data is the resume request's body ($resume_data), Request the
	// whole request ($.context.run.callback_request of a rerun).
	Data    json.RawMessage `json:"data,omitempty"`
	Request json.RawMessage `json:"request,omitempty"`
}

// resumeFlow runs the paused execution p on after act: its end when it
// was cancelled (by its cancel URL, or a suspend by its timeout), else
// the step the resume of its kind names, and the steps after it. The
// commit removes its record.
func (r *Runner) resumeFlow(ctx context.Context, lf *liveFlow, p *pausedExecution, act flowAction) (execution, error) {
	rec := p.Execution
	rec.Pause = nil
	if reason := cancelReason(p, act); reason != "" {
		rec.Status, rec.ExitReason = model.ExecutionCancelled, reason
		return r.endPaused(rec, act), nil
	}
	rec.Status = model.ExecutionSuccess
	st := &flowState{rec: rec, context: p.Context, event: p.Event, steps: restoreSteps(p.Steps), start: r.cfg.Clock.Now()}
	var next string
	switch p.Kind {
	case PauseRetry:
		next = resumeRetry(st, p)
	case abi.FlowRerun:
		next = resumeRerun(st, p, act)
	default: // a delay or a suspend
		next = resumeAfter(st, p, act)
	}
	if st.next = stepIndex(lf.wf, next); st.next < 0 {
		err := fmt.Errorf("the workflow was changed while this execution was paused: its step %q is gone", next)
		rec.Status = model.ExecutionError
		x := r.endPaused(rec, act)
		x.commit.Events = []model.Event{flowErrorEvent(err, lf.wf.ID, next, p.Event, p.Context, st.start)}
		x.commit.Keep = r.cfg.EventsKept
		return x, nil
	}
	x, err := r.runFlow(ctx, lf, st, nil)
	x.commit.Resume = act.ExecutionID
	return x, err
}

// cancelReason says why act ends p without running it on: its cancel
// URL, or a suspend's timeout; "" when it goes on.
func cancelReason(p *pausedExecution, act flowAction) string {
	switch {
	case act.Action == flowCancel:
		return "cancelled by its cancel URL"
	case act.Action == flowDue && p.Kind == abi.FlowSuspend:
		return fmt.Sprintf("not resumed within its timeout of %s", time.Duration(p.TimeoutMs)*time.Millisecond)
	}
	return ""
}

// endPaused is the commit of a paused execution that ends as rec says,
// without running a step.
func (r *Runner) endPaused(rec *model.Execution, act flowAction) execution {
	return execution{commit: store.RunCommit{Execution: rec, ExecutionsKept: r.cfg.ExecutionsKept, Invocations: 1, ComputeMs: 1,
		Resume: act.ExecutionID}}
}

// resumeRetry readies a retry's execution: its failed step runs again,
// its retries counted.
func resumeRetry(st *flowState, p *pausedExecution) string {
	st.retries = p.Runs
	return p.Step
}

// resumeRerun readies a rerun's execution: its step runs again, with
// $.context.run saying how many times it ran, the context it gave, and
// the request that called its resume URL.
func resumeRerun(st *flowState, p *pausedExecution, act flowAction) string {
	run := map[string]any{"runs": p.Runs + 1}
	if len(p.RunContext) > 0 {
		run["context"] = p.RunContext
	}
	if act.Action == flowResume && len(act.Request) > 0 {
		run["callback_request"] = act.Request
	}
	st.runs = p.Runs
	st.steps.run, _ = json.Marshal(run)
	return p.Step
}

// resumeAfter readies a delay's or a suspend's execution: the step that
// paused keeps its values (a suspend's with the resume's data as
// $resume_data), and the next one runs; "" when it was the last.
func resumeAfter(st *flowState, p *pausedExecution, act flowAction) string {
	data := p.StepData
	if p.Kind == abi.FlowSuspend {
		resumeData := rawOrNull(act.Data)
		data = withValue(data, "$resume_data", resumeData)
		if n := len(st.rec.Steps); n > 0 {
			last := &st.rec.Steps[n-1]
			if last.Exports == nil {
				last.Exports = map[string]json.RawMessage{}
			}
			last.Exports["$resume_data"] = capValue(resumeData)
		}
	}
	st.steps.add(p.Step, data)
	return p.Next
}

// stepIndex is the index of wf's step named name: len(wf.Steps) for ""
// (nothing left to run), -1 when there is none of that name.
func stepIndex(wf model.Workflow, name string) int {
	if name == "" {
		return len(wf.Steps)
	}
	return slices.IndexFunc(wf.Steps, func(s model.WorkflowStep) bool { return s.Name == name })
}

// withValue is the JSON object obj with name set to value.
func withValue(obj json.RawMessage, name string, value json.RawMessage) json.RawMessage {
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(obj, &m)
	m[name] = value
	out, _ := json.Marshal(m)
	return out
}

// rawOrNull is raw, or null when there is none.
func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// dueFlows returns the workflow's paused executions whose time has come,
// oldest due first, with their states, and notes when the next one is
// due. One whose state is gone (it went on meanwhile) is left out, and
// one whose state does not read is logged and left where it is.
func (r *Runner) dueFlows(ctx context.Context, workflowID string) ([]flowAction, []*pausedExecution, error) {
	due, next := r.due.due(workflowID, r.cfg.Clock.Now().UnixMilli())
	if next > 0 {
		r.cfg.Delayed.Note(model.WorkflowTarget(workflowID), next)
	}
	var acts []flowAction
	var paused []*pausedExecution
	for _, id := range due {
		p, err := r.pausedState(ctx, workflowID, id)
		switch {
		case errors.Is(err, model.ErrNotFound):
			r.due.drop(workflowID, id)
		case errors.Is(err, errUnreadablePause):
			r.log.Warn("a paused execution cannot be read; it stays paused", "workflow", workflowID, "execution", id, "err", err)
			r.due.drop(workflowID, id) // not read again until a restart
		case err != nil:
			return nil, nil, err
		default:
			acts, paused = append(acts, flowAction{Action: flowDue, ExecutionID: id}), append(paused, p)
		}
	}
	return acts, paused, nil
}

// errUnreadablePause: a paused execution's stored state does not read.
var errUnreadablePause = errors.New("the paused execution's state does not read")

// pausedState reads the state of a paused execution; model.ErrNotFound
// when it is not paused.
func (r *Runner) pausedState(ctx context.Context, workflowID, executionID string) (*pausedExecution, error) {
	raw, err := r.cfg.Store.PausedState(ctx, workflowID, executionID)
	if err != nil {
		return nil, err
	}
	var p pausedExecution
	if err := json.Unmarshal(raw, &p); err != nil || p.Execution == nil {
		return nil, fmt.Errorf("%w: %v", errUnreadablePause, err)
	}
	return &p, nil
}

// PauseRetry is the kind of the pause of a failed execution until its failed step is
// retried (model.Retry); it has no URLs.
const PauseRetry = "retry"

// retryLater pauses st, failed at its step named step, until that step
// is retried, when the workflow retries and has attempts left; false
// otherwise (the execution fails).
func (r *Runner) retryLater(ctx context.Context, lf *liveFlow, st *flowState, step string) (*store.PausedExecution, bool) {
	wf := lf.wf
	if wf.Retry == nil || st.retries >= wf.Retry.Attempts {
		return nil, false
	}
	until := r.cfg.Clock.Now().Add(delivery.Backoff(r.cfg.ExecutionRetryBase, st.retries+1))
	p := pausedExecution{Kind: PauseRetry, Step: step, Runs: st.retries + 1}
	paused, err := r.pausedAs(ctx, wf.ID, st, p, until)
	return paused, err == nil
}
