package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
)

// A deployed step's props are configured on their own, as a source's
// are: the dashboard's form of a step reloads them as additionalProps
// changes them, lists a prop's options, and saves them.

// ownedStep loads a workflow the caller can see, and checks that it has
// the step; 404 otherwise.
func (s *Server) ownedStep(ctx context.Context, ref apiv1.StepRef) (model.Workflow, error) {
	wf, err := s.ownedWorkflow(ctx, ref.ID)
	if err != nil {
		return wf, err
	}
	if !slices.ContainsFunc(wf.Steps, func(st model.WorkflowStep) bool { return st.Name == ref.Step }) {
		return wf, errNotFound("step of this workflow")
	}
	return wf, nil
}

// stepConfigure is what configuring req's step needs.
func (s *Server) stepConfigure(ctx context.Context, ref apiv1.StepRef, given map[string]json.RawMessage) (engine.ConfigureRequest, error) {
	wf, err := s.ownedStep(ctx, ref)
	if err != nil {
		return engine.ConfigureRequest{}, err
	}
	return s.engine.StepConfigureRequest(ctx, wf, ref.Step, caller(ctx).ID, given)
}

func (s *Server) stepProps(w http.ResponseWriter, r *http.Request, req *apiv1.StepPropsRequest) error {
	cr, err := s.stepConfigure(r.Context(), req.StepRef, req.ConfiguredProps)
	if err != nil {
		return err
	}
	return s.writeReloadedProps(w, r, cr)
}

func (s *Server) configureStep(w http.ResponseWriter, r *http.Request, req *apiv1.StepConfigureRequest) error {
	if req.PropName == "" {
		return errMissing("prop_name")
	}
	cr, err := s.stepConfigure(r.Context(), req.StepRef, req.ConfiguredProps)
	if err != nil {
		return err
	}
	return s.writeOptions(w, r, cr, req.PropName, req.Page, req.PrevContext)
}

func (s *Server) setStepProps(w http.ResponseWriter, r *http.Request, req *apiv1.SetStepPropsRequest) error {
	if req.Props == nil {
		return errMissing("props")
	}
	wf, err := s.ownedStep(r.Context(), req.StepRef)
	if err != nil {
		return err
	}
	if wf, err = s.engine.SetStepProps(r.Context(), wf.ID, req.Step, caller(r.Context()).ID, req.Props); err != nil {
		return err
	}
	s.writeData(w, r, s.viewWorkflow(wf))
	return nil
}
