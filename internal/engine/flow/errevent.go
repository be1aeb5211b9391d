package flow

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// failedExecution records an execution that could not run its steps:
// the workflow cannot be loaded, or its account is over its quota.
func (r *Runner) failedExecution(wf model.Workflow, inv model.Invocation, step string, err error) execution {
	now := r.cfg.Clock.Now()
	rec := &model.Execution{ID: ids.ExecutionID(wf.ID, inv.ID), WorkflowID: wf.ID, Event: capValue(inv.Event),
		StartedAtMs: now.UnixMilli(), Status: model.ExecutionError, DeploymentID: model.DeploymentID(wf.ID, wf.Version)}
	ctx, _ := json.Marshal(triggerContext(wf, inv, rec.ID, now))
	return execution{commit: store.RunCommit{
		Events: []model.Event{flowErrorEvent(err, wf.ID, step, inv.Event, ctx, now)}, Keep: r.cfg.EventsKept,
		Execution: rec, ExecutionsKept: r.cfg.ExecutionsKept,
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
	case model.InvocationHTTP:
		return "HTTP"
	case model.InvocationTimer:
		return "TIMER"
	case model.InvocationEvent:
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
	if errors.Is(err, ingress.ErrQuota) {
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
	return model.Event{Name: model.ChannelErrors, EmitID: emit.NewID(), Summary: emit.Truncate(summary, 120), Data: data}
}

// cellID is the id of workflowID's step named step, or "" for a failure
// before any step (the workflow could not be loaded).
func cellID(workflowID, step string) string {
	if step == "" {
		return ""
	}
	return model.StepID(workflowID, step)
}
