package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// componentCode resolves component_code and component_url with the
// specification's precedence: the code when given (the URL is then only
// metadata), else the code fetched from the URL. It returns the name of
// the parameter the code came from, "" when neither was given.
func (s *Server) componentCode(ctx context.Context, code, codeURL string) (string, string, error) {
	if codeURL != "" {
		if u, err := url.Parse(codeURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "", errInvalid("component_url", "The component_url must be an http or https URL.")
		}
	}
	if code != "" {
		return code, "component_code", nil
	}
	if codeURL == "" {
		return "", "", nil
	}
	if s.fetch == nil {
		return "", "", errInvalid("component_url", "This server does not fetch component_url; send component_code instead.")
	}
	code, err := s.fetch.FetchCode(ctx, codeURL)
	if err != nil {
		return "", "", errInvalid("component_url", "Fetching component_url failed: %v.", err)
	}
	return code, "component_url", nil
}

// saveComponent stores code as a saved component of owner; code that
// does not load is a 400 naming param.
func (s *Server) saveComponent(ctx context.Context, owner, code, codeURL, param string, opts engine.SaveOptions) (model.Component, error) {
	c, err := s.engine.SaveComponent(ctx, owner, caller(ctx).ID, code, codeURL, opts)
	var ce *engine.CodeError
	if errors.As(err, &ce) {
		e, _ := toAPIError(err, param)
		return c, e
	}
	return c, err
}

func (s *Server) createComponent(w http.ResponseWriter, r *http.Request, req *apiv1.CreateComponentRequest) error {
	code, param, err := s.componentCode(r.Context(), req.ComponentCode, req.ComponentURL)
	if err != nil {
		return err
	}
	if code == "" {
		return &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Param: "component_code",
			Message: "Pass the component's code as component_code, or a URL to fetch it from as component_url."}
	}
	owner, err := s.ownerFor(r.Context(), req.OrgID)
	if err != nil {
		return err
	}
	if len(req.SourceMap) > component.MaxAuthorSourceMap {
		return errInvalid("source_map", "The source_map is %d bytes; at most %d MiB is kept.", len(req.SourceMap), component.MaxAuthorSourceMap>>20)
	}
	if req.SourceMap != "" {
		if _, err := component.ParseSourceMap(req.SourceMap); err != nil {
			return errInvalid("source_map", "The source_map is not a source map v3: %v.", err)
		}
	}
	c, err := s.saveComponent(r.Context(), owner, code, req.ComponentURL, param, engine.SaveOptions{UpdatePackages: req.UpdatePackages, SourceMap: req.SourceMap})
	if err != nil {
		return err
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}

func (s *Server) getComponent(w http.ResponseWriter, r *http.Request, req *apiv1.GetComponentRequest) error {
	c, err := s.findComponent(r.Context(), req.KeyOrID, req.OrgID)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}

// findComponent returns the saved component with that id, or that key in
// the caller's (or org's) namespace, when the caller may see it.
func (s *Server) findComponent(ctx context.Context, keyOrID, orgID string) (model.Component, error) {
	owner := ""
	if !ids.Is(keyOrID, ids.Component) { // only a key needs the namespace
		var err error
		if owner, err = s.ownerFor(ctx, orgID); err != nil {
			return model.Component{}, err
		}
	}
	return s.findComponentOf(ctx, keyOrID, owner)
}

// findComponentOf is findComponent with the namespace of a key resolved.
func (s *Server) findComponentOf(ctx context.Context, keyOrID, owner string) (model.Component, error) {
	var c model.Component
	var err error
	if ids.Is(keyOrID, ids.Component) {
		c, err = s.records.GetComponent(ctx, keyOrID)
	} else {
		c, err = s.records.ComponentByKey(ctx, owner, keyOrID)
	}
	if isNotFound(err) {
		return c, errNotFound("component")
	}
	if err != nil {
		return c, err
	}
	return c, s.visible(ctx, c.OwnerID, "component", "")
}

// configureRequest is the engine's request for a component's form, run
// as the caller with the accounts of the org named, or the caller's own.
func (s *Server) configureRequest(ctx context.Context, keyOrID, orgID string, props map[string]json.RawMessage) (engine.ConfigureRequest, error) {
	owner, err := s.ownerFor(ctx, orgID)
	if err != nil {
		return engine.ConfigureRequest{}, err
	}
	c, err := s.findComponentOf(ctx, keyOrID, owner)
	if err != nil {
		return engine.ConfigureRequest{}, err
	}
	return engine.ConfigureRequest{UserID: caller(ctx).ID, OwnerID: owner, Component: c, Props: props}, nil
}

func (s *Server) configureComponent(w http.ResponseWriter, r *http.Request, req *apiv1.ConfigureRequest) error {
	if req.PropName == "" {
		return errMissing("prop_name")
	}
	cr, err := s.configureRequest(r.Context(), req.KeyOrID, req.OrgID, req.ConfiguredProps)
	if err != nil {
		return err
	}
	return s.writeOptions(w, r, cr, req.PropName, req.Page, req.PrevContext)
}

// writeOptions writes a page of the options of prop of cr's component;
// prevContext is the context the previous page returned, as the client
// sent it back (a string is passed as its text).
func (s *Server) writeOptions(w http.ResponseWriter, r *http.Request, cr engine.ConfigureRequest, prop string, page int, prevContext json.RawMessage) error {
	prev := ""
	if len(prevContext) > 0 && string(prevContext) != "null" {
		prev = string(prevContext)
		var text string
		if json.Unmarshal(prevContext, &text) == nil {
			prev = text
		}
	}
	opts, err := s.engine.PropOptions(r.Context(), cr, prop, page, prev)
	if err != nil {
		return err
	}
	s.writeData(w, r, apiv1.PropOptions{Options: opts.Options, Context: opts.Context})
	return nil
}

func (s *Server) reloadProps(w http.ResponseWriter, r *http.Request, req *apiv1.ReloadPropsRequest) error {
	cr, err := s.configureRequest(r.Context(), req.KeyOrID, req.OrgID, req.ConfiguredProps)
	if err != nil {
		return err
	}
	return s.writeReloadedProps(w, r, cr)
}

// writeReloadedProps writes cr's component's props with those its
// additionalProps method adds for cr's values.
func (s *Server) writeReloadedProps(w http.ResponseWriter, r *http.Request, cr engine.ConfigureRequest) error {
	props, err := s.engine.AdditionalProps(r.Context(), cr)
	if err != nil {
		return err
	}
	s.writeData(w, r, apiv1.ReloadedProps{ConfigurableProps: viewProps(props)})
	return nil
}

func (s *Server) getRegistryComponent(w http.ResponseWriter, r *http.Request, req *apiv1.RegistryComponentRequest) error {
	c, ok := s.registry[req.Key]
	if !ok {
		return errNotFound("published component")
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}
