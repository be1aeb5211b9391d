package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
)

// What queues the invocations of sources and workflows on this node: their
// endpoints (package ingress serves them) and timers, set up and taken
// down with their lifecycle; timer ticks; manual runs; and the releases
// of delayed emits and paused executions when they come due.

// withAddedProps is a source's component metadata with the props its
// additionalProps method added when it was configured (timers among
// them).
func withAddedProps(meta component.Metadata, src model.Source) *component.Metadata {
	meta.ConfigurableProps = component.WithAdded(meta.ConfigurableProps, src.AddedProps)
	return &meta
}

// startTriggers registers a source's endpoints and arms its timers.
func (e *Engine) startTriggers(src model.Source, meta *component.Metadata) {
	eps := map[component.EndpointToken]ingress.Endpoint{}
	for name, tok := range src.Endpoints {
		p, _ := meta.Prop(name)
		eps[tok] = ingress.Endpoint{Target: model.SourceTarget(src.ID), Account: src.UserID, Prop: name, CustomResponse: p.CustomResponse, QueueSize: src.QueueSize}
	}
	e.ingress.Endpoints.Set(src.ID, eps)
	specs := map[string]component.TimerSpec{}
	for _, p := range meta.PropsOfType(component.TypeTimer) {
		var spec component.TimerSpec
		if err := json.Unmarshal(src.ConfiguredProps[p.Name], &spec); err != nil {
			e.log.Warn("a stored timer value cannot be read", "source", src.ID, "prop", p.Name, "err", err)
			continue
		}
		specs[p.Name] = spec
	}
	e.timers.Arm(model.SourceTarget(src.ID), time.Unix(src.UpdatedAt, 0), specs)
}

// stopTriggers removes a source's or workflow's endpoints and stops its
// timers.
func (e *Engine) stopTriggers(t model.Target) {
	e.ingress.Endpoints.Remove(t.ID)
	e.timers.Remove(t)
}

// fireTimer queues the run of a timer's tick due at due: event
// {timestamp, interval_seconds}, the timestamp the tick's. Only the
// target's owner fires, and the store enqueues each tick once
// (Queues.FireTimer), so that a tick fires once however ownership moves.
func (e *Engine) fireTimer(t model.Target, prop string, spec component.TimerSpec, due time.Time) {
	if !e.owns(t.ID) {
		return
	}
	inv := model.NewInvocation(t, kindTimer, spec.Event(due))
	fired, err := e.queues.FireTimer(context.Background(), inv, prop, due.UnixMilli())
	if err != nil {
		e.log.Error("enqueue a timer run", "target", t, "err", err)
		return
	}
	if fired {
		e.workers.Kick(t)
	}
}

// RunNow queues a manual run of a source with event ({} when empty).
func (e *Engine) RunNow(ctx context.Context, sourceID string, event json.RawMessage) error {
	end, err := e.beginOp()
	if err != nil {
		return err
	}
	defer end()
	if len(event) == 0 {
		event = json.RawMessage("{}")
	}
	src, err := e.store.GetSource(ctx, sourceID)
	if err != nil {
		return err
	}
	if _, err := e.enqueueWithin(ctx, model.NewInvocation(model.SourceTarget(sourceID), kindManual, event), src.QueueSize); err != nil {
		return fmt.Errorf("engine: queue a manual run of %s: %w", sourceID, err)
	}
	e.kick(model.SourceTarget(sourceID))
	return nil
}

// releaseDelayed queues the release of a source's due delayed emits, or
// of a workflow's due paused executions.
func (e *Engine) releaseDelayed(t model.Target) error {
	if !e.owns(t.ID) {
		return nil // its owner releases them (resumeOwned loads them there)
	}
	if _, err := e.queues.EnqueueInvocation(context.Background(), model.NewInvocation(t, kindRelease, nil)); err != nil {
		return err
	}
	e.workers.Kick(t)
	return nil
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

// loadDelayed rebuilds the due times of the delayed events of every
// source, and of the paused executions of every workflow, of emitters.
func (e *Engine) loadDelayed(ctx context.Context, emitters []model.Target) error {
	for _, t := range emitters {
		if t.Kind == model.TargetWorkflow {
			if err := e.flows.LoadPaused(ctx, t.ID); err != nil {
				return err
			}
			continue
		}
		if err := e.sources.LoadDelayed(ctx, t.ID); err != nil {
			return err
		}
	}
	return nil
}

// emitters are the sources and workflows for whose ids owns is true.
func emitters(sources []model.Source, flows []model.Workflow, owns func(string) bool) []model.Target {
	var out []model.Target
	for _, src := range sources {
		if owns(src.ID) {
			out = append(out, model.SourceTarget(src.ID))
		}
	}
	for _, wf := range flows {
		if owns(wf.ID) {
			out = append(out, model.WorkflowTarget(wf.ID))
		}
	}
	return out
}
