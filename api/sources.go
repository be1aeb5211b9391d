package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/secret"
	"github.com/fount-dev/fount/store"
)

type sourceView struct {
	ID              string                     `json:"id"`
	UserID          string                     `json:"user_id"`
	ComponentID     string                     `json:"component_id"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props"`
	Active          bool                       `json:"active"`
	CreatedAt       int64                      `json:"created_at"`
	UpdatedAt       int64                      `json:"updated_at"`
	Name            string                     `json:"name"`
	NameSlug        string                     `json:"name_slug"`
}

// viewSource shows a source with every secret prop redacted.
func viewSource(src store.Source) sourceView {
	props := map[string]json.RawMessage{}
	_ = json.Unmarshal(src.ConfiguredProps, &props)
	for name, raw := range props {
		if secret.IsSealed(raw) {
			props[name] = json.RawMessage(`"` + secret.Marker + `"`)
		}
	}
	return sourceView{
		ID: src.ID, UserID: src.UserID, ComponentID: src.ComponentID, ConfiguredProps: props, Active: src.Active,
		CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt, Name: src.Name, NameSlug: src.NameSlug,
	}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify makes a name slug: lower-case letters and digits joined by
// hyphens.
func slugify(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		s = "source"
	}
	if len(s) > 100 {
		s = strings.TrimRight(s[:100], "-")
	}
	return s
}

// freeSlug returns base, or base-2, base-3... whichever is free first.
func (s *Server) freeSlug(ctx context.Context, owner, base string) (string, error) {
	for i := 1; i < 10_000; i++ {
		slug := base
		if i > 1 {
			slug = fmt.Sprintf("%s-%d", base, i)
		}
		taken, err := s.store.SlugTaken(ctx, owner, slug)
		if err != nil {
			return "", err
		}
		if !taken {
			return slug, nil
		}
	}
	return "", &Error{Status: http.StatusConflict, Code: "conflict", Message: "No free name is left for " + base + "; pass a different name."}
}

// requireComponent is resolveComponent for create and update, where one of
// the three component fields is required; it also decodes the metadata.
func (s *Server) requireComponent(ctx context.Context, p *params, owner string) (store.Component, *host.Metadata, error) {
	comp, ok, err := s.resolveComponent(ctx, p, owner)
	if err != nil {
		return comp, nil, err
	}
	if !ok {
		return comp, nil, errNoComponent
	}
	meta, err := componentMeta(comp)
	return comp, meta, err
}

// resolveComponent applies the spec's precedence for sources: component_id
// first; then component_code (component_url only metadata); then
// component_url. It returns (false) when none was given.
func (s *Server) resolveComponent(ctx context.Context, p *params, owner string) (store.Component, bool, error) {
	id, _, err := p.str("component_id")
	if err != nil {
		return store.Component{}, false, err
	}
	if id != "" {
		c, err := s.store.GetComponent(ctx, id)
		if isNotFound(err) {
			return c, false, &Error{Status: http.StatusNotFound, Code: "not_found", Param: "component_id", Message: "No component " + id + " exists, or you do not have access to it."}
		}
		if err != nil {
			return c, false, err
		}
		if err := s.visibleParam(ctx, c.OwnerID, "component "+id, "component_id"); err != nil {
			return c, false, err
		}
		return c, true, nil
	}
	code, codeURL, err := s.componentSource(ctx, p)
	if err != nil || code == "" {
		return store.Component{}, false, err
	}
	c, err := s.saveComponent(ctx, owner, code, codeURL, "component_code")
	return c, err == nil, err
}

var errNoComponent = &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Param: "component_id",
	Message: "Pass one of component_id, component_code or component_url."}

func componentMeta(c store.Component) (*host.Metadata, error) {
	var m host.Metadata
	if err := json.Unmarshal(c.Metadata, &m); err != nil {
		return nil, fmt.Errorf("api: component %s metadata: %w", c.ID, err)
	}
	return &m, nil
}

// hookError turns a lifecycle failure into a 400 carrying the component's
// own error message.
func hookError(err error) error {
	var se *host.ScriptError
	if errors.As(err, &se) {
		return &Error{Status: http.StatusBadRequest, Code: "hook_failed", Message: fmt.Sprintf("The component's hook failed: %s: %s", se.Name, se.Message)}
	}
	return err
}

func (s *Server) createSource(w http.ResponseWriter, r *http.Request, p *params) error {
	ctx := r.Context()
	owner, err := s.ownerFor(ctx, p)
	if err != nil {
		return err
	}
	given, _, err := p.object("configured_props")
	if err != nil {
		return err
	}
	comp, meta, err := s.requireComponent(ctx, p, owner)
	if err != nil {
		return err
	}
	props, err := s.prepareProps(meta, given, nil)
	if err != nil {
		return err
	}
	name, slug, err := s.sourceName(ctx, p, owner, comp.Name, "")
	if err != nil {
		return err
	}
	stored, _ := json.Marshal(props.stored)
	now := time.Now().Unix()
	src := store.Source{
		ID: store.NewID("dc_"), OwnerID: owner, UserID: caller(ctx).ID, ComponentID: comp.ID, Name: name, NameSlug: slug,
		ConfiguredProps: stored, Active: true, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.engine.SourceCreated(ctx, src, comp, props.plain); err != nil {
		return hookError(err)
	}
	if err := s.store.CreateSource(ctx, src); err != nil {
		// The engine already runs the source: take it down again, so that
		// no trigger of a source that was never stored keeps firing.
		_ = s.engine.SourceDeleted(context.WithoutCancel(ctx), src)
		return err
	}
	s.writeData(w, r, viewSource(src))
	return nil
}

// sourceName picks the name and its slug: the given name (its slug must be
// free, 409 otherwise), or the component's name slug made unique with a
// numeric suffix. keepSlug is the source's current slug on update.
func (s *Server) sourceName(ctx context.Context, p *params, owner, componentName, keepSlug string) (string, string, error) {
	name, given, err := p.str("name")
	if err != nil {
		return "", "", err
	}
	if given && strings.TrimSpace(name) != "" {
		slug := slugify(name)
		if slug == keepSlug {
			return name, slug, nil
		}
		taken, err := s.store.SlugTaken(ctx, owner, slug)
		if err != nil {
			return "", "", err
		}
		if taken {
			return "", "", &Error{Status: http.StatusConflict, Code: "name_taken", Param: "name", Message: "A source named " + slug + " already exists; choose another name."}
		}
		return name, slug, nil
	}
	if keepSlug != "" {
		return "", keepSlug, nil
	}
	slug, err := s.freeSlug(ctx, owner, slugify(componentName))
	return slug, slug, err
}

// ownedSource loads the {id} source, 404 unless the caller can see it.
func (s *Server) ownedSource(ctx context.Context, id string) (store.Source, error) {
	src, err := s.store.GetSource(ctx, id)
	if isNotFound(err) {
		return src, errNotFound("source")
	}
	if err != nil {
		return src, err
	}
	return src, s.visible(ctx, src.OwnerID, "source")
}

func (s *Server) updateSource(w http.ResponseWriter, r *http.Request, p *params) error {
	ctx := r.Context()
	old, err := s.ownedSource(ctx, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	active, givenActive, err := p.boolean("active")
	if err != nil {
		return err
	}
	if !givenActive {
		active = true // the spec's default
	}
	given, hasProps, err := p.object("configured_props")
	if err != nil {
		return err
	}
	comp, meta, err := s.requireComponent(ctx, p, old.OwnerID)
	if err != nil {
		return err
	}
	previous := map[string]json.RawMessage{}
	_ = json.Unmarshal(old.ConfiguredProps, &previous)
	if !hasProps {
		given = redactedCopy(previous)
	}
	props, err := s.prepareProps(meta, given, previous)
	if err != nil {
		return err
	}
	name, slug, err := s.sourceName(ctx, p, old.OwnerID, comp.Name, old.NameSlug)
	if err != nil {
		return err
	}
	if name == "" {
		name = old.Name
	}
	stored, _ := json.Marshal(props.stored)
	updated := old
	updated.ComponentID, updated.Name, updated.NameSlug = comp.ID, name, slug
	updated.ConfiguredProps, updated.Active, updated.UpdatedAt = stored, active, time.Now().Unix()
	if err := s.engine.SourceUpdated(ctx, old, updated, comp, props.plain); err != nil {
		return hookError(err)
	}
	if err := s.store.UpdateSource(ctx, updated); err != nil {
		return err
	}
	s.writeData(w, r, viewSource(updated))
	return nil
}

// redactedCopy turns stored props back into input: sealed secrets become
// secret.Marker (kept as they are), interface values are regenerated.
func redactedCopy(stored map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for name, raw := range stored {
		if secret.IsSealed(raw) {
			out[name] = json.RawMessage(`"` + secret.Marker + `"`)
			continue
		}
		out[name] = raw
	}
	return out
}

func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request, _ *params) error {
	src, err := s.ownedSource(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if err := s.engine.SourceDeleted(r.Context(), src); err != nil {
		return hookError(err)
	}
	if err := s.store.DeleteSource(r.Context(), src.ID); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) listSourcesOf(w http.ResponseWriter, r *http.Request, owner string) error {
	page, err := readPage(r)
	if err != nil {
		return err
	}
	pg, err := s.store.ListSources(r.Context(), owner, page)
	if err != nil {
		return err
	}
	views := make([]sourceView, 0, len(pg.Items))
	for _, src := range pg.Items {
		views = append(views, viewSource(src))
	}
	s.writePage(w, r, pageInfo(pg), views)
	return nil
}

func (s *Server) listMySources(w http.ResponseWriter, r *http.Request, _ *params) error {
	return s.listSourcesOf(w, r, caller(r.Context()).ID)
}

func (s *Server) listOrgSources(w http.ResponseWriter, r *http.Request, _ *params) error {
	orgID, err := s.orgMember(r)
	if err != nil {
		return err
	}
	return s.listSourcesOf(w, r, orgID)
}
