package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/store"
)

// Introspector describes component code: the sandbox's introspection.
type Introspector interface {
	Introspect(ctx context.Context, code, filename string, modules map[string]string) (*host.Metadata, error)
}

// CodeFetcher fetches component code from component_url, through the
// server's egress policy, with a size cap and a timeout.
type CodeFetcher interface {
	FetchCode(ctx context.Context, url string) (string, error)
}

type componentView struct {
	ID                string          `json:"id"`
	Key               string          `json:"key,omitempty"`
	Code              string          `json:"code"`
	CodeHash          string          `json:"code_hash"`
	Name              string          `json:"name"`
	Version           string          `json:"version"`
	Type              string          `json:"type"`
	ConfigurableProps json.RawMessage `json:"configurable_props"`
	CreatedAt         int64           `json:"created_at"`
	UpdatedAt         int64           `json:"updated_at"`
}

func viewComponent(c store.Component) componentView {
	var m host.Metadata
	_ = json.Unmarshal(c.Metadata, &m)
	props, _ := json.Marshal(m.ConfigurableProps)
	if m.ConfigurableProps == nil {
		props = json.RawMessage("[]")
	}
	return componentView{
		ID: c.ID, Key: c.Key, Code: c.Code, CodeHash: c.CodeHash, Name: c.Name, Version: c.Version, Type: m.Type,
		ConfigurableProps: props, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// componentSource resolves component_code and component_url with the
// spec's precedence: code when given (the URL is then only metadata),
// else the code fetched from the URL.
func (s *Server) componentSource(ctx context.Context, p *params) (code, codeURL string, err error) {
	code, hasCode, err := p.str("component_code")
	if err != nil {
		return "", "", err
	}
	codeURL, hasURL, err := p.str("component_url")
	if err != nil {
		return "", "", err
	}
	if hasURL && codeURL != "" {
		if u, perr := url.Parse(codeURL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "", errInvalid("component_url", "The component_url must be an http or https URL.")
		}
	}
	if hasCode && code != "" {
		return code, codeURL, nil
	}
	if !hasURL || codeURL == "" {
		return "", "", nil
	}
	if s.fetch == nil {
		return "", "", errInvalid("component_url", "This server does not fetch component_url; send component_code instead.")
	}
	code, err = s.fetch.FetchCode(ctx, codeURL)
	if err != nil {
		return "", "", errInvalid("component_url", "Fetching component_url failed: %v.", err)
	}
	return code, codeURL, nil
}

// introspect runs code in the sandbox, turning its failures into 400s that
// say where the code is wrong.
func (s *Server) introspect(ctx context.Context, code, param string) (*host.Metadata, error) {
	m, err := s.inspect.Introspect(ctx, code, "", nil)
	var se *host.ScriptError
	switch {
	case errors.As(err, &se):
		msg := fmt.Sprintf("The component code failed to load: %s: %s", se.Name, se.Message)
		if se.Line > 0 {
			msg += fmt.Sprintf(" (line %d", se.Line)
			if se.Column > 0 {
				msg += fmt.Sprintf(", column %d", se.Column)
			}
			msg += ")"
		}
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_component", Message: msg + ".", Param: param}
	case errors.Is(err, host.ErrTimeout):
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_component", Message: "The component code did not finish loading in time; remove long-running top-level code.", Param: param}
	case errors.Is(err, host.ErrOutOfMemory):
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_component", Message: "The component code ran out of memory while loading.", Param: param}
	case err != nil:
		return nil, err
	}
	return m, nil
}

// saveComponent introspects code and stores it as a new saved component.
func (s *Server) saveComponent(ctx context.Context, owner, code, codeURL, param string) (store.Component, error) {
	m, err := s.introspect(ctx, code, param)
	if err != nil {
		return store.Component{}, err
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return store.Component{}, err
	}
	sum := sha256.Sum256([]byte(code))
	now := time.Now().Unix()
	c := store.Component{
		ID: store.NewID("sc_"), OwnerID: owner, Key: m.Key, Name: m.Name, Version: m.Version, Code: code,
		CodeHash: hex.EncodeToString(sum[:]), ComponentURL: codeURL, Metadata: meta, CreatedAt: now, UpdatedAt: now,
	}
	return c, s.store.CreateComponent(ctx, c)
}

func (s *Server) createComponent(w http.ResponseWriter, r *http.Request, p *params) error {
	code, codeURL, err := s.componentSource(r.Context(), p)
	if err != nil {
		return err
	}
	if code == "" {
		return &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Param: "component_code",
			Message: "Pass the component's code as component_code, or a URL to fetch it from as component_url."}
	}
	owner, err := s.ownerFor(r.Context(), p)
	if err != nil {
		return err
	}
	c, err := s.saveComponent(r.Context(), owner, code, codeURL, "component_code")
	if err != nil {
		return err
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}

func (s *Server) getComponent(w http.ResponseWriter, r *http.Request, p *params) error {
	ref := chi.URLParam(r, "key_or_id")
	var c store.Component
	var err error
	if strings.HasPrefix(ref, "sc_") {
		c, err = s.store.GetComponent(r.Context(), ref)
	} else {
		var owner string
		if owner, err = s.ownerFor(r.Context(), p); err != nil {
			return err
		}
		c, err = s.store.ComponentByKey(r.Context(), owner, ref)
	}
	if isNotFound(err) {
		return errNotFound("component")
	}
	if err != nil {
		return err
	}
	if err := s.visible(r.Context(), c.OwnerID, "component"); err != nil {
		return err
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}

func (s *Server) getRegistryComponent(w http.ResponseWriter, r *http.Request, _ *params) error {
	c, ok := s.registry[chi.URLParam(r, "key")]
	if !ok {
		return errNotFound("published component")
	}
	s.writeData(w, r, viewComponent(c))
	return nil
}
