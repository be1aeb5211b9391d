package engine

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// flowHost is the engine as a workflow's steps (package flow) need it:
// their code and props loaded, sandboxes reserved, and what a step may
// reach.
type flowHost struct{ e *Engine }

func (h flowHost) LoadStep(ctx context.Context, wf model.Workflow, step model.WorkflowStep) (sandbox.Source, map[string]string, error) {
	static, templates, err := h.e.stepTemplates(wf, step)
	if err != nil {
		return nil, nil, err
	}
	box, err := h.e.sandbox.Load(ctx, sandbox.Spec{ID: wf.ID, Code: step.RunCode(), Filename: step.Filename, Modules: step.Modules,
		Props: static, Format: step.Metadata.Format, Step: true})
	if err != nil {
		return nil, nil, fmt.Errorf("step %q: %w", step.Name, codeError(err))
	}
	return box, templates, nil
}

func (h flowHost) Reserve(ctx context.Context, account, target string, limits sandbox.Limits, deadline time.Time) (func(), error) {
	return h.e.reserveSandbox(ctx, account, target, limits, deadline)
}

func (h flowHost) Capabilities(wf model.Workflow, step model.WorkflowStep) (sandbox.Capabilities, func(error) error) {
	gone := &goneAccounts{}
	return h.e.reach(wf.OwnerID, step.Props, gone), gone.explain
}

func (h flowHost) DB(workflowID string) sandbox.KV { return sourceDB{h.e.store, workflowID} }

func (h flowHost) Channels(workflowID string) *emit.Budget { return h.e.channelBudget(workflowID) }

func (h flowHost) MapStack(err error, wf model.Workflow, step model.WorkflowStep, oneOff bool) error {
	if step.BundleMap == "" && step.SourceMap == "" {
		return err
	}
	return mapStack(err, cmp.Or(step.Filename, entryFile), func() []*component.SourceMap { return h.e.stepMaps(wf, step, oneOff) })
}
