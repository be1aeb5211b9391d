package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// storedProps are a source's props in the form the store keeps them.
type storedProps struct {
	values    map[string]json.RawMessage // secrets sealed
	secrets   []string                   // the sealed names of values
	endpoints map[string]component.EndpointToken
}

// prepareProps validates the configured values given for a component's
// props and returns what the store keeps. previous is the source's stored
// record on update (nil on create): its endpoint tokens are kept, a secret
// sent back as secret.Marker keeps its stored value, and when given is nil
// (props not sent) its values carry over for the props the component
// still has.
//
// Errors are *component.PropError: a value that does not fit its prop, a
// required prop without one, or a name the component has no prop for.
//
// Secret values are sealed bound to src's owner, id and prop name
// (secret.PropBinding), so a sealed value never opens anywhere else.
func (e *Engine) prepareProps(meta *component.Metadata, given map[string]json.RawMessage, previous *model.Source, src model.Source) (storedProps, error) {
	out := storedProps{values: map[string]json.RawMessage{}}
	if given == nil && previous != nil {
		given = map[string]json.RawMessage{}
		for name, v := range previous.ConfiguredProps {
			if _, ok := meta.Prop(name); ok {
				given[name] = v
				if slices.Contains(previous.SecretProps, name) {
					given[name] = markerJSON
				}
			}
		}
	}
	for name := range given {
		if _, ok := meta.Prop(name); !ok {
			return out, &component.PropError{Prop: name, Reason: "is not a prop of this component"}
		}
	}
	for _, p := range meta.ConfigurableProps {
		raw, ok := given[p.Name]
		if ok && isNull(raw) {
			ok = false
		}
		switch p.Type {
		case component.TypeHTTP, component.TypeAppHook:
			tok := component.NewEndpointToken()
			if previous != nil && previous.Endpoints[p.Name] != "" {
				tok = previous.Endpoints[p.Name]
			}
			if out.endpoints == nil {
				out.endpoints = map[string]component.EndpointToken{}
			}
			out.endpoints[p.Name] = tok
			continue
		case component.TypeTimer:
			spec, err := component.CheckTimer(p, raw)
			if err != nil {
				return out, err
			}
			out.values[p.Name], _ = json.Marshal(spec)
			continue
		case component.TypeDB, component.TypeDir:
			continue
		case component.TypeAlert:
			if ok {
				return out, &component.PropError{Prop: p.Name, Reason: "is an alert, shown to whoever configures the component: it takes no value"}
			}
			continue
		}
		if !ok {
			if p.Required() {
				return out, &component.PropError{Prop: p.Name, Reason: fmt.Sprintf("is required; give it a value of type %s", p.Type)}
			}
			continue
		}
		if p.Secret && isMarker(raw) {
			if previous == nil || !slices.Contains(previous.SecretProps, p.Name) {
				return out, &component.PropError{Prop: p.Name, Reason: fmt.Sprintf("was sent as %s but has no stored value; send the secret itself", secret.Marker)}
			}
			out.values[p.Name] = previous.ConfiguredProps[p.Name]
			out.secrets = append(out.secrets, p.Name)
			continue
		}
		if err := p.Check(raw); err != nil {
			return out, err
		}
		if p.Type == component.TypeSQL {
			raw = component.SQLValue(raw)
		}
		out.values[p.Name] = raw
		if p.Secret {
			out.values[p.Name] = e.cfg.Secrets.SealProp(raw, secret.PropBinding(src.OwnerID, src.ID, p.Name))
			out.secrets = append(out.secrets, p.Name)
		}
	}
	return out, nil
}

// apply stores the props in src.
func (p storedProps) apply(src *model.Source) {
	src.ConfiguredProps, src.SecretProps, src.Endpoints = p.values, p.secrets, p.endpoints
}

var markerJSON = json.RawMessage(`"` + secret.Marker + `"`)

func isMarker(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == secret.Marker
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// sandboxProps are the props a source's component is loaded with: the
// stored values with secrets opened (only those named in SecretProps), and
// each HTTP interface as {endpoint_url, endpoint} (Pipedream's name) under
// the current public URL.
func (e *Engine) sandboxProps(src model.Source) (json.RawMessage, error) {
	plain := make(map[string]json.RawMessage, len(src.ConfiguredProps)+len(src.Endpoints))
	for name, v := range src.ConfiguredProps {
		if slices.Contains(src.SecretProps, name) {
			opened, err := e.cfg.Secrets.OpenProp(v, secret.PropBinding(src.OwnerID, src.ID, name))
			if err != nil {
				return nil, fmt.Errorf("engine: secret prop %s of %s: %w", name, src.ID, err)
			}
			v = opened
		}
		plain[name] = v
	}
	for name, tok := range src.Endpoints {
		url := e.EndpointURL(tok)
		plain[name], _ = json.Marshal(map[string]string{"endpoint_url": url, "endpoint": url})
	}
	return json.Marshal(plain)
}

// EndpointURL is the URL of an HTTP interface under the server's public
// URL.
func (e *Engine) EndpointURL(tok component.EndpointToken) string {
	return tok.URL(e.cfg.PublicURL)
}

// resealUnbound binds the secret values sealed before values were bound to
// their source (store schema 1): each is opened unbound and sealed again
// with its binding, once, when the engine starts.
func (e *Engine) resealUnbound(ctx context.Context, sources []model.Source) error {
	for _, src := range sources {
		changed := false
		for _, name := range src.SecretProps {
			v := src.ConfiguredProps[name]
			bind := secret.PropBinding(src.OwnerID, src.ID, name)
			if _, err := e.cfg.Secrets.OpenProp(v, bind); !errors.Is(err, secret.ErrUnbound) {
				continue
			}
			bound, err := e.cfg.Secrets.ResealProp(v, bind)
			if err != nil {
				return fmt.Errorf("engine: reseal secret prop %s of %s: %w", name, src.ID, err)
			}
			src.ConfiguredProps[name], changed = bound, true
		}
		if changed {
			if _, err := e.store.UpdateSource(ctx, src, store.RunCommit{}); err != nil {
				return fmt.Errorf("engine: reseal the secrets of %s: %w", src.ID, err)
			}
			e.log.Info("bound the secrets of a source to it", "source", src.ID)
		}
	}
	return nil
}
