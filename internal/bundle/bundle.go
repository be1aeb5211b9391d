// Package bundle turns component code into the one module fount runs,
// with esbuild. On the author's machine (File) it bundles the entry
// file's relative imports (JavaScript or TypeScript) and the packages it
// finds in local node_modules; on the server (Packages) it resolves the
// remaining npm imports against a registry into a verified cache.
package bundle

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	esbuild "github.com/evanw/esbuild/pkg/api"
)

// Result is a bundled component.
type Result struct {
	Code      string   // the single ES module to send as component_code
	SourceMap string   // source map v3 of Code to the author's files (no sources' content)
	Inputs    []string // every local file it was built from, for watching
}

// File bundles the component whose entry is path.
func File(path string) (Result, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Result{}, err
	}
	dir := filepath.Dir(abs)
	res := buildFile(abs, false)
	if len(res.Errors) == 0 && len(res.OutputFiles) > 0 && fsStreamUse(res.OutputFiles[0].Contents) {
		res = buildFile(abs, true) // fs's streams are named: add them
	}
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
	code, sourceMap := splitInlineMap(string(res.OutputFiles[0].Contents))
	return Result{Code: code, SourceMap: sourceMap, Inputs: inputs}, nil
}

// buildFile bundles the entry file abs, with fs's streams when
// withStreams.
func buildFile(abs string, withStreams bool) esbuild.BuildResult {
	return esbuild.Build(esbuild.BuildOptions{
		// Paths in the output (and its comments) are relative to the
		// entry's folder: no local path leaks into the deployed code.
		AbsWorkingDir:  filepath.Dir(abs),
		EntryPoints:    []string{abs},
		Bundle:         true,
		Write:          false,
		Format:         esbuild.FormatESModule,
		Platform:       esbuild.PlatformNeutral,
		Target:         esbuild.ES2020, // what QuickJS runs
		MainFields:     []string{"module", "main"},
		Plugins:        []esbuild.Plugin{{Name: "fount-local-packages", Setup: localPackages(withStreams)}},
		Define:         map[string]string{"global": "globalThis"},
		Metafile:       true,
		LogLevel:       esbuild.LogLevelSilent,
		Charset:        esbuild.CharsetUTF8,
		Sourcemap:      esbuild.SourceMapInline,
		SourcesContent: esbuild.SourcesContentExclude,
	})
}

const inlineMapPrefix = "//# sourceMappingURL=data:application/json;base64,"

// splitInlineMap takes esbuild's inline source map off the end of code.
func splitInlineMap(code string) (string, string) {
	i := strings.LastIndex(code, inlineMapPrefix)
	if i < 0 {
		return code, ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(code[i+len(inlineMapPrefix):]))
	if err != nil {
		return code, ""
	}
	return code[:i], string(raw)
}

// localPackages bundles the packages a component imports from local
// node_modules, so that offline work and private packages need no
// registry, and the Node built-ins fount provides (from the same copies
// the server uses: a package's require of one must be bundled here, as
// the server cannot see through esbuild's require shim). It leaves the
// rest for the server to resolve: packages not installed, installed
// versions outside the range an import names ("lodash@^4"), and built-ins
// fount does not provide.
func localPackages(withStreams bool) func(pb esbuild.PluginBuild) {
	return func(pb esbuild.PluginBuild) { setupLocalPackages(pb, withStreams) }
}

func setupLocalPackages(pb esbuild.PluginBuild, withStreams bool) {
	setupBuiltins(pb, withStreams, func() {})
	pb.OnResolve(esbuild.OnResolveOptions{Filter: `^[^./#]`}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		if _, inner := args.PluginData.(innerResolve); inner || args.Namespace == nodeNamespace {
			return esbuild.OnResolveResult{}, nil
		}
		if file, ok := builtinFile(args.Path, withStreams); ok {
			name, _ := Builtin(args.Path)
			return builtinResolved(name, file, args.Kind), nil
		}
		external := esbuild.OnResolveResult{Path: args.Path, External: true}
		imp, err := ParseImport(args.Path)
		if _, builtin := Builtin(args.Path); builtin || err != nil {
			return external, nil
		}
		r := pb.Resolve(imp.Name+imp.Subpath, esbuild.ResolveOptions{ResolveDir: args.ResolveDir, Kind: args.Kind, PluginData: innerResolve{}})
		if len(r.Errors) > 0 || r.External || !installedFits(r.Path, imp) {
			return external, nil
		}
		return esbuild.OnResolveResult{Path: r.Path, SideEffects: sideEffects(r.SideEffects)}, nil
	})
}

// installedFits reports whether the installed package that file belongs
// to has a version in imp's range (any version, when imp names none).
func installedFits(file string, imp Import) bool {
	if imp.Range == "" {
		return true
	}
	for dir := filepath.Dir(file); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if !strings.HasSuffix(filepath.ToSlash(dir), "node_modules/"+imp.Name) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
		var pj struct{ Version string }
		if err != nil || json.Unmarshal(raw, &pj) != nil {
			return false
		}
		_, c, err := parseRange(imp.Name, imp.Range)
		v, verr := semver.NewVersion(pj.Version)
		return err == nil && c != nil && verr == nil && c.Check(v)
	}
	return false
}

// metafileInputs lists the absolute paths of esbuild's inputs, which it
// names relative to dir; files of installed packages are left out (they
// are not the author's to edit, and watching them all would be costly).
func metafileInputs(dir, metafile string) ([]string, error) {
	var meta struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return nil, fmt.Errorf("bundle: metafile: %w", err)
	}
	var out []string
	for p := range meta.Inputs {
		if strings.Contains(filepath.ToSlash(p), "node_modules/") || strings.HasPrefix(p, nodeNamespace+":") {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	sort.Strings(out)
	return out, nil
}
