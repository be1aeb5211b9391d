package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// Workflows are fount's extension of the API: the specification leaves
// workflow development out of it, and reads only a workflow's events.

// workflowRequest turns a definition into the engine's request, taking
// an action step given by key from the registry.
func (s *Server) workflowRequest(ctx context.Context, def apiv1.WorkflowDefinition, owner, user string) (engine.WorkflowRequest, error) {
	req := engine.WorkflowRequest{OwnerID: owner, UserID: user, Name: def.Name, Active: def.Active == nil || *def.Active,
		Packages: engine.SaveOptions{UpdatePackages: def.UpdatePackages},
		Trigger: engine.TriggerRequest{Type: def.Trigger.Type, Respond: def.Trigger.Respond, Token: def.Trigger.Token, Timer: def.Trigger.Timer,
			EmitterID: def.Trigger.EmitterID, EventName: def.Trigger.EventName}}
	req.Controls = controlsOf(def.Controls)
	if def.Trigger.Type == model.TriggerSource && ids.Is(owner, ids.User) {
		// As POST /subscriptions does: an organization's source routes to
		// its organization's subscriptions.
		sub, err := s.subscriptionOwner(ctx, "", def.Trigger.EmitterID)
		if err != nil {
			return req, err
		}
		req.Trigger.SubscriptionOwner = sub
	}
	for i, st := range def.Steps {
		step := engine.StepRequest{Name: st.Name, Kind: st.Kind, Key: st.Key, Code: st.Code, Filename: st.Filename, SourceMap: st.SourceMap,
			Modules: st.Modules, Props: st.Props}
		if step.Kind == "" {
			step.Kind = model.StepCode
			if st.Key != "" {
				step.Kind = model.StepAction
			}
		}
		if st.Key != "" {
			if st.Code != "" {
				return req, errInvalid("steps", "Step %d (%s) has both code and key; give one.", i+1, st.Name)
			}
			c, ok := s.registry[st.Key]
			if !ok {
				return req, errInvalid("steps", "Step %d (%s): no published component has the key %q.", i+1, st.Name, st.Key)
			}
			step.Code = c.Code
		}
		req.Steps = append(req.Steps, step)
	}
	return req, nil
}

func (s *Server) createWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.CreateWorkflowRequest) error {
	ctx := r.Context()
	owner, err := s.ownerFor(ctx, req.OrgID)
	if err != nil {
		return err
	}
	if err := s.records.CheckLimit(ctx, model.CountWorkflows, owner); err != nil {
		return err
	}
	if err := s.checkTriggerEmitter(ctx, req.Trigger); err != nil {
		return err
	}
	wreq, err := s.workflowRequest(ctx, req.WorkflowDefinition, owner, caller(ctx).ID)
	if err != nil {
		return err
	}
	wf, err := s.engine.DeployWorkflow(ctx, wreq)
	if err != nil {
		return err
	}
	s.writeData(w, r, s.viewWorkflow(wf))
	return nil
}

// checkTriggerEmitter makes a source trigger name an emitter the caller
// can see (or a glob, which covers the owner's emitters only).
func (s *Server) checkTriggerEmitter(ctx context.Context, t apiv1.TriggerSpec) error {
	if t.Type != model.TriggerSource || t.EmitterID == "" {
		return nil
	}
	if err := checkEventName(t.EventName); err != nil {
		return err
	}
	if _, glob := ids.GlobOf(t.EmitterID); glob {
		return nil
	}
	if kind, _ := ids.Of(t.EmitterID); kind != ids.Source && kind != ids.Workflow {
		return errInvalid("trigger.emitter_id", "The trigger.emitter_id must be a source (dc_...) or workflow (p_...) id, or the glob dc_* or p_*; %.80q is none of them.", t.EmitterID)
	}
	return s.checkExists(ctx, t.EmitterID, "trigger.emitter_id", ids.Source, ids.Workflow)
}

// ownedWorkflow loads a workflow, 404 unless the caller can see it.
func (s *Server) ownedWorkflow(ctx context.Context, id string) (model.Workflow, error) {
	wf, err := s.records.GetWorkflow(ctx, id)
	if isNotFound(err) {
		return wf, errNotFound("workflow")
	}
	if err != nil {
		return wf, err
	}
	return wf, s.visible(ctx, wf.OwnerID, "workflow", "")
}

func (s *Server) getWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.WorkflowByIDRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	view := s.viewWorkflow(wf)
	// Paused executions wait on the workflow's $in channel, each one event.
	if view.PausedExecutions, err = s.records.CountPaused(r.Context(), wf.ID); err != nil {
		return err
	}
	s.writeData(w, r, view)
	return nil
}

func (s *Server) setWorkflowActive(w http.ResponseWriter, r *http.Request, req *apiv1.SetWorkflowActiveRequest) error {
	if req.Active == nil {
		return errMissing("active")
	}
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if wf, err = s.engine.SetWorkflowActive(r.Context(), wf.ID, *req.Active); err != nil {
		return err
	}
	s.writeData(w, r, s.viewWorkflow(wf))
	return nil
}

func (s *Server) updateWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.UpdateWorkflowRequest) error {
	ctx := r.Context()
	old, err := s.ownedWorkflow(ctx, req.ID)
	if err != nil {
		return err
	}
	if err := s.checkTriggerEmitter(ctx, req.Trigger); err != nil {
		return err
	}
	wreq, err := s.workflowRequest(ctx, req.WorkflowDefinition, old.OwnerID, caller(ctx).ID)
	if err != nil {
		return err
	}
	wf, err := s.engine.UpdateWorkflow(ctx, old.ID, wreq)
	if err != nil {
		return err
	}
	s.writeData(w, r, s.viewWorkflow(wf))
	return nil
}

func (s *Server) deleteWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.WorkflowByIDRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.engine.DeleteWorkflow(r.Context(), wf.ID); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) listWorkflowsOf(w http.ResponseWriter, r *http.Request, owner string, p apiv1.PageParams) error {
	page, err := s.readPage(r, p)
	if err != nil {
		return err
	}
	pg, err := s.records.ListWorkflows(r.Context(), owner, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, s.viewWorkflow))
	return nil
}

func (s *Server) listMyWorkflows(w http.ResponseWriter, r *http.Request, req *apiv1.ListRequest) error {
	return s.listWorkflowsOf(w, r, caller(r.Context()).ID, req.PageParams)
}

func (s *Server) listOrgWorkflows(w http.ResponseWriter, r *http.Request, req *apiv1.OrgListRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listWorkflowsOf(w, r, orgID, req.PageParams)
}

func (s *Server) runWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.RunWorkflowRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if len(req.Event) > 0 && !json.Valid(req.Event) {
		return errInvalid("event", "The event must be JSON.")
	}
	id, err := s.engine.RunWorkflow(r.Context(), wf.ID, req.Event)
	if err != nil {
		return err
	}
	writeQueued(w, wf.ID, id)
	return nil
}

// writeQueued answers 202 with the id a queued execution will have.
func writeQueued(w http.ResponseWriter, workflowID, executionID string) {
	writeJSON(w, http.StatusAccepted, apiv1.Data[apiv1.ExecutionQueued]{Data: apiv1.ExecutionQueued{WorkflowID: workflowID, ExecutionID: executionID, Queued: true}})
}

// ownedExecution returns the execution id of a workflow the caller can
// see; not found (404) otherwise, whoever's it is.
func (s *Server) ownedExecution(ctx context.Context, id string) (model.Execution, error) {
	x, err := s.records.GetExecution(ctx, id)
	if isNotFound(err) {
		return x, errNotFound("execution")
	}
	if err != nil {
		return x, err
	}
	if _, err := s.ownedWorkflow(ctx, x.WorkflowID); err != nil {
		return x, errNotFound("execution")
	}
	return x, nil
}

// replayExecution queues a new execution with a past one's trigger event.
func (s *Server) replayExecution(w http.ResponseWriter, r *http.Request, req *apiv1.ExecutionByIDRequest) error {
	x, err := s.ownedExecution(r.Context(), req.ID)
	if err != nil {
		return err
	}
	id, err := s.engine.ReplayExecution(r.Context(), x)
	if err != nil {
		return err
	}
	writeQueued(w, x.WorkflowID, id)
	return nil
}

func (s *Server) listExecutions(w http.ResponseWriter, r *http.Request, req *apiv1.ExecutionsRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	limit := req.Limit
	if r.URL.Query().Get("limit") == "" {
		limit = 100
	}
	if limit < 1 || limit > 1000 {
		return errInvalid("limit", "The limit must be from 1 to 1000.")
	}
	xs, err := s.records.ListExecutions(r.Context(), wf.ID, limit)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewAll(xs, viewExecutionSummary))
	return nil
}

func (s *Server) getExecution(w http.ResponseWriter, r *http.Request, req *apiv1.ExecutionByIDRequest) error {
	x, err := s.ownedExecution(r.Context(), req.ID)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewExecution(x))
	return nil
}

func (s *Server) viewWorkflow(wf model.Workflow) apiv1.Workflow {
	t := wf.Trigger
	view := apiv1.Workflow{
		ID: wf.ID, OwnerID: wf.OwnerID, UserID: wf.UserID, Name: wf.Name, NameSlug: wf.NameSlug, Active: wf.Active,
		Version: wf.Version, DeploymentID: model.DeploymentID(wf.ID, wf.Version), CreatedAt: wf.CreatedAt, UpdatedAt: wf.UpdatedAt, Steps: []apiv1.WorkflowStep{},
		Trigger: apiv1.TriggerView{Type: t.Type, Respond: t.Respond, Auth: triggerAuth(t), EmitterID: t.EmitterID, EventName: t.EventName, SubscriptionID: t.SubscriptionID},
	}
	if t.Endpoint != "" {
		view.Trigger.EndpointURL = t.Endpoint.URL(s.publicURL)
	}
	view.Controls = viewControls(wf.Controls)
	if t.Timer != nil {
		view.Trigger.Timer, _ = json.Marshal(t.Timer)
	}
	for _, st := range wf.Steps {
		props := make(map[string]json.RawMessage, len(st.Props))
		for name, raw := range st.Props {
			if slices.Contains(st.SecretProps, name) {
				raw = json.RawMessage(`"` + secret.Marker + `"`)
			}
			props[name] = raw
		}
		view.Steps = append(view.Steps, apiv1.WorkflowStep{ID: model.StepID(wf.ID, st.Name), Name: st.Name, Kind: st.Kind, Key: st.Key,
			ComponentName: st.Metadata.Name, ComponentVersion: st.Metadata.Version, Props: props, Packages: viewPackages(st.Packages)})
	}
	return view
}

// triggerAuth names how an HTTP trigger's requests authenticate.
func triggerAuth(t model.WorkflowTrigger) string {
	if t.TokenHash != "" {
		return "bearer"
	}
	return ""
}

// controlsOf are the execution controls of a definition or a request.
func controlsOf(in apiv1.Controls) model.Controls {
	c := model.Controls{Concurrency: in.Concurrency, QueueSize: in.QueueSize}
	if t := in.Throttle; t != nil {
		c.Throttle = &model.Throttle{Limit: t.Limit, IntervalSeconds: t.IntervalSeconds}
	}
	if r := in.Retry; r != nil {
		c.Retry = &model.Retry{Attempts: r.Attempts}
	}
	return c
}

// viewControls are a workflow's or a source's controls as the API shows
// them.
func viewControls(in model.Controls) apiv1.Controls {
	c := apiv1.Controls{Concurrency: in.Concurrency, QueueSize: in.QueueSize}
	if t := in.Throttle; t != nil {
		c.Throttle = &apiv1.Throttle{Limit: t.Limit, IntervalSeconds: t.IntervalSeconds}
	}
	if r := in.Retry; r != nil {
		c.Retry = &apiv1.Retry{Attempts: r.Attempts}
	}
	return c
}

func (s *Server) setSourceControls(w http.ResponseWriter, r *http.Request, req *apiv1.SetSourceControlsRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if src, err = s.engine.SetSourceControls(r.Context(), src.ID, controlsOf(apiv1.Controls{Throttle: req.Throttle, QueueSize: req.QueueSize})); err != nil {
		return err
	}
	s.writeData(w, r, s.viewSource(src))
	return nil
}

func (s *Server) setWorkflowControls(w http.ResponseWriter, r *http.Request, req *apiv1.SetWorkflowControlsRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if wf, err = s.engine.SetWorkflowControls(r.Context(), wf.ID, controlsOf(req.Controls)); err != nil {
		return err
	}
	s.writeData(w, r, s.viewWorkflow(wf))
	return nil
}

func viewPause(p *model.ExecutionPause) *apiv1.Pause {
	if p == nil {
		return nil
	}
	return &apiv1.Pause{Kind: p.Kind, Step: p.Step, UntilMs: p.UntilMs}
}

func viewExecutionSummary(x model.Execution) apiv1.ExecutionSummary {
	out := apiv1.ExecutionSummary{ID: x.ID, WorkflowID: x.WorkflowID, DeploymentID: x.DeploymentID, Status: x.Status, ExitReason: x.ExitReason,
		StartedAtMs: x.StartedAtMs, DurationMs: x.DurationMs, Steps: []apiv1.StepSummary{}, Pause: viewPause(x.Pause)}
	for _, st := range x.Steps {
		sum := apiv1.StepSummary{ID: model.StepID(x.WorkflowID, st.Name), Name: st.Name, Status: st.Status, DurationMs: st.DurationMs, Summary: st.Summary}
		if st.Error != nil {
			sum.Error = st.Error.Name + ": " + st.Error.Message
		}
		out.Steps = append(out.Steps, sum)
	}
	return out
}

func viewExecution(x model.Execution) apiv1.Execution {
	out := apiv1.Execution{ID: x.ID, WorkflowID: x.WorkflowID, DeploymentID: x.DeploymentID, Status: x.Status, ExitReason: x.ExitReason,
		StartedAtMs: x.StartedAtMs, DurationMs: x.DurationMs, Event: x.Event, Steps: []apiv1.StepExecution{}, Truncated: x.Truncated, Pause: viewPause(x.Pause)}
	if len(out.Event) == 0 {
		out.Event = json.RawMessage("null")
	}
	for _, st := range x.Steps {
		v := apiv1.StepExecution{ID: model.StepID(x.WorkflowID, st.Name), Name: st.Name, Status: st.Status, DurationMs: st.DurationMs, ReturnValue: st.ReturnValue,
			Exports: st.Exports, Summary: st.Summary, Truncated: st.Truncated}
		for _, l := range st.Logs {
			v.Logs = append(v.Logs, apiv1.StepLog{AtMs: l.AtMs, Level: l.Level, Text: l.Text})
		}
		if st.Error != nil {
			v.Error = &apiv1.StepError{Name: st.Error.Name, Message: st.Error.Message, Stack: st.Error.Stack}
		}
		out.Steps = append(out.Steps, v)
	}
	return out
}

func (s *Server) runAction(w http.ResponseWriter, r *http.Request, req *apiv1.RunActionRequest) error {
	if req.Code == "" {
		return &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Param: "code", Message: "Pass the action's code."}
	}
	res, err := s.engine.RunAction(r.Context(), engine.ActionRequest{UserID: caller(r.Context()).ID, Code: req.Code, Props: req.Props, Steps: req.Steps})
	var we *engine.WorkflowError
	if errors.As(err, &we) {
		param := "code"
		if strings.Contains(we.Reason, "prop") {
			param = "props"
		}
		return &Error{Status: http.StatusBadRequest, Code: "invalid_action", Param: param, Message: "The action cannot run: " + we.Reason + "."}
	}
	if err != nil {
		return err
	}
	st := viewExecution(model.Execution{Steps: []model.StepExecution{res.Step}}).Steps[0]
	out := apiv1.ActionRun{Status: st.Status, DurationMs: st.DurationMs, ReturnValue: st.ReturnValue, Exports: st.Exports,
		Summary: st.Summary, Logs: st.Logs, Error: st.Error, Emits: res.Emits}
	if res.Exit != nil {
		out.ExitReason = *res.Exit
	}
	for _, snd := range res.Sends {
		out.Sends = append(out.Sends, apiv1.ActionSend{Kind: snd.Kind, Method: snd.Method, URL: snd.URL, Headers: snd.Headers,
			Body: snd.Body, Channel: snd.Channel, Payload: snd.Payload})
	}
	s.writeData(w, r, out)
	return nil
}
