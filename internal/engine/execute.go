package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
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

// liveFlow is a workflow with its steps loaded, one sandbox source per
// step, none shared with another workflow.
type liveFlow struct {
	wf model.Workflow
	// action is a step run on its own (an action's test run), of no
	// stored workflow.
	action    bool
	boxes     []sandbox.Source
	templates []map[string]string // per step: the props evaluated at each execution
	// templatesJSON is templates encoded, once per load.
	templatesJSON []json.RawMessage
}

// addTemplates appends the next step's templates.
func (lf *liveFlow) addTemplates(t map[string]string) {
	lf.templates = append(lf.templates, t)
	var raw json.RawMessage
	if len(t) > 0 {
		raw, _ = json.Marshal(t)
	}
	lf.templatesJSON = append(lf.templatesJSON, raw)
}

func (lf *liveFlow) close(ctx context.Context) {
	for _, b := range lf.boxes {
		b.Close(ctx)
	}
}

// flowSet holds the loaded workflows. A load that a delete overtook is
// not kept (gen).
type flowSet struct {
	mu    sync.Mutex
	flows map[string]*liveFlow
	gen   uint64 // bumped by every forget
}

func newFlowSet() *flowSet { return &flowSet{flows: map[string]*liveFlow{}} }

// get returns the loaded version of wf, or nil.
func (s *flowSet) get(wf model.Workflow) *liveFlow {
	s.mu.Lock()
	defer s.mu.Unlock()
	lf := s.flows[wf.ID]
	if lf == nil || lf.wf.Version != wf.Version || lf.wf.UpdatedAt != wf.UpdatedAt {
		return nil
	}
	return lf
}

// account returns the user a loaded workflow's executions count against.
func (s *flowSet) account(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lf := s.flows[id]; lf != nil {
		return lf.wf.UserID, true
	}
	return "", false
}

// generation is the value put needs to keep a load begun now.
func (s *flowSet) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// put keeps lf unless a forget came after gen, and closes the version it
// replaces. It reports whether lf was kept.
func (s *flowSet) put(lf *liveFlow, gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return false
	}
	if old := s.flows[lf.wf.ID]; old != nil && old != lf {
		old.close(context.Background())
	}
	s.flows[lf.wf.ID] = lf
	return true
}

// forget closes and drops a workflow's loaded steps.
func (s *flowSet) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if lf := s.flows[id]; lf != nil {
		lf.close(context.Background())
		delete(s.flows, id)
	}
}

func (s *flowSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	for id, lf := range s.flows {
		lf.close(context.Background())
		delete(s.flows, id)
	}
}

// loadFlow returns wf with its steps loaded; release must be called when
// the batch is done with it (it closes a load that was not kept).
func (e *Engine) loadFlow(ctx context.Context, wf model.Workflow) (lf *liveFlow, release func(), err error) {
	if lf := e.flows.get(wf); lf != nil {
		return lf, func() {}, nil
	}
	gen := e.flows.generation()
	lf = &liveFlow{wf: wf}
	for _, step := range wf.Steps {
		static, templates, err := e.stepTemplates(wf, step)
		if err != nil {
			lf.close(ctx)
			return nil, nil, err
		}
		box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: wf.ID, Code: step.RunCode(), Filename: step.Filename, Modules: step.Modules,
			Props: static, Format: step.Metadata.Format, Step: true})
		if err != nil {
			lf.close(ctx)
			return nil, nil, fmt.Errorf("step %q: %w", step.Name, codeError(err))
		}
		lf.boxes = append(lf.boxes, box)
		lf.addTemplates(templates)
	}
	if e.flows.put(lf, gen) {
		return lf, func() {}, nil
	}
	return lf, func() { lf.close(context.WithoutCancel(ctx)) }, nil
}

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
func (e *Engine) execute(ctx context.Context, lf *liveFlow, inv model.Invocation, w *ingress.Waiter) (execution, error) {
	wf := lf.wf
	start := e.clock.Now()
	rec := &model.Execution{ID: ids.ExecutionID(wf.ID, inv.ID), WorkflowID: wf.ID, Event: capValue(inv.Event),
		StartedAtMs: start.UnixMilli(), Status: model.ExecutionSuccess, DeploymentID: model.DeploymentID(wf.ID, wf.Version)}
	context, _ := json.Marshal(triggerContext(wf, inv, rec.ID, start))
	trigger := &jsonObject{}
	trigger.add("event", rawOrEmpty(inv.Event))
	trigger.add("context", context)
	steps := &stepsContext{}
	steps.add(stepTrigger, trigger.close())
	return e.runFlow(ctx, lf, &flowState{rec: rec, context: context, event: inv.Event, steps: steps, start: start}, w)
}

// runFlow runs st's steps from st.next on, until the last, a failure,
// an exit or a pause, and returns what the part commits.
func (e *Engine) runFlow(ctx context.Context, lf *liveFlow, st *flowState, w *ingress.Waiter) (execution, error) {
	st.steps.flowURL = e.flowURL(st.rec.ID)
	part := &flowPart{c: emit.NewCollector(e.channelBudget(lf.wf.ID)), held: ingress.NewHeldResponse(w),
		deadline: st.start.Add(e.cfg.ExecutionTimeout)}
	if w != nil {
		part.respond = part.held
	}
	end, err := e.runSteps(ctx, lf, st, part)
	if err != nil {
		return execution{}, err
	}
	part.held.Flush()
	return e.endPart(ctx, lf, st, part, end), nil
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
func (e *Engine) runSteps(ctx context.Context, lf *liveFlow, st *flowState, part *flowPart) (partEnd, error) {
	wf, rec := lf.wf, st.rec
	for i := st.next; i < len(wf.Steps); i++ {
		step := wf.Steps[i]
		sx, res, err := e.runStepWith(ctx, lf, i, st.steps, part.c, part.respond, part.deadline, sourceDB{e.store, wf.ID})
		if err != nil {
			return partEnd{}, err
		}
		runs := st.runs + 1
		st.runs, st.steps.run = 0, nil // a rerun's count is its step's only
		rec.Steps = append(rec.Steps, sx)
		if res.err != nil {
			return partEnd{failure: res.err, step: step.Name, retryable: true}, nil
		}
		if err := e.addSends(wf, st, res.sends, &part.sends); err != nil {
			failLastStep(rec, err)
			return partEnd{failure: err, step: step.Name, retryable: true}, nil
		}
		switch {
		case res.exit != nil:
			rec.Status, rec.ExitReason = model.ExecutionExited, *res.exit
			return partEnd{}, nil
		case res.flow != nil:
			paused, err := e.pause(ctx, lf, st, i, runs, res)
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
func (e *Engine) addSends(wf model.Workflow, st *flowState, calls []abi.Send, sends *execution) error {
	for _, s := range calls {
		switch s.Kind {
		case abi.SendHTTP:
			sends.commit.Deliveries = append(sends.commit.Deliveries, model.Delivery{Kind: model.DeliverySendHTTP, ListenerID: wf.ID, EmitterID: wf.ID, Channel: "$send.http",
				Request: &model.DeliveryRequest{Method: s.Method, URL: s.URL, Headers: s.Headers, Body: s.Body}})
		case abi.SendSSE:
			sends.sse = append(sends.sse, model.Event{EmitterID: wf.ID, Name: channelSSE, EmitID: s.Channel, Data: s.Payload, IndexedAtMs: e.clock.Now().UnixMilli()})
		case abi.SendS3:
			dl, err := e.s3Delivery(wf, st.rec.ID, len(sends.commit.Deliveries), s, st.start)
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
func (e *Engine) endPart(ctx context.Context, lf *liveFlow, st *flowState, part *flowPart, end partEnd) execution {
	wf, rec, out := lf.wf, st.rec, part.sends
	now := e.clock.Now()
	rec.DurationMs += now.Sub(st.start).Milliseconds()
	events, err := flowEvents(part.c, now)
	if err != nil && end.failure == nil {
		end = partEnd{failure: err}
	}
	if end.failure != nil && end.retryable {
		if paused, ok := e.retryLater(ctx, lf, st, end.step); ok {
			end = partEnd{step: end.step, pause: paused, retried: end.failure}
			events, out = events[:0], execution{} // the step runs again: what the failed part sent goes
		}
	}
	switch {
	case end.failure != nil:
		rec.Status, rec.Pause = model.ExecutionError, nil
		events, out = []model.Event{flowErrorEvent(end.failure, wf.ID, end.step, st.event, st.context, now)}, execution{}
	case end.pause != nil:
		out.commit.Pause, out.commit.MaxPaused = end.pause, e.cfg.MaxPausedExecutions
		out.commit.OverPaused = e.failOverPaused(wf.ID, st, end.step, end.retried)
	}
	capExecution(rec)
	out.commit.Events, out.commit.Keep = events, e.cfg.EventsKept
	out.commit.Execution, out.commit.ExecutionsKept = rec, e.cfg.ExecutionsKept
	out.commit.Invocations, out.commit.ComputeMs = 1, max(1, rec.DurationMs)
	return out
}

// failOverPaused is what the commit of st's pause applies instead when
// the workflow holds its most paused executions by then (checked in the
// commit's transaction: store.RunCommit.OverPaused): the execution
// fails. A step's pause fails that step with errTooManyPaused; a retry's
// fails the execution with the step's own error (retried), as if it had
// no attempts left.
func (e *Engine) failOverPaused(workflowID string, st *flowState, step string, retried error) func(store.RunCommit, int) store.RunCommit {
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
		c.Events = []model.Event{flowErrorEvent(failure, workflowID, step, st.event, st.context, e.clock.Now())}
		c.Deliveries, c.Outcome = nil, nil
		return c
	}
}

// s3Delivery is a $.send.s3 object as the delivery that writes it: in
// the operator's bucket, under the workflow's owner and the workflow
// (so no tenant writes over another's objects), then the step's prefix,
// the hour, and the execution; the same key on a retry.
func (e *Engine) s3Delivery(wf model.Workflow, execution string, n int, s abi.Send, at time.Time) (model.Delivery, error) {
	if e.cfg.Objects == nil {
		return model.Delivery{}, errors.New("$.send.s3 is not available: this server has no bucket configured (the operator sets --s3-endpoint); upload with an action that calls your storage provider's API")
	}
	if s.Bucket != "" && s.Bucket != e.cfg.Objects.Name() {
		return model.Delivery{}, fmt.Errorf("$.send.s3 writes to this server's bucket %q, not %q", e.cfg.Objects.Name(), s.Bucket)
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
func (e *Engine) runStepWith(ctx context.Context, lf *liveFlow, i int, steps *stepsContext, c *emit.Collector, respond sandbox.RespondSink, deadline time.Time, db sandbox.KV) (model.StepExecution, stepResult, error) {
	step := lf.wf.Steps[i]
	sx := model.StepExecution{Name: step.Name, Status: model.ExecutionSuccess}
	limits, release, err := e.stepLimits(ctx, lf.wf, deadline)
	if err != nil {
		if ctx.Err() != nil {
			return sx, stepResult{}, ctx.Err() // stopping: the invocation stays queued
		}
		return failedStep(sx, err)
	}
	defer release()
	logs, gone := &stepLogs{}, &goneAccounts{}
	caps := sandbox.Capabilities{Emit: c, Log: logs, DB: db, Auth: accountAuth{e, lf.wf.OwnerID, step.Props, gone},
		Stores: dataStores{e, lf.wf.OwnerID, step.Props}, Respond: respond}
	if e.cfg.Egress != nil {
		caps.Egress = e.cfg.Egress
	}
	start := e.clock.Now()
	o, err := lf.boxes[i].Invoke(ctx, sandbox.Request{Op: abi.OpRun, Event: steps.event(lf.templatesJSON[i]), Limits: limits}, caps)
	if ctx.Err() == nil {
		e.cfg.Observer.RunFinished("step", outcomeOf(err), e.clock.Now().Sub(start))
	}
	if err = gone.explain(err); err != nil && (step.BundleMap != "" || step.SourceMap != "") {
		err = mapStack(err, cmp.Or(step.Filename, entryFile), func() []*component.SourceMap { return e.stepMaps(lf, step) })
	}
	sx.DurationMs, sx.Logs = e.clock.Now().Sub(start).Milliseconds(), logs.lines
	switch {
	case ctx.Err() != nil:
		return sx, stepResult{}, ctx.Err() // stopping: the invocation stays queued
	case errors.Is(err, sandbox.ErrLost):
		e.flows.forget(lf.wf.ID) // its steps load anew from the store
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
func (e *Engine) stepLimits(ctx context.Context, wf model.Workflow, deadline time.Time) (limits sandbox.Limits, release func(), err error) {
	pastDeadline := fmt.Errorf("%w: the execution ran past its time limit of %s before this step", sandbox.ErrTimeout, e.cfg.ExecutionTimeout)
	if deadline.Sub(e.clock.Now()) <= 0 {
		return limits, nil, pastDeadline
	}
	release, err = e.reserveSandbox(ctx, wf.UserID, wf.ID, e.cfg.Limits, deadline)
	if err != nil {
		return limits, nil, err
	}
	remaining := deadline.Sub(e.clock.Now()) // less the wait for a sandbox
	if remaining <= 0 {
		release()
		return limits, nil, pastDeadline
	}
	limits = e.cfg.Limits
	if limits.Timeout <= 0 || limits.Timeout > remaining {
		limits.Timeout = remaining
	}
	return limits, release, nil
}

// outcomeOf is how a call ended, for metrics: "ok" or its error's class.
func outcomeOf(err error) string {
	if err != nil {
		return errorClass(err)
	}
	return "ok"
}

// failedStep records sx failed with err, which its result carries.
func failedStep(sx model.StepExecution, err error) (model.StepExecution, stepResult, error) {
	sx.Status, sx.Error = model.ExecutionError, stepError(err)
	return sx, stepResult{err: err}, nil
}

// recordStep records in sx what a step's call gave (its return value,
// exports and summary, each capped) and returns its result: steps.<name>
// for the steps after it whole, and its exit, pause and sends.
func recordStep(sx model.StepExecution, o *sandbox.Outcome) (model.StepExecution, stepResult, error) {
	sx.ReturnValue = capValue(o.Value)
	sx.Exports = map[string]json.RawMessage{}
	data := &jsonObject{}
	for name, v := range o.Exports {
		if name == "$summary" {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			sx.Summary = emit.CapText(s, maxRecordedLogLine)
			continue
		}
		sx.Exports[name] = capValue(v)
		data.add(name, v)
	}
	if len(sx.Exports) == 0 {
		sx.Exports = nil
	}
	if len(o.Value) > 0 {
		data.add("$return_value", o.Value)
	}
	if o.Exit != nil {
		sx.Status = model.ExecutionExited
	}
	return sx, stepResult{exit: o.Exit, flow: o.Flow, sends: o.Sends, data: data.close()}, nil
}

// jsonObject builds a JSON object from values that are valid JSON
// already (the sandbox's decoded results, stored events), without
// re-encoding them: a step's context grows with each step, and
// encoding/json would check and compact every value again for each.
type jsonObject struct{ buf []byte }

func (o *jsonObject) add(name string, value json.RawMessage) {
	if len(o.buf) == 0 {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ',')
	}
	key, _ := json.Marshal(name)
	o.buf = append(append(append(o.buf, key...), ':'), value...)
}

func (o *jsonObject) close() json.RawMessage {
	if len(o.buf) == 0 {
		return json.RawMessage("{}")
	}
	return append(o.buf[:len(o.buf):len(o.buf)], '}')
}

// stepsContext is steps.* of an execution so far, with what the next
// step's call carries besides: the base of its resume and cancel URLs,
// and a rerun's count and context.
type stepsContext struct {
	obj     jsonObject
	flowURL json.RawMessage // a JSON string; none outside an execution
	run     json.RawMessage // $.context.run of a rerun; nil: a first run
}

func (s *stepsContext) add(name string, data json.RawMessage) { s.obj.add(name, data) }

// event is a step's run event: the steps so far and the step's
// templates (JSON, or empty for none).
func (s *stepsContext) event(templates json.RawMessage) json.RawMessage {
	ev := &jsonObject{}
	ev.add("steps", s.obj.close())
	if len(templates) > 0 {
		ev.add("templates", templates)
	}
	if len(s.flowURL) > 0 {
		ev.add("flow_url", s.flowURL)
	}
	if len(s.run) > 0 {
		ev.add("run", s.run)
	}
	return ev.close()
}

// restoreSteps is a stepsContext from its JSON object, as a paused
// execution stored it.
func restoreSteps(obj json.RawMessage) *stepsContext {
	s := &stepsContext{}
	if inner := bytes.TrimSpace(obj); len(inner) > 2 {
		s.obj.buf = append([]byte(nil), inner[:len(inner)-1]...) // without its closing brace
	}
	return s
}

// stepLogs keeps a step's console lines within the record's caps.
type stepLogs struct {
	mu    sync.Mutex
	lines []model.StepLog
}

func (l *stepLogs) Log(_ context.Context, e sandbox.LogEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < maxRecordedLogs {
		l.lines = append(l.lines, model.StepLog{AtMs: e.Time.UnixMilli(), Level: e.Level, Text: emit.CapText(e.Text, maxRecordedLogLine)})
	}
	return nil
}

// stepError describes a step's failure for its record.
func stepError(err error) *model.StepError {
	name, message, stack := errorParts(err)
	return &model.StepError{Name: name, Message: emit.CapText(message, emit.MaxErrorMessage), Stack: emit.CapText(stack, emit.MaxErrorStack)}
}

// errorCode is the code of a run's failure: the thrown error's own code
// when it had one, else its name.
func errorCode(err error, name string) string {
	if se := (*sandbox.ScriptError)(nil); errors.As(err, &se) && se.Code != "" {
		return se.Code
	}
	return name
}

// errorParts are the name, message and stack of a run's failure.
func errorParts(err error) (name, message, stack string) {
	var se *sandbox.ScriptError
	var ce *CodeError
	switch {
	case errors.As(err, &se):
		return se.Name, se.Message, se.Stack
	case errors.As(err, &ce):
		return ce.Name, ce.Message, ""
	case errors.Is(err, sandbox.ErrTimeout):
		return "TimeoutError", "the step did not finish within its time limit", ""
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return "OutOfMemoryError", "the step ran out of memory", ""
	}
	return "Error", err.Error(), ""
}

// failedExecution records an execution that could not run its steps:
// the workflow cannot be loaded, or its account is over its quota.
func (e *Engine) failedExecution(wf model.Workflow, inv model.Invocation, step string, err error) execution {
	now := e.clock.Now()
	rec := &model.Execution{ID: ids.ExecutionID(wf.ID, inv.ID), WorkflowID: wf.ID, Event: capValue(inv.Event),
		StartedAtMs: now.UnixMilli(), Status: model.ExecutionError, DeploymentID: model.DeploymentID(wf.ID, wf.Version)}
	ctx, _ := json.Marshal(triggerContext(wf, inv, rec.ID, now))
	return execution{commit: store.RunCommit{
		Events: []model.Event{flowErrorEvent(err, wf.ID, step, inv.Event, ctx, now)}, Keep: e.cfg.EventsKept,
		Execution: rec, ExecutionsKept: e.cfg.ExecutionsKept,
	}}
}

// triggerContext is steps.trigger.context, and original_context of an
// $errors event.
func triggerContext(wf model.Workflow, inv model.Invocation, executionID string, at time.Time) map[string]any {
	return map[string]any{
		"id": executionID, "ts": at.UTC().Format(time.RFC3339Nano), "workflow_id": wf.ID,
		"deployment_id": model.DeploymentID(wf.ID, wf.Version), "source_type": sourceType(inv.Kind),
		"verified": false, "owner_id": wf.OwnerID, "platform_version": platformVersion,
	}
}

// sourceType names what triggered an execution, as original_context
// does.
func sourceType(kind model.InvocationKind) string {
	switch kind {
	case kindHTTP:
		return "HTTP"
	case kindTimer:
		return "TIMER"
	case kindEvent:
		return "COMPONENT"
	}
	return "MANUAL"
}

// flowErrorEvent is the $errors event of a failed execution, in the
// specification's shape: original_event, original_context, and error
// with code, cellId (the failed step's id; stepName its name), ts and
// stack.
func flowErrorEvent(err error, workflowID, step string, event, context json.RawMessage, at time.Time) model.Event {
	name, message, stack := errorParts(err)
	if errors.Is(err, errQuota) {
		name = "QuotaExceeded"
	}
	// As Node prints a stack: the error's name and message first.
	if head := name + ": " + message; !strings.HasPrefix(stack, head) {
		stack = strings.TrimRight(head+"\n"+stack, "\n")
	}
	desc := map[string]any{
		"code": emit.CapText(errorCode(err, name), emit.MaxErrorName), "cellId": cellID(workflowID, step), "stepName": step, "ts": at.UTC().Format(time.RFC3339Nano),
		"stack": emit.CapText(stack, emit.MaxErrorStack), "name": emit.CapText(name, emit.MaxErrorName), "message": emit.CapText(message, emit.MaxErrorMessage),
	}
	data, _ := json.Marshal(map[string]any{"original_event": emit.CapEvent(rawOrEmpty(event), emit.MaxOriginalEvent), "original_context": rawOrEmpty(context), "error": desc})
	summary := name + ": " + message
	if step != "" {
		summary = "step " + step + ": " + summary
	}
	return model.Event{Name: channelErrors, EmitID: emit.NewID(), Summary: emit.Truncate(summary, 120), Data: data}
}

// cellID is the id of workflowID's step named step, or "" for a failure
// before any step (the workflow could not be loaded).
func cellID(workflowID, step string) string {
	if step == "" {
		return ""
	}
	return model.StepID(workflowID, step)
}

// rawOrEmpty is raw, or {} when there is none.
func rawOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// capValue is raw within maxRecordedValue, or a marker of its size.
func capValue(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxRecordedValue {
		return raw
	}
	return json.RawMessage(`{"truncated":true,"bytes":` + strconv.Itoa(len(raw)) + `}`)
}

// recordSize estimates the encoded size of rec from its values, so that
// the common small record is not encoded twice: fields and escaping add
// a little, which the cap's margin covers.
func recordSize(rec *model.Execution) int {
	if rec == nil {
		return 0
	}
	n := len(rec.Event) + 256
	for _, s := range rec.Steps {
		n += len(s.Name) + len(s.ReturnValue) + len(s.Summary) + 128
		for k, v := range s.Exports {
			n += len(k) + len(v) + 8
		}
		for _, l := range s.Logs {
			n += len(l.Text) + 64
		}
		if s.Error != nil {
			n += len(s.Error.Name) + len(s.Error.Message) + len(s.Error.Stack) + 64
		}
	}
	return n
}

// capExecution drops the values and logs of a record that is still over
// maxExecutionRecord with each value capped (many steps, many exports).
func capExecution(rec *model.Execution) {
	if recordSize(rec) <= maxExecutionRecord {
		return
	}
	rec.Truncated = true
	for i := range rec.Steps {
		s := &rec.Steps[i]
		if s.ReturnValue != nil || s.Exports != nil || s.Logs != nil {
			s.Truncated = true
		}
		s.ReturnValue, s.Exports, s.Logs = nil, nil, nil
	}
}
