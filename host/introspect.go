package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	esbuild "github.com/evanw/esbuild/pkg/api"

	"github.com/fount-dev/fount/abi"
)

// Metadata describes a component in the shape of the spec's Component
// resource: what the API stores and shows as configurable_props.
type Metadata struct {
	Name               string   `json:"name"`
	Key                string   `json:"key,omitempty"`
	Version            string   `json:"version"`
	Type               string   `json:"type"` // "source" (also when the code names none) or "action"
	Description        string   `json:"description,omitempty"`
	Dedupe             string   `json:"dedupe,omitempty"`
	Hooks              []string `json:"hooks"`
	ConfigurableProps  []Prop   `json:"configurable_props"`
	HasAdditionalProps bool     `json:"has_additional_props"`
}

// Prop is one entry of configurable_props.
type Prop struct {
	Name           string          `json:"name"`
	Type           string          `json:"type"`
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
	CustomResponse bool            `json:"customResponse,omitempty"` // http props
}

// Introspect returns the metadata of component code without deploying it.
// It runs in a throwaway instance with no capabilities. Code that does not
// parse gives a *ScriptError named SyntaxError with its line and column.
func (h *Host) Introspect(ctx context.Context, code, filename string, modules map[string]string) (*Metadata, error) {
	format, err := analyze(code, filename, modules)
	if err != nil {
		return nil, err
	}
	in, err := h.fromSnapshot(ctx, h.base)
	if err != nil {
		return nil, err
	}
	defer in.close(ctx)
	call := abi.Call{Op: abi.OpIntrospect, Code: code, Filename: filename, Format: format, Modules: modules}
	value, err := h.invokeOnce(ctx, in, call, h.cfg.Limits, Capabilities{})
	if err != nil {
		return nil, err
	}
	return decodeMetadata(value)
}

// analyze parses the entry and every bundled module with esbuild, which
// reports a syntax error's line and column (QuickJS reports only the line),
// and tells whether the entry is an ES module ("esm") or CommonJS ("cjs").
func analyze(code, filename string, modules map[string]string) (string, error) {
	format, err := parse(code, orDefault(filename))
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(modules))
	for name := range modules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, err := parse(modules[name], name); err != nil {
			return "", err
		}
	}
	return format, nil
}

func orDefault(filename string) string {
	if filename == "" {
		return "component.mjs"
	}
	return filename
}

func parse(code, filename string) (string, error) {
	// A neutral extension, so that esbuild infers the format from the
	// syntax rather than from .mjs or .cjs.
	res := esbuild.Build(esbuild.BuildOptions{
		Stdin:    &esbuild.StdinOptions{Contents: code, Sourcefile: "input.js", Loader: esbuild.LoaderJS},
		Metafile: true,
		Write:    false,
		LogLevel: esbuild.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msg := res.Errors[0]
		ge := abi.GuestError{Name: "SyntaxError", Message: msg.Text}
		if loc := msg.Location; loc != nil {
			ge.Line, ge.Column = loc.Line, loc.Column+1
			ge.Stack = fmt.Sprintf("    at %s:%d:%d", filename, loc.Line, loc.Column+1)
		}
		return "", &ScriptError{GuestError: ge}
	}
	var meta struct {
		Inputs map[string]struct {
			Format string `json:"format"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err == nil && meta.Inputs["input.js"].Format == "esm" {
		return "esm", nil
	}
	return "cjs", nil
}

// decodeMetadata decodes the guest's description of a component. The
// prelude builds it, but in a realm the component controls, so it is
// decoded as untrusted input.
func decodeMetadata(b json.RawMessage) (*Metadata, error) {
	var m Metadata
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: component metadata: %v", ErrTrap, err)
	}
	if m.Name == "" || m.Version == "" || (m.Type != "source" && m.Type != "action") {
		return nil, fmt.Errorf("%w: component metadata lacks name, version or a valid type", ErrTrap)
	}
	return &m, nil
}
