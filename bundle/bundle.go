// Package bundle turns a component's entry file and its relative imports
// (JavaScript or TypeScript) into the one module fount deploys, with
// esbuild. Bare package imports are left for the server.
package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	esbuild "github.com/evanw/esbuild/pkg/api"
)

// Result is a bundled component.
type Result struct {
	Code   string   // the single ES module to send as component_code
	Inputs []string // every local file it was built from, for watching
}

// File bundles the component whose entry is path.
func File(path string) (Result, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Result{}, err
	}
	dir := filepath.Dir(abs)
	res := esbuild.Build(esbuild.BuildOptions{
		// Paths in the output (and its comments) are relative to the
		// entry's folder: no local path leaks into the deployed code.
		AbsWorkingDir: dir,
		EntryPoints:   []string{abs},
		Bundle:        true,
		Write:         false,
		Format:        esbuild.FormatESModule,
		Platform:      esbuild.PlatformNeutral,
		Target:        esbuild.ES2020, // what QuickJS runs
		Packages:      esbuild.PackagesExternal,
		Metafile:      true,
		LogLevel:      esbuild.LogLevelSilent,
		Charset:       esbuild.CharsetUTF8,
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			loc := ""
			if m.Location != nil {
				loc = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column+1)
			}
			msgs = append(msgs, loc+m.Text)
		}
		return Result{}, errors.New(strings.Join(msgs, "\n"))
	}
	if len(res.OutputFiles) == 0 {
		return Result{}, errors.New("bundle: esbuild produced no output")
	}
	inputs, err := metafileInputs(dir, res.Metafile)
	if err != nil {
		return Result{}, err
	}
	return Result{Code: string(res.OutputFiles[0].Contents), Inputs: inputs}, nil
}

// metafileInputs lists the absolute paths of esbuild's inputs, which it
// names relative to dir.
func metafileInputs(dir, metafile string) ([]string, error) {
	var meta struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return nil, fmt.Errorf("bundle: metafile: %w", err)
	}
	var out []string
	for p := range meta.Inputs {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	sort.Strings(out)
	return out, nil
}
