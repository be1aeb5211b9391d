package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
)

// sourceComponent resolves the component of a source create or update,
// with the specification's precedence: component_id first; then
// component_code (component_url only metadata); then component_url. One
// of the three is required.
func (s *Server) sourceComponent(ctx context.Context, req apiv1.SourceRequest, owner string) (model.Component, error) {
	if req.ComponentID != "" {
		c, err := s.records.GetComponent(ctx, req.ComponentID)
		if isNotFound(err) {
			return c, notVisible("component "+req.ComponentID, "component_id")
		}
		if err != nil {
			return c, err
		}
		if err := s.visible(ctx, c.OwnerID, "component "+req.ComponentID, "component_id"); err != nil {
			return c, err
		}
		if c.Metadata.Type == component.KindAction {
			return c, errActionAsSource("component_id")
		}
		return c, nil
	}
	code, param, err := s.componentCode(ctx, req.ComponentCode, req.ComponentURL)
	if err != nil {
		return model.Component{}, err
	}
	if code == "" {
		return model.Component{}, &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Param: "component_id",
			Message: "Pass one of component_id, component_code or component_url."}
	}
	c, err := s.saveComponent(ctx, owner, code, req.ComponentURL, param, engine.SaveOptions{UpdatePackages: req.UpdatePackages})
	if err == nil && c.Metadata.Type == component.KindAction {
		return c, errActionAsSource(param)
	}
	return c, err
}

// errActionAsSource refuses to deploy an action as a source: its result
// would go nowhere.
func errActionAsSource(param string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "component_is_action", Param: param,
		Message: "The component is an action (type: \"action\"), which returns data to later steps of a workflow and is never deployed as a source; " +
			"run it once with `fount run-action FILE` (POST /v1/actions/run), or make it a step of a workflow (POST /v1/workflows, `fount deploy workflow.yaml`)."}
}

func (s *Server) createSource(w http.ResponseWriter, r *http.Request, req *apiv1.CreateSourceRequest) error {
	ctx := r.Context()
	owner, err := s.ownerFor(ctx, req.OrgID)
	if err != nil {
		return err
	}
	// The store refuses a source past the limit when it writes it; asking
	// first saves saving its component and running its hooks for nothing.
	if err := s.records.CheckLimit(ctx, model.CountSources, owner); err != nil {
		return err
	}
	comp, err := s.sourceComponent(ctx, req.SourceRequest, owner)
	if err != nil {
		return err
	}
	src, err := s.engine.DeploySource(ctx, engine.DeployRequest{
		OwnerID: owner, UserID: caller(ctx).ID, Component: comp, Name: req.Name, Props: req.ConfiguredProps,
	})
	if err != nil {
		return componentErr(err, req.SourceRequest)
	}
	s.writeData(w, r, s.viewSource(src))
	return nil
}

// ownedSource loads a source, 404 unless the caller can see it.
func (s *Server) ownedSource(ctx context.Context, id string) (model.Source, error) {
	src, err := s.records.GetSource(ctx, id)
	if isNotFound(err) {
		return src, errNotFound("source")
	}
	if err != nil {
		return src, err
	}
	return src, s.visible(ctx, src.OwnerID, "source", "")
}

func (s *Server) updateSource(w http.ResponseWriter, r *http.Request, req *apiv1.UpdateSourceRequest) error {
	ctx := r.Context()
	old, err := s.ownedSource(ctx, req.ID)
	if err != nil {
		return err
	}
	comp, err := s.sourceComponent(ctx, req.SourceRequest, old.OwnerID)
	if err != nil {
		return err
	}
	active := true // the specification's default
	if req.Active != nil {
		active = *req.Active
	}
	src, err := s.engine.UpdateSource(ctx, old.ID, engine.UpdateRequest{
		Component: comp, Name: req.Name, Props: req.ConfiguredProps, Active: active,
	})
	if err != nil {
		return componentErr(err, req.SourceRequest)
	}
	s.writeData(w, r, s.viewSource(src))
	return nil
}

func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request, req *apiv1.SourceByIDRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.engine.DeleteSource(r.Context(), src.ID); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) getSource(w http.ResponseWriter, r *http.Request, req *apiv1.SourceByIDRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	s.writeData(w, r, s.viewSource(src))
	return nil
}

func (s *Server) listSourcesOf(w http.ResponseWriter, r *http.Request, owner string, p apiv1.PageParams) error {
	page, err := s.readPage(r, p)
	if err != nil {
		return err
	}
	pg, err := s.records.ListSources(r.Context(), owner, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, s.viewSource))
	return nil
}

func (s *Server) listMySources(w http.ResponseWriter, r *http.Request, req *apiv1.ListRequest) error {
	return s.listSourcesOf(w, r, caller(r.Context()).ID, req.PageParams)
}

func (s *Server) listOrgSources(w http.ResponseWriter, r *http.Request, req *apiv1.OrgListRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listSourcesOf(w, r, orgID, req.PageParams)
}

// componentErr names, in a *engine.CodeError's answer, the parameter the
// component came from.
func componentErr(err error, req apiv1.SourceRequest) error {
	var ce *engine.CodeError
	if !errors.As(err, &ce) {
		return err
	}
	param := "component_code"
	switch {
	case req.ComponentID != "":
		param = "component_id"
	case req.ComponentCode == "" && req.ComponentURL != "":
		param = "component_url"
	}
	e, _ := toAPIError(err, param)
	return e
}
