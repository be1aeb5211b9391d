package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// Limits of a workflow definition.
const (
	MaxSteps       = 50
	maxStepNameLen = 64
)

// stepName is what a step may be called: it is read as steps.<name>.
var stepName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// WorkflowRequest asks for a new workflow, or a new version of one.
type WorkflowRequest struct {
	OwnerID string // the user or organization that owns it
	UserID  string // who deploys it; its executions count against this user's quota
	Name    string
	Active  bool
	Trigger TriggerRequest
	Steps   []StepRequest
	// Packages says how the npm packages steps import are resolved.
	Packages SaveOptions
	// Controls are its execution controls.
	Controls model.Controls
}

// Bounds of the execution controls.
const (
	maxConcurrency   = 50
	maxQueueSize     = 10_000
	maxRetryAttempts = 8
)

// TriggerRequest is a workflow's trigger as the user gave it.
type TriggerRequest struct {
	Type string // store.TriggerHTTP, TriggerTimer, TriggerSource or TriggerManual
	// HTTP: the workflow answers the request itself with $.respond();
	// Token is the bearer token requests must carry (empty: none;
	// secret.Marker: the one stored before).
	Respond bool
	Token   string
	// Timer: {"intervalSeconds": n} or {"cron": "..."}.
	Timer json.RawMessage
	// Source: the emitter (an id, or a glob dc_* or p_*) and channel,
	// and the account that holds the trigger's subscription (default the
	// workflow's owner): an organization's source routes to the
	// subscriptions of its organization.
	EmitterID         string
	EventName         string
	SubscriptionOwner string
}

// StepRequest is one step as the user gave it: bundled code and props.
type StepRequest struct {
	Name      string
	Kind      string // store.StepCode or store.StepAction
	Key       string // an action's registry key, when deployed by key
	Code      string
	Filename  string
	SourceMap string // from the code to its author's files; checked
	Modules   map[string]string
	Props     map[string]json.RawMessage
}

// WorkflowError is a workflow definition that cannot be deployed. Step
// names the step at fault ("" for the workflow itself).
type WorkflowError struct {
	Step   string
	Reason string
}

func (e *WorkflowError) Error() string {
	if e.Step == "" {
		return e.Reason
	}
	return fmt.Sprintf("step %q: %s", e.Step, e.Reason)
}

// stepErr is a *WorkflowError of step.
func stepErr(step, format string, args ...any) *WorkflowError {
	return &WorkflowError{Step: step, Reason: fmt.Sprintf(format, args...)}
}

// DeployWorkflow validates a definition, loads every step in the sandbox
// (which checks its code and describes its props), stores the workflow
// and brings its trigger up. Nothing is stored when a step is at fault:
// a *WorkflowError names it.
func (e *Engine) DeployWorkflow(ctx context.Context, req WorkflowRequest) (model.Workflow, error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Workflow{}, err
	}
	defer end()
	now := e.clock.Now().Unix()
	wf := model.Workflow{ID: ids.New(ids.Workflow), OwnerID: req.OwnerID, UserID: req.UserID, CreatedAt: now}
	sub, err := e.prepareWorkflow(ctx, &wf, req, nil)
	if err != nil {
		return model.Workflow{}, err
	}
	unlock := e.lifecycle.Lock(wf.ID)
	defer unlock()
	stored, err := e.store.CreateWorkflow(ctx, wf, sub)
	if err != nil {
		return model.Workflow{}, workflowStoreError(err, wf.NameSlug)
	}
	e.startWorkflowTriggers(stored)
	e.changed(model.WorkflowTarget(stored.ID))
	return stored, nil
}

// UpdateWorkflow replaces a workflow's definition (its id, endpoint and
// creation stay) and swaps its trigger. Executions already queued run
// with the new steps.
func (e *Engine) UpdateWorkflow(ctx context.Context, id string, req WorkflowRequest) (model.Workflow, error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Workflow{}, err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	old, err := e.store.GetWorkflow(ctx, id)
	if err != nil {
		return model.Workflow{}, err
	}
	wf := old // its creator stays: executions count against them, as a source's runs do
	sub, err := e.prepareWorkflow(ctx, &wf, req, &old)
	if err != nil {
		return model.Workflow{}, err
	}
	stored, err := e.store.UpdateWorkflow(ctx, wf, sub)
	if err != nil {
		return model.Workflow{}, workflowStoreError(err, wf.NameSlug)
	}
	e.stopTriggers(model.WorkflowTarget(id))
	e.startWorkflowTriggers(stored)
	e.changed(model.WorkflowTarget(id))
	e.kick(model.WorkflowTarget(id)) // queued executions pick up the new version
	return stored, nil
}

// SetWorkflowActive starts or stops a workflow's trigger and keeps
// everything else, without loading its steps again. Manual runs work
// either way.
func (e *Engine) SetWorkflowActive(ctx context.Context, id string, active bool) (model.Workflow, error) {
	return e.rewriteWorkflow(id, func(at int64) (model.Workflow, error) {
		return e.store.SetWorkflowActive(ctx, id, active, at)
	})
}

// rewriteWorkflow changes workflow id's record with write (given the
// time of the change) under its lifecycle lock, and starts its trigger
// again as the record now says.
func (e *Engine) rewriteWorkflow(id string, write func(at int64) (model.Workflow, error)) (model.Workflow, error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Workflow{}, err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	wf, err := write(e.clock.Now().Unix())
	if err != nil {
		return model.Workflow{}, err
	}
	e.stopTriggers(model.WorkflowTarget(id))
	e.startWorkflowTriggers(wf)
	e.changed(model.WorkflowTarget(id))
	return wf, nil
}

// DeleteWorkflow stops a workflow's trigger and deletes it with its
// events, executions and queued work.
func (e *Engine) DeleteWorkflow(ctx context.Context, id string) error {
	end, err := e.beginOp()
	if err != nil {
		return err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	if err := e.store.DeleteWorkflow(ctx, id); err != nil {
		return err
	}
	e.stopTriggers(model.WorkflowTarget(id))
	e.changed(model.WorkflowTarget(id))
	e.flows.Forget(id)
	return nil
}

// RunWorkflow queues a manual execution with event as the trigger event
// ({} when empty) and returns the id its execution will have.
func (e *Engine) RunWorkflow(ctx context.Context, id string, event json.RawMessage) (string, error) {
	end, err := e.beginOp()
	if err != nil {
		return "", err
	}
	defer end()
	if len(event) == 0 {
		event = json.RawMessage("{}")
	}
	wf, err := e.store.GetWorkflow(ctx, id)
	if err != nil {
		return "", err
	}
	inv, err := e.enqueueWithin(ctx, model.NewInvocation(model.WorkflowTarget(id), kindManual, event), wf.QueueSize)
	if err != nil {
		return "", fmt.Errorf("engine: queue a run of %s: %w", id, err)
	}
	e.kick(model.WorkflowTarget(id))
	return ids.ExecutionID(id, inv.ID), nil
}

// QueueFullError refuses a run of a source, or an execution of a
// workflow, whose queue holds its queue_size already.
type QueueFullError struct{ Size int }

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("the queue is full: %d runs wait to start, its queue_size", e.Size)
}

// Unwrap says what it is to those that know no engine: a full queue.
func (e *QueueFullError) Unwrap() error { return store.ErrQueueFull }

// enqueueWithin queues inv unless its target's queue holds size
// invocations or more (size 0: no bound), counted with the write so that
// a burst cannot pass it: a *QueueFullError then.
func (e *Engine) enqueueWithin(ctx context.Context, inv model.Invocation, size int) (model.Invocation, error) {
	out, err := e.queues.EnqueueInvocationWithin(ctx, inv, size)
	if errors.Is(err, store.ErrQueueFull) {
		return out, &QueueFullError{Size: size}
	}
	return out, err
}

// ErrEventNotKept is returned by ReplayExecution for an execution whose
// trigger event was larger than an execution keeps.
var ErrEventNotKept = errors.New("engine: the execution's trigger event was too large to keep")

// ReplayExecution queues a new execution of x's workflow with x's
// trigger event (a manual one: its context's source_type is MANUAL) and
// returns the id it will have.
func (e *Engine) ReplayExecution(ctx context.Context, x model.Execution) (string, error) {
	if flow.EventCut(x.Event) {
		return "", ErrEventNotKept
	}
	return e.RunWorkflow(ctx, x.WorkflowID, x.Event)
}

// workflowStoreError maps a failed workflow write to what the caller
// should hear.
func workflowStoreError(err error, slug string) error {
	if errors.Is(err, model.ErrConflict) {
		return &WorkflowError{Reason: "a workflow named " + slug + " already exists"}
	}
	return err
}

// ControlsError is execution controls out of their bounds.
type ControlsError struct{ Reason string }

func (e *ControlsError) Error() string { return e.Reason }

// checkControls says what is wrong with execution controls.
func checkControls(c model.Controls) error {
	switch t := c.Throttle; {
	case t != nil && (t.Limit < 1 || t.Limit > batch.MaxThrottleLimit || t.IntervalSeconds < 1 || t.IntervalSeconds > batch.MaxThrottleInterval):
		return &ControlsError{Reason: fmt.Sprintf("the throttle needs a limit from 1 to %d and interval_seconds from 1 to %d", batch.MaxThrottleLimit, batch.MaxThrottleInterval)}
	case c.Concurrency < 0 || c.Concurrency > maxConcurrency:
		return &ControlsError{Reason: fmt.Sprintf("concurrency must be from 1 to %d (0: 1), not %d", maxConcurrency, c.Concurrency)}
	case c.QueueSize < 0 || c.QueueSize > maxQueueSize:
		return &ControlsError{Reason: fmt.Sprintf("queue_size must be from 1 to %d (0: no bound), not %d", maxQueueSize, c.QueueSize)}
	case c.Retry != nil && (c.Retry.Attempts < 1 || c.Retry.Attempts > maxRetryAttempts):
		return &ControlsError{Reason: fmt.Sprintf("retry.attempts must be from 1 to %d, not %d", maxRetryAttempts, c.Retry.Attempts)}
	}
	return nil
}

// SetWorkflowControls replaces a workflow's execution controls, keeping
// its definition and version (no new deployment).
func (e *Engine) SetWorkflowControls(ctx context.Context, id string, c model.Controls) (model.Workflow, error) {
	if err := checkControls(c); err != nil {
		return model.Workflow{}, err
	}
	wf, err := e.rewriteWorkflow(id, func(at int64) (model.Workflow, error) {
		return e.store.SetWorkflowControls(ctx, id, c, at)
	})
	if err == nil {
		e.throttles.Forget(id)
		e.kick(model.WorkflowTarget(id)) // a looser control may let waiting executions start
	}
	return wf, err
}

// prepareWorkflow fills wf from req: name, trigger and steps, each step
// loaded in the sandbox to check it. previous is the stored workflow on
// update. It returns the subscription of a source trigger.
func (e *Engine) prepareWorkflow(ctx context.Context, wf *model.Workflow, req WorkflowRequest, previous *model.Workflow) (*model.Subscription, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return nil, &WorkflowError{Reason: "the workflow needs a name"}
	}
	wf.Name, wf.NameSlug, wf.Active = name, slugify(name), req.Active
	wf.UpdatedAt = e.clock.Now().Unix()
	trigger, sub, err := e.prepareTrigger(wf, req.Trigger, previous)
	if err != nil {
		return nil, err
	}
	wf.Trigger = trigger
	if err := checkControls(req.Controls); err != nil {
		return nil, err
	}
	wf.Controls = req.Controls
	steps, err := e.prepareSteps(ctx, *wf, req.Steps, previous, req.Packages)
	if err != nil {
		return nil, err
	}
	wf.Steps = steps
	return sub, nil
}

// prepareTrigger checks a trigger. An HTTP trigger keeps the endpoint it
// had, so that its URL survives updates.
func (e *Engine) prepareTrigger(wf *model.Workflow, t TriggerRequest, previous *model.Workflow) (model.WorkflowTrigger, *model.Subscription, error) {
	out := model.WorkflowTrigger{Type: t.Type}
	switch t.Type {
	case model.TriggerHTTP:
		out.Respond = t.Respond
		out.Endpoint = component.NewEndpointToken()
		if previous != nil && previous.Trigger.Endpoint != "" {
			out.Endpoint = previous.Trigger.Endpoint
		}
		hash, err := triggerTokenHash(t.Token, previous)
		if err != nil {
			return out, nil, err
		}
		out.TokenHash = hash
	case model.TriggerTimer:
		spec, err := component.CheckTimer(component.Prop{Name: "timer", Type: component.TypeTimer}, t.Timer)
		if err != nil {
			return out, nil, &WorkflowError{Reason: "the timer trigger " + strings.TrimPrefix(err.Error(), "The prop timer ")}
		}
		out.Timer = &spec
	case model.TriggerSource:
		if !ids.NamesEmitters(t.EmitterID) {
			return out, nil, &WorkflowError{Reason: fmt.Sprintf("the source trigger needs an emitter: a source (dc_...) or workflow (p_...) id, or the glob dc_* or p_*; %q is none of them", t.EmitterID)}
		}
		if t.EmitterID == wf.ID {
			return out, nil, &WorkflowError{Reason: "a workflow cannot be triggered by its own events"}
		}
		out.EmitterID, out.EventName = t.EmitterID, t.EventName
		owner := wf.OwnerID
		if t.SubscriptionOwner != "" {
			owner = t.SubscriptionOwner
		}
		sub := &model.Subscription{ID: ids.New(ids.Subscription), OwnerID: owner, EmitterID: t.EmitterID,
			ListenerID: wf.ID, ListenerKind: model.ListenerWorkflow, EventName: t.EventName, CreatedAt: e.clock.Now().Unix()}
		return out, sub, nil
	case model.TriggerManual:
	default:
		return out, nil, &WorkflowError{Reason: fmt.Sprintf("unknown trigger type %q; use http, timer, source or manual", t.Type)}
	}
	return out, nil, nil
}

// prepareSteps checks each step and loads it in the sandbox. previous
// is the stored workflow on update, whose steps' secrets a step of the
// same name may keep.
func (e *Engine) prepareSteps(ctx context.Context, wf model.Workflow, reqs []StepRequest, previous *model.Workflow, opts SaveOptions) ([]model.WorkflowStep, error) {
	if len(reqs) == 0 {
		return nil, &WorkflowError{Reason: "the workflow needs at least one step"}
	}
	if len(reqs) > MaxSteps {
		return nil, &WorkflowError{Reason: fmt.Sprintf("the workflow has %d steps, more than %d", len(reqs), MaxSteps)}
	}
	seen := map[string]bool{}
	out := make([]model.WorkflowStep, 0, len(reqs))
	for i, r := range reqs {
		switch {
		case !stepName.MatchString(r.Name) || len(r.Name) > maxStepNameLen:
			return nil, stepErr(r.Name, "step %d needs a name of letters, digits and _ (not starting with a digit, at most %d characters)", i+1, maxStepNameLen)
		case r.Name == flow.TriggerStep:
			return nil, stepErr(r.Name, "the name trigger is reserved for the workflow's trigger")
		case seen[r.Name]:
			return nil, stepErr(r.Name, "two steps have this name; step names must be unique")
		case r.Kind != model.StepCode && r.Kind != model.StepAction:
			return nil, stepErr(r.Name, "unknown kind %q; use code or action", r.Kind)
		case strings.TrimSpace(r.Code) == "":
			return nil, stepErr(r.Name, "the step has no code")
		}
		if err := checkTemplates(r.Name, r.Props, seen); err != nil {
			return nil, err
		}
		seen[r.Name] = true
		if len(r.SourceMap) > component.MaxAuthorSourceMap {
			return nil, stepErr(r.Name, "the source_map is %d bytes; at most %d MiB is kept", len(r.SourceMap), component.MaxAuthorSourceMap>>20)
		}
		if r.SourceMap != "" {
			if _, err := component.ParseSourceMap(r.SourceMap); err != nil {
				return nil, stepErr(r.Name, "the source_map is not a source map v3: %v", err)
			}
		}
		step := model.WorkflowStep{Name: r.Name, Kind: r.Kind, Key: r.Key, Code: r.Code, Filename: r.Filename, SourceMap: r.SourceMap, Modules: r.Modules}
		var prev *model.WorkflowStep
		if previous != nil {
			for i := range previous.Steps {
				if previous.Steps[i].Name == step.Name {
					prev = &previous.Steps[i]
				}
			}
		}
		var lock []model.Package
		if prev != nil && prev.Code == step.Code && !opts.UpdatePackages {
			lock = prev.Packages
		}
		meta, err := e.describeStep(ctx, wf, &step, lock)
		if err != nil {
			return nil, err
		}
		step.Metadata = *meta
		if err := e.stepAddedProps(ctx, wf.OwnerID, wf.UserID, &step, r.Props); err != nil {
			return nil, err
		}
		if err := e.prepareStepProps(wf, &step, r.Props, prev); err != nil {
			return nil, err
		}
		if err := e.checkOwnedProps(ctx, &step.Metadata, step.Props, wf.OwnerID); err != nil {
			return nil, stepErr(step.Name, "%v", err)
		}
		out = append(out, step)
	}
	return out, nil
}

// describeStep loads a step's code in the sandbox, as the deploying
// user's work, and returns what it found. The npm packages the step
// imports are bundled in first (step.Bundle, step.Packages), with the
// versions of lock where they fit.
func (e *Engine) describeStep(ctx context.Context, wf model.Workflow, step *model.WorkflowStep, lock []model.Package) (*component.Metadata, error) {
	meta, bundled, err := e.describeWithPackages(ctx, wf.UserID, step.Code, lock, func(code string) (*component.Metadata, error) {
		var meta *component.Metadata
		err := e.inPool(ctx, wf.UserID, 0, func(ctx context.Context) error {
			box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: wf.ID, Code: code, Filename: step.Filename, Modules: step.Modules, Props: json.RawMessage("{}"), Step: true})
			if err != nil {
				return err
			}
			meta = box.Metadata()
			box.Close(context.WithoutCancel(ctx))
			return nil
		})
		return meta, err
	})
	if err != nil {
		if cerr := codeError(err); cerr != err || isCodeError(err) {
			return nil, stepErr(step.Name, "%v", cerr)
		}
		return nil, err
	}
	step.Bundle, step.BundleMap, step.Packages = bundled.Code, bundled.Map, bundled.Packages
	if step.Kind == model.StepAction && meta.Type != component.KindAction {
		return nil, stepErr(step.Name, "an action step needs an action component, with type: \"action\"; make it a code step, or give it that type")
	}
	if len(meta.Hooks) > 0 || len(meta.PropsOfType(component.TypeHTTP)) > 0 || len(meta.PropsOfType(component.TypeAppHook)) > 0 || len(meta.PropsOfType(component.TypeTimer)) > 0 || meta.Dedupe != "" {
		return nil, stepErr(step.Name, "the component is a source (it has hooks, an HTTP or timer interface, or a dedupe strategy), not an action; deploy it as a source and trigger the workflow with its events")
	}
	return meta, nil
}

// prepareStepProps checks a step's configured props against what it
// declares: a template ({{...}}) is checked when it is evaluated, any
// other value now; a required prop needs a value; secrets are sealed,
// bound to the workflow and step. A secret sent back as secret.Marker
// keeps the value of prev, the stored step of the same name.
func (e *Engine) prepareStepProps(wf model.Workflow, step *model.WorkflowStep, given map[string]json.RawMessage, prev *model.WorkflowStep) error {
	meta := &step.Metadata
	for name := range given {
		if _, ok := meta.Prop(name); !ok {
			return stepErr(step.Name, "the component has no prop %q", name)
		}
	}
	step.Props = map[string]json.RawMessage{}
	for _, p := range meta.ConfigurableProps {
		raw, ok := given[p.Name]
		if ok && isNull(raw) {
			ok = false
		}
		switch {
		case p.Type == component.TypeDB:
			continue
		case p.Type == component.TypeAlert:
			if ok {
				return stepErr(step.Name, "the prop %s is an alert, shown to whoever configures the step: it takes no value", p.Name)
			}
			continue
		case p.Type == component.TypeApp:
			if ok { // its account is checked with the store by checkOwnedProps
				step.Props[p.Name] = raw
			}
			continue
		case !ok:
			if p.Required() {
				return stepErr(step.Name, "the prop %s is required; give it a value of type %s", p.Name, p.Type)
			}
			continue
		case p.Secret && isMarker(raw):
			if prev == nil || !slices.Contains(prev.SecretProps, p.Name) {
				return stepErr(step.Name, "the prop %s was sent as %s but has no stored value; send the secret itself", p.Name, secret.Marker)
			}
			step.Props[p.Name] = prev.Props[p.Name]
			step.SecretProps = append(step.SecretProps, p.Name)
			continue
		case isTemplate(raw):
		default:
			if err := p.Check(raw); err != nil {
				return stepErr(step.Name, "%v", err)
			}
		}
		step.Props[p.Name] = raw
		if p.Secret {
			step.Props[p.Name] = e.cfg.Secrets.SealProp(raw, stepBinding(wf, step.Name, p.Name))
			step.SecretProps = append(step.SecretProps, p.Name)
		}
	}
	return nil
}

// stepBinding binds a step's sealed prop to its workflow, step and prop.
func stepBinding(wf model.Workflow, step, prop string) string {
	return secret.PropBinding(wf.OwnerID, wf.ID, step+"."+prop)
}

// templateExpr finds the {{...}} expressions of a prop value.
var templateExpr = regexp.MustCompile(`\{\{([\s\S]*?)\}\}`)

// stepRef finds the steps a template expression reads: steps.name,
// steps["name"] or steps['name'].
var stepRef = regexp.MustCompile(`\bsteps\s*(?:\.\s*([A-Za-z_$][A-Za-z0-9_$]*)|\[\s*["']([^"']*)["']\s*\])`)

// isTemplate reports whether raw is a string holding a {{...}}
// expression.
func isTemplate(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && templateExpr.MatchString(s)
}

// checkTemplates refuses an expression in a step's props that reads a
// step that does not come before it.
func checkTemplates(step string, props map[string]json.RawMessage, earlier map[string]bool) error {
	for name, raw := range props {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		for _, m := range templateExpr.FindAllStringSubmatch(s, -1) {
			for _, ref := range stepRef.FindAllStringSubmatch(m[1], -1) {
				target := ref[1] + ref[2]
				if target != flow.TriggerStep && !earlier[target] {
					return stepErr(step, "the prop %s reads steps.%s in {{%s}}, and no earlier step has that name", name, target, strings.TrimSpace(m[1]))
				}
			}
		}
	}
	return nil
}

// stepTemplates splits a step's stored props into the values it is
// loaded with (secrets opened) and the templates evaluated at each
// execution.
func (e *Engine) stepTemplates(wf model.Workflow, step model.WorkflowStep) (static json.RawMessage, templates map[string]string, err error) {
	plain := map[string]json.RawMessage{}
	for name, v := range step.Props {
		if slices.Contains(step.SecretProps, name) {
			opened, err := e.cfg.Secrets.OpenProp(v, stepBinding(wf, step.Name, name))
			if err != nil {
				return nil, nil, fmt.Errorf("engine: secret prop %s of step %s of %s: %w", name, step.Name, wf.ID, err)
			}
			v = opened
		}
		var s string
		if isTemplate(v) && json.Unmarshal(v, &s) == nil {
			if templates == nil {
				templates = map[string]string{}
			}
			templates[name] = s
			continue
		}
		plain[name] = v
	}
	static, err = json.Marshal(plain)
	return static, templates, err
}

// startWorkflowTriggers registers an active workflow's endpoint or arms
// its timer. A source trigger is its subscription, which the store holds.
func (e *Engine) startWorkflowTriggers(wf model.Workflow) {
	if !wf.Active {
		return
	}
	switch wf.Trigger.Type {
	case model.TriggerHTTP:
		e.ingress.Endpoints.Set(wf.ID, map[component.EndpointToken]ingress.Endpoint{
			wf.Trigger.Endpoint: {Target: model.WorkflowTarget(wf.ID), Account: wf.UserID, CustomResponse: wf.Trigger.Respond, TokenHash: wf.Trigger.TokenHash, QueueSize: wf.QueueSize},
		})
	case model.TriggerTimer:
		if wf.Trigger.Timer != nil {
			e.timers.Arm(model.WorkflowTarget(wf.ID), time.Unix(wf.UpdatedAt, 0), map[string]component.TimerSpec{flow.TriggerStep: *wf.Trigger.Timer})
		}
	}
}
