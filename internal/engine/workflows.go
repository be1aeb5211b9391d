package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

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

// WorkflowError is a workflow definition that cannot be deployed (package
// flow checks definitions). Step names the step at fault ("" for the
// workflow itself).
type WorkflowError = flow.DefinitionError

// ControlsError is execution controls out of their bounds.
type ControlsError = flow.ControlsError

// MaxSteps is the most steps a workflow has.
const MaxSteps = flow.MaxSteps

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

// SetWorkflowControls replaces a workflow's execution controls, keeping
// its definition and version (no new deployment).
func (e *Engine) SetWorkflowControls(ctx context.Context, id string, c model.Controls) (model.Workflow, error) {
	if err := flow.CheckControls(c); err != nil {
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
	if err := flow.CheckControls(req.Controls); err != nil {
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
		hash, err := flow.TriggerTokenHash(t.Token, previous)
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
	if err := flow.CheckStepCount(len(reqs)); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]model.WorkflowStep, 0, len(reqs))
	for i, r := range reqs {
		step := model.WorkflowStep{Name: r.Name, Kind: r.Kind, Key: r.Key, Code: r.Code, Filename: r.Filename, SourceMap: r.SourceMap, Modules: r.Modules}
		if err := flow.CheckStep(i, step, r.Props, seen); err != nil {
			return nil, err
		}
		seen[r.Name] = true
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
			return nil, flow.StepFault(step.Name, "%v", err)
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
			return nil, flow.StepFault(step.Name, "%v", cerr)
		}
		return nil, err
	}
	step.Bundle, step.BundleMap, step.Packages = bundled.Code, bundled.Map, bundled.Packages
	if step.Kind == model.StepAction && meta.Type != component.KindAction {
		return nil, flow.StepFault(step.Name, "an action step needs an action component, with type: \"action\"; make it a code step, or give it that type")
	}
	if len(meta.Hooks) > 0 || len(meta.PropsOfType(component.TypeHTTP)) > 0 || len(meta.PropsOfType(component.TypeAppHook)) > 0 || len(meta.PropsOfType(component.TypeTimer)) > 0 || meta.Dedupe != "" {
		return nil, flow.StepFault(step.Name, "the component is a source (it has hooks, an HTTP or timer interface, or a dedupe strategy), not an action; deploy it as a source and trigger the workflow with its events")
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
			return flow.StepFault(step.Name, "the component has no prop %q", name)
		}
	}
	step.Props = map[string]json.RawMessage{}
	for _, p := range meta.ConfigurableProps {
		raw, ok := given[p.Name]
		if ok && isNull(raw) {
			ok = false
		}
		switch {
		case p.Type == component.TypeDB, p.Type == component.TypeDir:
			continue
		case p.Type == component.TypeAlert:
			if ok {
				return flow.StepFault(step.Name, "the prop %s is an alert, shown to whoever configures the step: it takes no value", p.Name)
			}
			continue
		case p.Type == component.TypeApp:
			if ok { // its account is checked with the store by checkOwnedProps
				step.Props[p.Name] = raw
			}
			continue
		case !ok:
			if p.Required() {
				return flow.StepFault(step.Name, "the prop %s is required; give it a value of type %s", p.Name, p.Type)
			}
			continue
		case p.Secret && isMarker(raw):
			if prev == nil || !slices.Contains(prev.SecretProps, p.Name) {
				return flow.StepFault(step.Name, "the prop %s was sent as %s but has no stored value; send the secret itself", p.Name, secret.Marker)
			}
			step.Props[p.Name] = prev.Props[p.Name]
			step.SecretProps = append(step.SecretProps, p.Name)
			continue
		case flow.IsTemplate(raw):
		default:
			if err := p.Check(raw); err != nil {
				return flow.StepFault(step.Name, "%v", err)
			}
			if p.Type == component.TypeSQL {
				raw = component.SQLValue(raw)
			}
		}
		step.Props[p.Name] = raw
		if p.Secret {
			step.Props[p.Name] = e.cfg.Secrets.SealProp(raw, flow.StepBinding(wf, step.Name, p.Name))
			step.SecretProps = append(step.SecretProps, p.Name)
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
			opened, err := e.cfg.Secrets.OpenProp(v, flow.StepBinding(wf, step.Name, name))
			if err != nil {
				return nil, nil, fmt.Errorf("engine: secret prop %s of step %s of %s: %w", name, step.Name, wf.ID, err)
			}
			v = opened
		}
		var s string
		if flow.IsTemplate(v) && json.Unmarshal(v, &s) == nil {
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
