package component

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Kinds of component.
const (
	KindSource = "source" // invoked by an interface or manually; emits events
	KindAction = "action" // a step of a workflow; returns data to later steps
)

// The hooks of a source, in the order the specification runs them on
// deploy (deploy, activate) and removal (deactivate).
const (
	HookDeploy     = "deploy"
	HookActivate   = "activate"
	HookDeactivate = "deactivate"
)

// Hooks lists every hook.
var Hooks = []string{HookDeploy, HookActivate, HookDeactivate}

// Dedupe strategies of a source (the value of its dedupe property).
const (
	DedupeUnique   = "unique"   // drop an id seen among the last 100 emitted
	DedupeGreatest = "greatest" // emit only ids (numeric) above the largest so far
	DedupeLast     = "last"     // emit only what follows the last emitted id
)

// DedupeStrategies lists every strategy.
var DedupeStrategies = []string{DedupeUnique, DedupeGreatest, DedupeLast}

// Metadata describes a component in the shape of the specification's
// Component resource: what introspection finds, what the store keeps and
// what the API shows as configurable_props.
type Metadata struct {
	Name               string   `json:"name"`
	Key                string   `json:"key,omitempty"`
	Version            string   `json:"version"`
	Type               string   `json:"type"` // KindSource (also when the code names none) or KindAction
	Description        string   `json:"description,omitempty"`
	Dedupe             string   `json:"dedupe,omitempty"`
	Hooks              []string `json:"hooks"`
	ConfigurableProps  []Prop   `json:"configurable_props"`
	HasAdditionalProps bool     `json:"has_additional_props"`
	// Format is the module format of the code, FormatESM or FormatCJS. The
	// host sets it when it introspects the code (the guest never does), so
	// that loading the component later needs no parse.
	Format string `json:"format,omitempty"`
}

// Module formats of component code.
const (
	FormatESM = "esm" // export default
	FormatCJS = "cjs" // module.exports
)

// Prop is one entry of configurable_props.
type Prop struct {
	Name           string          `json:"name"`
	Type           PropType        `json:"type"`
	Label          string          `json:"label,omitempty"`
	Description    string          `json:"description,omitempty"`
	Optional       bool            `json:"optional,omitempty"`
	Default        json.RawMessage `json:"default,omitempty"`
	Secret         bool            `json:"secret,omitempty"`
	Min            *int64          `json:"min,omitempty"`
	Max            *int64          `json:"max,omitempty"`
	Options        json.RawMessage `json:"options,omitempty"`       // static options
	RemoteOptions  bool            `json:"remoteOptions,omitempty"` // options is an async method
	ReloadProps    bool            `json:"reloadProps,omitempty"`
	PropDefinition []string        `json:"propDefinition,omitempty"` // [app slug, definition name]
	App            string          `json:"app,omitempty"`            // app props: the app's slug
	CustomResponse bool            `json:"customResponse,omitempty"` // http props: the run answers with respond()
	AlertType      string          `json:"alertType,omitempty"`      // alert props: info, neutral, warning or error
	Content        string          `json:"content,omitempty"`        // alert props: the note, in Markdown
}

// Prop returns the prop named name.
func (m *Metadata) Prop(name string) (Prop, bool) {
	for _, p := range m.ConfigurableProps {
		if p.Name == name {
			return p, true
		}
	}
	return Prop{}, false
}

// HasHook reports whether the component defines hook.
func (m *Metadata) HasHook(hook string) bool { return slices.Contains(m.Hooks, hook) }

// PropsOfType returns the props of type t, in declaration order.
func (m *Metadata) PropsOfType(t PropType) []Prop {
	var out []Prop
	for _, p := range m.ConfigurableProps {
		if p.Type == t {
			out = append(out, p)
		}
	}
	return out
}

// ErrInvalidMetadata is wrapped by every error of DecodeMetadata.
var ErrInvalidMetadata = errors.New("component: invalid metadata")

// DecodeMetadata decodes the guest's description of a component. The
// prelude builds it, but in a realm the component controls, so it is
// decoded as untrusted input: unknown fields are refused, and every field
// the rest of fount relies on is checked.
func DecodeMetadata(b []byte) (*Metadata, error) {
	var m Metadata
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks what fount relies on: a name and version, a known kind,
// dedupe strategy, hooks and prop types, and prop names that are unique
// and not empty.
func (m *Metadata) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidMetadata, fmt.Sprintf(format, args...))
	}
	switch {
	case m.Name == "" || m.Version == "":
		return bad("a component needs a name and a version")
	case m.Type != KindSource && m.Type != KindAction:
		return bad("unknown component type %q", m.Type)
	case m.Dedupe != "" && !slices.Contains(DedupeStrategies, m.Dedupe):
		return bad("unknown dedupe strategy %q", m.Dedupe)
	case m.Format != "" && m.Format != FormatESM && m.Format != FormatCJS:
		return bad("unknown module format %q", m.Format)
	}
	for _, h := range m.Hooks {
		if !slices.Contains(Hooks, h) {
			return bad("unknown hook %q", h)
		}
	}
	seen := map[string]bool{}
	for _, p := range m.ConfigurableProps {
		if p.Name == "" || seen[p.Name] {
			return bad("prop names must be unique and not empty (%q)", p.Name)
		}
		seen[p.Name] = true
		if !p.Type.Known() {
			return bad("prop %s has unknown type %q", p.Name, p.Type)
		}
	}
	return nil
}

// WithAdded is declared props with added ones, which additionalProps()
// returned: an added prop of a declared prop's name takes its place (as
// Pipedream lets it), the others follow. A declared secret stays secret
// in its place: the component's code cannot have its value stored in
// clear by returning the prop again.
func WithAdded(declared, added []Prop) []Prop {
	out := slices.Clone(declared)
	for _, a := range added {
		if i := slices.IndexFunc(out, func(p Prop) bool { return p.Name == a.Name }); i >= 0 {
			a.Secret = a.Secret || out[i].Secret
			out[i] = a
			continue
		}
		out = append(out, a)
	}
	return out
}
