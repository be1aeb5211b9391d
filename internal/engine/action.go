package engine

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// ActionRequest asks to run an action once, outside any workflow, as
// Pipedream's action testing does.
type ActionRequest struct {
	UserID string // whose quota the run counts against
	Code   string
	Props  map[string]json.RawMessage // may hold {{steps...}} expressions, read from Steps
	// Steps is the steps context the action sees (steps.<name>...); nil
	// for none.
	Steps map[string]json.RawMessage
}

// ActionResult is what the run gave back. A failure of the action's own
// code is in Step, not the returned error.
type ActionResult = flow.OneOff

// RunAction loads an action with its props and runs it once, on the
// pool as the user's work. Nothing is stored: emits and sends are
// reported, not carried out; its db lives for the run only. Code that is
// not an action is a *WorkflowError naming the step "action", as a bad
// prop is.
func (e *Engine) RunAction(ctx context.Context, req ActionRequest) (ActionResult, error) {
	end, err := e.beginOp()
	if err != nil {
		return ActionResult{}, err
	}
	defer end()
	const stepName = "action"
	earlier := map[string]bool{}
	for name := range req.Steps {
		earlier[name] = true
	}
	if err := flow.CheckTemplates(stepName, req.Props, earlier); err != nil {
		return ActionResult{}, err
	}
	// Described as a code step, so that what is not an action gets the
	// message below.
	step := model.WorkflowStep{Name: stepName, Kind: model.StepCode, Code: req.Code}
	meta, err := e.describeStep(ctx, model.Workflow{ID: "action", UserID: req.UserID}, &step, nil)
	if err != nil {
		return ActionResult{}, err
	}
	if meta.Type != component.KindAction {
		return ActionResult{}, flow.StepFault(stepName, "the component is not an action (type: \"action\"); deploy a source with `fount deploy`")
	}
	step.Kind, step.Metadata = model.StepAction, *meta
	if err := e.stepAddedProps(ctx, req.UserID, req.UserID, &step, req.Props); err != nil {
		return ActionResult{}, err
	}
	req.Code = step.RunCode()
	var res ActionResult
	err = e.inPool(ctx, req.UserID, 1, func(ctx context.Context) error {
		var err error
		res, err = e.runAction(ctx, req, step)
		return err
	})
	return res, err
}

func (e *Engine) runAction(ctx context.Context, req ActionRequest, step model.WorkflowStep) (ActionResult, error) {
	stepName, meta := step.Name, &step.Metadata
	if err := e.prepareStepProps(model.Workflow{}, &step, req.Props, nil); err != nil {
		return ActionResult{}, err
	}
	if err := e.checkOwnedProps(ctx, meta, step.Props, req.UserID); err != nil { // the user's own accounts
		return ActionResult{}, flow.StepFault(stepName, "%v", err)
	}
	templates := map[string]string{}
	plain := map[string]json.RawMessage{}
	for name, v := range req.Props { // unsealed: nothing here is stored
		var s string
		if _, declared := meta.Prop(name); declared && flow.IsTemplate(v) && json.Unmarshal(v, &s) == nil {
			templates[name] = s
		} else if declared {
			plain[name] = v
		}
	}
	static, _ := json.Marshal(plain)
	box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: "action", Code: req.Code, Props: static, Format: meta.Format, Step: true})
	if err != nil {
		return ActionResult{}, flow.StepFault(stepName, "%v", codeError(err))
	}
	defer box.Close(context.WithoutCancel(ctx))
	for name, v := range req.Steps {
		if !json.Valid(v) {
			return ActionResult{}, flow.StepFault(stepName, "steps.%s is not JSON", name)
		}
	}
	wf := model.Workflow{ID: "action", OwnerID: req.UserID, UserID: req.UserID, Steps: []model.WorkflowStep{step}}
	return e.flows.RunOneOff(ctx, wf, box, templates, req.Steps, &memKV{values: map[string][]byte{}})
}

// memKV is the db of an action run on its own: it lives for the run.
type memKV struct {
	mu     sync.Mutex
	values map[string][]byte
}

func (m *memKV) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.values[key]
	return v, ok, nil
}

func (m *memKV) Set(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.values[key] = value
	return nil
}
