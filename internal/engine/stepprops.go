package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// A deployed step's props can be configured on their own, as a source's
// are: its form asks for the props additionalProps adds and for a prop's
// options with the values entered so far, then saves them, keeping the
// step's code and the rest of the workflow.

// StepConfigureRequest is what configuring step stepName of wf needs: the
// step's code with the props it declares (its stored metadata also holds
// those additionalProps added at its last deploy, so the code is loaded
// again to tell them apart), and the values given, a kept secret
// ("[redacted]") replaced by its stored value, as a source's method sees
// it.
func (e *Engine) StepConfigureRequest(ctx context.Context, wf model.Workflow, stepName, userID string, given map[string]json.RawMessage) (ConfigureRequest, error) {
	_, step, err := flow.StepOf(wf, stepName)
	if err != nil {
		return ConfigureRequest{}, err
	}
	declared, err := e.declaredStepMetadata(ctx, wf, step)
	if err != nil {
		return ConfigureRequest{}, err
	}
	props, err := e.openKeptSecrets(wf, step, given)
	if err != nil {
		return ConfigureRequest{}, err
	}
	comp := model.Component{Code: step.Code, Bundle: step.Bundle, Metadata: *declared}
	return ConfigureRequest{UserID: userID, OwnerID: wf.OwnerID, Component: comp, Props: props}, nil
}

// SetStepProps replaces the props of step stepName of workflow id with
// given, checked as a deploy checks them (the props additionalProps adds
// for them included, a secret sent back as "[redacted]" kept), and keeps
// everything else of the workflow. The workflow's version goes up, and
// executions not yet started run with the new props.
func (e *Engine) SetStepProps(ctx context.Context, id, stepName, userID string, given map[string]json.RawMessage) (model.Workflow, error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Workflow{}, err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	wf, err := e.store.GetWorkflow(ctx, id)
	if err != nil {
		return model.Workflow{}, err
	}
	at, prev, err := flow.StepOf(wf, stepName)
	if err != nil {
		return model.Workflow{}, err
	}
	earlier := map[string]bool{}
	for _, s := range wf.Steps[:at] {
		earlier[s.Name] = true
	}
	if err := flow.CheckTemplates(stepName, given, earlier); err != nil {
		return model.Workflow{}, err
	}
	declared, err := e.declaredStepMetadata(ctx, wf, prev)
	if err != nil {
		return model.Workflow{}, err
	}
	step := *prev
	step.Metadata, step.Props, step.SecretProps = *declared, nil, nil
	opened, err := e.openKeptSecrets(wf, prev, given)
	if err != nil {
		return model.Workflow{}, err
	}
	if err := e.stepAddedProps(ctx, wf.OwnerID, userID, &step, opened); err != nil {
		return model.Workflow{}, err
	}
	if err := e.prepareStepProps(wf, &step, given, prev); err != nil {
		return model.Workflow{}, err
	}
	if err := e.checkOwnedProps(ctx, &step.Metadata, step.Props, wf.OwnerID); err != nil {
		return model.Workflow{}, flow.StepFault(step.Name, "%v", err)
	}
	stored, err := e.store.SetWorkflowStep(ctx, id, step, e.clock.Now().Unix())
	if err != nil {
		return model.Workflow{}, err
	}
	e.changed(model.WorkflowTarget(id))
	e.kick(model.WorkflowTarget(id)) // queued executions pick up the new version
	return stored, nil
}

// openKeptSecrets is given with each secret sent back as "[redacted]"
// replaced by the step's stored value, opened: what the component's
// methods see, as a source's see theirs.
func (e *Engine) openKeptSecrets(wf model.Workflow, step *model.WorkflowStep, given map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	props := maps.Clone(given)
	for name, raw := range given {
		if isMarker(raw) && slices.Contains(step.SecretProps, name) {
			opened, err := e.cfg.Secrets.OpenProp(step.Props[name], flow.StepBinding(wf, step.Name, name))
			if err != nil {
				return nil, err
			}
			props[name] = opened
		}
	}
	return props, nil
}

// declaredStepMetadata returns the props a deployed step declares: its
// stored metadata when it has no additionalProps method, else what
// loading its code (its bundle) in the sandbox, as the workflow's
// creator's work, describes.
func (e *Engine) declaredStepMetadata(ctx context.Context, wf model.Workflow, step *model.WorkflowStep) (*component.Metadata, error) {
	if !step.Metadata.HasAdditionalProps {
		meta := step.Metadata
		return &meta, nil
	}
	var meta *component.Metadata
	err := e.inPool(ctx, wf.UserID, 0, func(ctx context.Context) error {
		box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: wf.ID, Code: step.RunCode(), Filename: step.Filename, Modules: step.Modules, Props: json.RawMessage("{}"), Step: true})
		if err != nil {
			return err
		}
		meta = box.Metadata()
		box.Close(context.WithoutCancel(ctx))
		return nil
	})
	if err != nil {
		return nil, flow.StepFault(step.Name, "%v", codeError(err))
	}
	return meta, nil
}
