package host

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	esbuild "github.com/evanw/esbuild/pkg/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Introspect returns the metadata of component code without deploying it.
// It runs in a throwaway instance with no capabilities. Code that does not
// parse gives a *sandbox.ScriptError named SyntaxError with its line and column.
func (h *Host) Introspect(ctx context.Context, code, filename string, modules map[string]string) (*component.Metadata, error) {
	format, err := h.cfg.Analyzer.Analyze(ctx, code, filename, modules)
	if err != nil {
		return nil, err
	}
	in, err := h.fromSnapshot(ctx, h.base)
	if err != nil {
		return nil, err
	}
	defer in.close(ctx)
	call := abi.Call{Op: abi.OpIntrospect, Code: code, Filename: filename, Format: format, Modules: modules, Web: webFor(code, modules), Intl: intlFor(code, modules)}
	value, err := h.invokeOnce(ctx, in, call, h.cfg.Limits, sandbox.Capabilities{})
	if err != nil {
		return nil, err
	}
	m, err := decodeMetadata(value)
	if err != nil {
		return nil, err
	}
	m.Format = format
	return m, nil
}

// Analyzer parses component code: it returns the entry's module format
// (component.FormatESM or FormatCJS), or a *sandbox.ScriptError named
// SyntaxError with the line and column of the first error.
type Analyzer interface {
	Analyze(ctx context.Context, code, filename string, modules map[string]string) (string, error)
}

// InProcess is the Analyzer that runs esbuild in this process. Its parser
// recurses without bound (see Config.Analyzer): use it for trusted code,
// tests, and inside a process of its own.
type InProcess struct{}

// Analyze implements Analyzer.
func (InProcess) Analyze(_ context.Context, code, filename string, modules map[string]string) (string, error) {
	return analyze(code, filename, modules)
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
		return "", &sandbox.ScriptError{GuestError: ge}
	}
	var meta struct {
		Inputs map[string]struct {
			Format string `json:"format"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err == nil && meta.Inputs["input.js"].Format == "esm" {
		return component.FormatESM, nil
	}
	return component.FormatCJS, nil
}

// decodeMetadata decodes the guest's description of a component, as
// untrusted input (component.DecodeMetadata). A description that does not
// decode means the guest broke the ABI: ErrTrap.
func decodeMetadata(b json.RawMessage) (*component.Metadata, error) {
	m, err := component.DecodeMetadata(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sandbox.ErrTrap, err)
	}
	return m, nil
}
