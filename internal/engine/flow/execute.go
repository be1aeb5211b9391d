package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// Caps of what an execution record keeps, so that a workflow's kept
// executions stay small whatever its steps return or print.
const (
	maxRecordedValue   = 16 << 10  // a $return_value, an export, the trigger event
	maxRecordedLogs    = 100       // console lines per step
	maxRecordedLogLine = 1 << 10   // bytes of one console line
	maxExecutionRecord = 512 << 10 // the whole record; past it, values and logs go
)

// platformVersion is original_context.platform_version: the version of
// the execution context fount gives steps.
const platformVersion = "fount-1"

// channelSSE names, in the live event stream only, a message of
// $.send.sse: its EmitID carries the SSE channel. It is never stored.
const channelSSE = "$sse"

// execution is what running one invocation of a workflow produced.
type execution struct {
	commit store.RunCommit
	sse    []model.Event // $.send.sse messages, published after the commit
}

// flowState is an execution in progress: its record, its steps' values
// so far, and the step it goes on with. A paused execution is stored as
// one (pausedExecution) and rebuilt to go on.
type flowState struct {
	rec     *model.Execution
	context json.RawMessage // steps.trigger.context
	event   json.RawMessage // the trigger event
	steps   *stepsContext
	next    int // the step to run
	runs    int // how many times step next ran before: a rerun's count
	retries int // how many times a failed step was retried (model.Retry)
	start   time.Time
}

// execute runs a workflow's steps on one trigger event. A step that
// throws, times out or runs out of memory ends the execution with an
// $errors event; $.flow.exit ends it early; $.flow.delay, suspend and
// rerun pause it. The error returned is the engine's (stopping, or the
// workflow replaced), not the steps'.
func (r *Runner) execute(ctx context.Context, lf *liveFlow, inv model.Invocation, w *ingress.Waiter) (execution, error) {
	wf := lf.wf
	start := r.cfg.Clock.Now()
	rec := &model.Execution{ID: ids.ExecutionID(wf.ID, inv.ID), WorkflowID: wf.ID, Event: capValue(inv.Event),
		StartedAtMs: start.UnixMilli(), Status: model.ExecutionSuccess, DeploymentID: model.DeploymentID(wf.ID, wf.Version)}
	context, _ := json.Marshal(triggerContext(wf, inv, rec.ID, start))
	trigger := &jsonObject{}
	trigger.add("event", rawOrEmpty(inv.Event))
	trigger.add("context", context)
	steps := &stepsContext{}
	steps.add(TriggerStep, trigger.close())
	return r.runFlow(ctx, lf, &flowState{rec: rec, context: context, event: inv.Event, steps: steps, start: start}, w)
}

// runFlow runs st's steps from st.next on, until the last, a failure,
// an exit or a pause, and returns what the part commits.
func (r *Runner) runFlow(ctx context.Context, lf *liveFlow, st *flowState, w *ingress.Waiter) (execution, error) {
	st.steps.flowURL = r.flowURL(st.rec.ID)
	part := &flowPart{c: emit.NewCollector(r.host.Channels(lf.wf.ID)), held: ingress.NewHeldResponse(w),
		deadline: st.start.Add(r.cfg.ExecutionTimeout)}
	if w != nil {
		part.respond = part.held
	}
	end, err := r.runSteps(ctx, lf, st, part)
	if err != nil {
		return execution{}, err
	}
	part.held.Flush()
	return r.endPart(ctx, lf, st, part, end), nil
}

// flowPart is what a part of an execution gathers as its steps run:
// their emits, their sends, the response held for its waiter.
type flowPart struct {
	c        *emit.Collector
	sends    execution // the deliveries and SSE messages of $.send
	held     *ingress.HeldResponse
	respond  sandbox.RespondSink // held, when a request waits for the response
	deadline time.Time           // of the whole execution
}

// partEnd is how a part of an execution ended: at its last step or an
// exit (the zero value), failed, or paused.
type partEnd struct {
	failure error  // why it failed
	step    string // the step that failed, or that paused
	// retryable says that a retry (model.Retry) may put the failure off:
	// not when it is the pause's own failure, or no step's.
	retryable bool
	pause     *store.PausedExecution // the execution paused, as the commit stores it
	retried   error                  // the failure a retry's pause puts off
}

// runSteps runs st's steps from st.next on, recording each in st.rec,
// and says how the part ended; the error is the engine's, not a step's.
func (r *Runner) runSteps(ctx context.Context, lf *liveFlow, st *flowState, part *flowPart) (partEnd, error) {
	wf, rec := lf.wf, st.rec
	for i := st.next; i < len(wf.Steps); i++ {
		step := wf.Steps[i]
		sx, res, err := r.runStepWith(ctx, lf, i, st.steps, part.c, part.respond, part.deadline, r.host.DB(wf.ID))
		if err != nil {
			return partEnd{}, err
		}
		runs := st.runs + 1
		st.runs, st.steps.run = 0, nil // a rerun's count is its step's only
		rec.Steps = append(rec.Steps, sx)
		if res.err != nil {
			return partEnd{failure: res.err, step: step.Name, retryable: true}, nil
		}
		if err := r.addSends(wf, st, res.sends, &part.sends); err != nil {
			failLastStep(rec, err)
			return partEnd{failure: err, step: step.Name, retryable: true}, nil
		}
		switch {
		case res.exit != nil:
			rec.Status, rec.ExitReason = model.ExecutionExited, *res.exit
			return partEnd{}, nil
		case res.flow != nil:
			paused, err := r.pause(ctx, lf, st, i, runs, res)
			if err != nil {
				failLastStep(rec, err)
				return partEnd{failure: err, step: step.Name}, nil
			}
			return partEnd{step: step.Name, pause: paused}, nil
		}
		st.steps.add(step.Name, res.data)
	}
	return partEnd{}, nil
}

// addSends adds a step's $.send calls to sends: HTTP and S3 sends as
// deliveries, SSE messages to publish once the part is committed.
func (r *Runner) addSends(wf model.Workflow, st *flowState, calls []abi.Send, sends *execution) error {
	for _, s := range calls {
		switch s.Kind {
		case abi.SendHTTP:
			sends.commit.Deliveries = append(sends.commit.Deliveries, model.Delivery{Kind: model.DeliverySendHTTP, ListenerID: wf.ID, EmitterID: wf.ID, Channel: "$send.http",
				Request: &model.DeliveryRequest{Method: s.Method, URL: s.URL, Headers: s.Headers, Body: s.Body}})
		case abi.SendSSE:
			sends.sse = append(sends.sse, model.Event{EmitterID: wf.ID, Name: channelSSE, EmitID: s.Channel, Data: s.Payload, IndexedAtMs: r.cfg.Clock.Now().UnixMilli()})
		case abi.SendS3:
			dl, err := r.s3Delivery(wf, st.rec.ID, len(sends.commit.Deliveries), s, st.start)
			if err != nil {
				return err
			}
			sends.commit.Deliveries = append(sends.commit.Deliveries, dl)
		}
	}
	return nil
}

// failLastStep marks the last step recorded failed with err.
func failLastStep(rec *model.Execution, err error) {
	last := &rec.Steps[len(rec.Steps)-1]
	last.Status, last.Error = model.ExecutionError, stepError(err)
}

// endPart is the commit of a part that ended so: its emits and sends,
// and the execution's record; or, when it failed, an $errors event
// instead (and nothing it sent), unless a retry puts the failure off
// with a pause; or its pause.
func (r *Runner) endPart(ctx context.Context, lf *liveFlow, st *flowState, part *flowPart, end partEnd) execution {
	wf, rec, out := lf.wf, st.rec, part.sends
	now := r.cfg.Clock.Now()
	rec.DurationMs += now.Sub(st.start).Milliseconds()
	events, err := flowEvents(part.c, now)
	if err != nil && end.failure == nil {
		end = partEnd{failure: err}
	}
	if end.failure != nil && end.retryable {
		if paused, ok := r.retryLater(ctx, lf, st, end.step); ok {
			end = partEnd{step: end.step, pause: paused, retried: end.failure}
			events, out = events[:0], execution{} // the step runs again: what the failed part sent goes
		}
	}
	switch {
	case end.failure != nil:
		rec.Status, rec.Pause = model.ExecutionError, nil
		events, out = []model.Event{flowErrorEvent(end.failure, wf.ID, end.step, st.event, st.context, now)}, execution{}
	case end.pause != nil:
		out.commit.Pause, out.commit.MaxPaused = end.pause, r.cfg.MaxPausedExecutions
		out.commit.OverPaused = r.failOverPaused(wf.ID, st, end.step, end.retried)
	}
	capExecution(rec)
	out.commit.Events, out.commit.Keep = events, r.cfg.EventsKept
	out.commit.Execution, out.commit.ExecutionsKept = rec, r.cfg.ExecutionsKept
	out.commit.Invocations, out.commit.ComputeMs = 1, max(1, rec.DurationMs)
	return out
}

// failOverPaused is what the commit of st's pause applies instead when
// the workflow holds its most paused executions by then (checked in the
// commit's transaction: store.RunCommit.OverPaused): the execution
// fails. A step's pause fails that step with errTooManyPaused; a retry's
// fails the execution with the step's own error (retried), as if it had
// no attempts left.
func (r *Runner) failOverPaused(workflowID string, st *flowState, step string, retried error) func(store.RunCommit, int) store.RunCommit {
	return func(c store.RunCommit, held int) store.RunCommit {
		rec := *c.Execution
		rec.Steps = slices.Clone(rec.Steps)
		rec.Status, rec.Pause = model.ExecutionError, nil
		failure := retried
		if failure == nil {
			failure = errTooManyPaused(held)
			if n := len(rec.Steps); n > 0 {
				rec.Steps[n-1].Status, rec.Steps[n-1].Error = model.ExecutionError, stepError(failure)
			}
		}
		c.Execution = &rec
		c.Events = []model.Event{flowErrorEvent(failure, workflowID, step, st.event, st.context, r.cfg.Clock.Now())}
		c.Deliveries, c.Outcome = nil, nil
		return c
	}
}

// s3Delivery is a $.send.s3 object as the delivery that writes it: in
// the operator's bucket, under the workflow's owner and the workflow
// (so no tenant writes over another's objects), then the step's prefix,
// the hour, and the execution; the same key on a retry.
func (r *Runner) s3Delivery(wf model.Workflow, execution string, n int, s abi.Send, at time.Time) (model.Delivery, error) {
	if r.cfg.Objects == nil {
		return model.Delivery{}, errors.New("$.send.s3 is not available: this server has no bucket configured (the operator sets --s3-endpoint); upload with an action that calls your storage provider's API")
	}
	if s.Bucket != "" && s.Bucket != r.cfg.Objects.Name() {
		return model.Delivery{}, fmt.Errorf("$.send.s3 writes to this server's bucket %q, not %q", r.cfg.Objects.Name(), s.Bucket)
	}
	key := fmt.Sprintf("%s/%s/%s%s/%s-%d.json", wf.OwnerID, wf.ID, s.Prefix, at.UTC().Format("2006/01/02/15"), execution, n)
	return model.Delivery{Kind: model.DeliverySendS3, ListenerID: wf.ID, EmitterID: wf.ID, Channel: delivery.ChannelSendS3,
		Request: &model.DeliveryRequest{Method: http.MethodPut, URL: key, Body: string(s.Payload)}}, nil
}

// flowEvents are the events an execution's steps emitted, each stored
// at once: a workflow has no $in channel to delay one on, so an emit
// with a future delivery_ts fails the execution, saying so. Emits past the
// channel limits fail it too.
func flowEvents(c *emit.Collector, now time.Time) ([]model.Event, error) {
	if dropped := c.Dropped(); dropped != nil {
		return nil, dropped
	}
	for _, em := range c.Emits() {
		if em.DeliveryTS != nil && *em.DeliveryTS > now.UnixMilli() {
			return nil, errors.New("a workflow cannot delay an emit: delivery_ts is for sources; emit at once, or emit to a source that delays it")
		}
	}
	out := make([]model.Event, 0, len(c.Emits()))
	for _, em := range c.Emits() {
		out = append(out, emit.Event(em))
	}
	return out, nil
}

// stepResult is what one step gave the execution.
type stepResult struct {
	data  json.RawMessage // steps.<name>: $return_value and exports
	exit  *string
	flow  *abi.Flow // $.flow.delay, suspend or rerun
	sends []abi.Send
	err   error // the step failed
}

// runStepWith runs step i of lf with db as its $.service.db and records
// it. A step that cannot start (past the execution's deadline, or no
// sandbox in time) or fails is recorded failed, with the failure in its
// result; the error returned is the engine's (stopping, or the
// workflow's sandboxes gone).
func (r *Runner) runStepWith(ctx context.Context, lf *liveFlow, i int, steps *stepsContext, c *emit.Collector, respond sandbox.RespondSink, deadline time.Time, db sandbox.KV) (model.StepExecution, stepResult, error) {
	step := lf.wf.Steps[i]
	sx := model.StepExecution{Name: step.Name, Status: model.ExecutionSuccess}
	limits, release, err := r.stepLimits(ctx, lf.wf, deadline)
	if err != nil {
		if ctx.Err() != nil {
			return sx, stepResult{}, ctx.Err() // stopping: the invocation stays queued
		}
		return failedStep(sx, err)
	}
	defer release()
	logs := &stepLogs{}
	caps, explain := r.host.Capabilities(lf.wf, step)
	caps.Emit, caps.Log, caps.DB, caps.Respond = c, logs, db, respond
	start := r.cfg.Clock.Now()
	o, err := lf.boxes[i].Invoke(ctx, sandbox.Request{Op: abi.OpRun, Event: steps.event(lf.templatesJSON[i]), Limits: limits}, caps)
	if ctx.Err() == nil {
		r.cfg.Observer.RunFinished("step", emit.Outcome(err), r.cfg.Clock.Now().Sub(start))
	}
	if err = explain(err); err != nil {
		err = r.host.MapStack(err, lf.wf, step, lf.action)
	}
	sx.DurationMs, sx.Logs = r.cfg.Clock.Now().Sub(start).Milliseconds(), logs.lines
	switch {
	case ctx.Err() != nil:
		return sx, stepResult{}, ctx.Err() // stopping: the invocation stays queued
	case errors.Is(err, sandbox.ErrLost):
		r.loaded.forget(lf.wf.ID) // its steps load anew from the store
		return sx, stepResult{}, batch.ErrSwapped
	case errors.Is(err, sandbox.ErrClosed):
		return sx, stepResult{}, batch.ErrSwapped
	case err != nil:
		return failedStep(sx, err)
	}
	return recordStep(sx, o)
}

// stepLimits reserves a sandbox for a step of wf (release frees it) and
// returns the step's limits, its time bounded by what the execution has
// left; an error when the execution's deadline has passed, before or
// while it waited, or no sandbox was free in time.
func (r *Runner) stepLimits(ctx context.Context, wf model.Workflow, deadline time.Time) (limits sandbox.Limits, release func(), err error) {
	pastDeadline := fmt.Errorf("%w: the execution ran past its time limit of %s before this step", sandbox.ErrTimeout, r.cfg.ExecutionTimeout)
	if deadline.Sub(r.cfg.Clock.Now()) <= 0 {
		return limits, nil, pastDeadline
	}
	release, err = r.host.Reserve(ctx, wf.UserID, wf.ID, r.cfg.Limits, deadline)
	if err != nil {
		return limits, nil, err
	}
	remaining := deadline.Sub(r.cfg.Clock.Now()) // less the wait for a sandbox
	if remaining <= 0 {
		release()
		return limits, nil, pastDeadline
	}
	limits = r.cfg.Limits
	if limits.Timeout <= 0 || limits.Timeout > remaining {
		limits.Timeout = remaining
	}
	return limits, release, nil
}
