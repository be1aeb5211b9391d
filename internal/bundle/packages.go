package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	esbuild "github.com/evanw/esbuild/pkg/api"
)

// Locked is one package version a component was bundled with: the
// component's lock holds one per package instance in its bundle.
type Locked struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"` // "sha512-<base64>" (or sha1 for old packages)
}

// Resolved is a component's code with its npm imports bundled in.
type Resolved struct {
	// Code is the bundle, or "" when the code imports no package (it is
	// then deployed as it was given).
	Code string
	// Map is the bundle's source map: to component.mjs (the code as
	// given) and to each package's files.
	Map      string
	Packages []Locked // sorted by name, then version
	// Downloaded is the bytes of tarballs fetched from the registry for
	// it (none for packages the cache had).
	Downloaded int64
}

// Defaults of Packages.
const (
	DefaultMaxBundle = 10 << 20
	DefaultTimeout   = 2 * time.Minute
)

// Packages resolves a component's bare imports against an npm registry
// at deploy time and bundles them into its code with esbuild. Tarballs
// are verified against their integrity hash and kept, unpacked, in a
// content-addressed cache; nothing from a package is ever run on the
// host (no install scripts). It is safe for concurrent use.
type Packages struct {
	Registry *Registry // nil: no registry configured; only locked, cached packages resolve
	Cache    string    // the cache folder
	// Staging is where packages not in the cache are unpacked, for the
	// caller to move into it once the bundle is accepted (Cache.Commit);
	// "" unpacks them into the cache itself.
	Staging   string
	MaxBundle int // bytes of bundle; <= 0 is DefaultMaxBundle
	Timeout   time.Duration
}

// Bundle bundles the packages code imports into it. Versions in lock
// are used wherever they satisfy what is imported, so that the same code
// with its lock bundles the same packages; a nil lock resolves afresh
// (the highest matching versions).
//
// # Errors
//
// A *PackageError names a package or import that cannot be had; a
// *BuildError is code esbuild cannot read; a *TimeoutError is a
// resolution that took too long. Others are the server's (the cache).
// With an error, Resolved holds only Downloaded.
func (p *Packages) Bundle(ctx context.Context, code string, lock []Locked) (Resolved, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b, res := p.build(ctx, code, lock, globalUses{})
	var uses globalUses
	if len(res.Errors) == 0 {
		if uses = usesOf(res.OutputFiles[0].Contents); uses != (globalUses{}) {
			// The code or a package uses a global that a module gives
			// (Buffer, the WHATWG streams), or fs's streams: bundle again
			// with those modules injected where they are used, and fs
			// with its streams.
			b, res = p.rebuild(ctx, b, code, lock, uses)
		}
	}
	if len(res.Errors) == 0 && codeSize(res.OutputFiles[0].Contents) > minifyAbove {
		// A bundle this large would not fit a component's memory once
		// QuickJS has compiled it (twilio's 7.3 MB ran out of 64 MiB):
		// bundle it again, with the same uses, without its spaces and
		// with short local names. Functions and classes keep their
		// names, for stacks and for code that reads them, and lines are
		// broken every 40 or so characters, since QuickJS's frames carry
		// a line and no column: a frame's line maps to its author's
		// line, or one beside it.
		uses.minify = true
		b, res = p.rebuild(ctx, b, code, lock, uses)
	}
	// What was downloaded counts against the account whatever the
	// outcome: a deploy that fails cost the download too.
	failed := Resolved{Downloaded: b.downloaded}
	if err := b.failure(res.Errors); err != nil {
		if ctx.Err() != nil {
			return failed, &TimeoutError{Limit: timeout}
		}
		return failed, err
	}
	if len(b.chosen) == 0 && !b.usedBuiltins {
		return Resolved{}, nil
	}
	out, sourceMap := splitInlineMap(string(res.OutputFiles[0].Contents))
	// The mark of Node's ES modules is esbuild's alone: out of the
	// bundle's module names (which name functions in stacks) and its map.
	out, sourceMap = strings.ReplaceAll(out, nodeESMSuffix, ""), strings.ReplaceAll(sourceMap, nodeESMSuffix, "")
	if err := p.checkSize(out, res.Metafile); err != nil {
		return failed, err
	}
	return Resolved{Code: out, Map: sourceMap, Packages: b.locked(), Downloaded: b.downloaded}, nil
}

// rebuild bundles code again with uses, keeping the versions the last
// build chose and counting what both downloaded.
func (p *Packages) rebuild(ctx context.Context, last *build, code string, lock []Locked, uses globalUses) (*build, esbuild.BuildResult) {
	b, res := p.build(ctx, code, append(last.locked(), lock...), uses)
	b.downloaded += last.downloaded
	return b, res
}

// TimeoutError is a resolution of npm packages that took longer than
// its limit.
type TimeoutError struct{ Limit time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("resolving npm packages took longer than %s", e.Limit)
}

// bufferUse finds the Buffer global, or a property of that name, in a
// bundle: a false match costs a second bundling only.
var bufferUse = regexp.MustCompile(`\bBuffer\b`)

// webStreamsUse finds the WHATWG streams globals in a bundle.
var webStreamsUse = regexp.MustCompile(`\b(ReadableStream|WritableStream|TransformStream|ByteLengthQueuingStrategy|CountQueuingStrategy)\b`)

// globalUses says what a first bundling found: globals a module gives,
// to inject, and fs's streams; and whether the bundle is to be minified.
type globalUses struct {
	buffer, webStreams, fsStreams bool
	minify                        bool
}

// codeSize is the size of a bundle's code, without its inline source map.
func codeSize(out []byte) int {
	if i := bytes.LastIndex(out, []byte(inlineMapPrefix)); i >= 0 {
		return i
	}
	return len(out)
}

// minifyAbove is the size of bundle past which it is minified.
const minifyAbove = 3 << 20

func usesOf(out []byte) globalUses {
	return globalUses{buffer: bufferUse.Match(out), webStreams: webStreamsUse.Match(out), fsStreams: fsStreamUse(out)}
}

// fsStreamNames are what code that uses fs's streams names; fs.js names
// them too, so its own part of a bundle is not searched.
var fsStreamNames = regexp.MustCompile(`\b(createReadStream|createWriteStream|ReadStream|WriteStream)\b`)

// fsStreamUse reports whether a bundle holds fs.js and names its streams
// outside it. esbuild heads each module's part of a bundle with a comment
// line naming it, the only line comments it keeps.
func fsStreamUse(out []byte) bool {
	text := string(out)
	head := "\n// " + nodeNamespace + ":" + providedBuiltins["fs"] + "\n"
	i := strings.Index(text, head)
	if i < 0 {
		return false
	}
	end := len(text)
	if j := strings.Index(text[i+len(head):], "\n// "); j >= 0 {
		end = i + len(head) + j
	}
	return fsStreamNames.MatchString(text[:i]) || fsStreamNames.MatchString(text[end:])
}

// build bundles code once, with the buffer module injected as the
// Buffer global and the WHATWG streams when uses says, and fs with its
// streams.
func (p *Packages) build(ctx context.Context, code string, lock []Locked, uses globalUses) (*build, esbuild.BuildResult) {
	b := &build{p: p, ctx: ctx, lock: map[string][]Locked{}, packuments: map[string]*packument{},
		chosen: map[string]*instance{}, fsStreams: uses.fsStreams}
	for _, l := range lock {
		b.lock[l.Name] = append(b.lock[l.Name], l)
	}
	opts := esbuild.BuildOptions{
		Stdin:      &esbuild.StdinOptions{Contents: code, Sourcefile: "component.mjs", Loader: esbuild.LoaderJS},
		Bundle:     true,
		Write:      false,
		Format:     esbuild.FormatESModule,
		Platform:   esbuild.PlatformNeutral,
		MainFields: []string{"module", "main"},
		// Packages' exports are read as Node reads them: some name
		// their only entry for a server under "node" (mailgun.js).
		Conditions: []string{"node"},
		Target:     esbuild.ES2020,
		Plugins:    []esbuild.Plugin{{Name: "fount-npm", Setup: b.setup}},
		Metafile:   true,
		LogLevel:   esbuild.LogLevelSilent,
		Charset:    esbuild.CharsetUTF8,
		// Packages written for browserify reach the global object as global.
		// The component's own import.meta is a file's, as in Node (its
		// packages' are their files', see withImportMeta).
		Define: map[string]string{"global": "globalThis", "import.meta.url": `"file:///fount/component.mjs"`,
			"import.meta.filename": `"/fount/component.mjs"`, "import.meta.dirname": `"/fount"`},
		Sourcemap:      esbuild.SourceMapInline,
		SourcesContent: esbuild.SourcesContentExclude,
	}
	if uses.minify {
		opts.MinifyWhitespace, opts.MinifyIdentifiers, opts.KeepNames, opts.LineLimit = true, true, true, 40
	}
	if uses.buffer {
		opts.Inject = append(opts.Inject, bufferGlobal)
	}
	if uses.webStreams {
		opts.Inject = append(opts.Inject, webStreamsGlobal)
	}
	return b, esbuild.Build(opts)
}

// build is the state of one Bundle call, shared by esbuild's
// concurrent resolve callbacks.
type build struct {
	p    *Packages
	ctx  context.Context
	lock map[string][]Locked

	mu         sync.Mutex
	packuments map[string]*packument
	chosen     map[string]*instance // by name@version
	errs       []error              // the errors behind esbuild's messages, in order
	// usedBuiltins notes that the bundle holds one of the built-in
	// modules fount provides.
	usedBuiltins bool
	fsStreams    bool // fs comes with its streams
	// moduleTypes caches, by package folder, whether Node loads its .js
	// files as ES modules.
	moduleTypes map[string]bool
	downloaded  int64 // bytes of tarballs fetched
}

// instance is one package version unpacked in the cache.
type instance struct {
	name, version string
	sum           integrity
	dir           string            // holds node_modules/<name>
	deps          map[string]string // what its package.json depends on, by name
	// optionalPeers are the peers its package.json marks optional
	// (peerDependenciesMeta): npm installs none of them, and the package
	// requires them only where it can do without.
	optionalPeers map[string]bool
	// main is what require() of the package's root loads, as Node 20
	// loads it, where esbuild's main fields (module first, for imports)
	// would give it the ES build (node-fetch 2's, whose default export a
	// CommonJS caller cannot call): the package's main, kept inside the
	// package, for a package.json that names both and has no exports
	// (whose require condition esbuild follows itself); "" otherwise.
	main string
}

// replacedFiles are files of packages that need what the sandbox lacks
// and that fount replaces, whatever the version, by a module of its own
// with the same surface (node/replace/), by package and path. A short
// list, each documented in docs/runtime.md: fount runs published code
// unchanged wherever it can.
var replacedFiles = map[string]string{
	// WebAssembly (emscripten's Poly1305), instantiated when ssh2 loads.
	"ssh2/lib/protocol/crypto/poly1305.js": "ssh2-poly1305.js",
}

// innerResolve marks the plugin's own calls to esbuild's resolver.
type innerResolve struct{}

// npmNamespace holds the modules of packages, named
// "<name>@<version>/<path>" so that no cache path shows in a bundle.
const npmNamespace = "npm"

func (b *build) setup(pb esbuild.PluginBuild) {
	b.setupBuiltins(pb)
	// The component's own imports. Bare specifiers are packages or Node
	// built-ins ("#" names are an imports map, which esbuild resolves).
	pb.OnResolve(esbuild.OnResolveOptions{Filter: `^[^./#]`}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		if _, inner := args.PluginData.(innerResolve); inner || args.Namespace == npmNamespace || args.Namespace == nodeNamespace {
			return esbuild.OnResolveResult{}, nil
		}
		return b.resolveBare(pb, args, nil)
	})
	// Its relative imports stay as they are: they name modules deployed
	// with it (a workflow step's modules).
	pb.OnResolve(esbuild.OnResolveOptions{Filter: `^\.\.?/`}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		if _, inner := args.PluginData.(innerResolve); inner || args.Namespace == npmNamespace || args.Namespace == nodeNamespace {
			return esbuild.OnResolveResult{}, nil
		}
		return esbuild.OnResolveResult{Path: args.Path, External: true}, nil
	})
	// Anything else it names would be a file of the server's: absolute
	// paths, and "#" imports, which need a package.json it does not have.
	pb.OnResolve(esbuild.OnResolveOptions{Filter: `^[/#]`}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		if _, inner := args.PluginData.(innerResolve); inner || args.Namespace == npmNamespace || args.Namespace == nodeNamespace {
			return esbuild.OnResolveResult{}, nil
		}
		return esbuild.OnResolveResult{}, b.fail(&PackageError{
			Reason: fmt.Sprintf("import %q: a component may import npm packages, Node built-ins and the modules deployed with it (./name), not paths", args.Path)})
	})
	// Everything a package's module imports.
	pb.OnResolve(esbuild.OnResolveOptions{Filter: `.*`, Namespace: npmNamespace}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		owner := b.ownerOf(args.ResolveDir)
		if owner == nil {
			return esbuild.OnResolveResult{}, b.fail(fmt.Errorf("import %q from %s: not in any package", args.Path, args.Importer))
		}
		if strings.HasPrefix(args.Path, "/") {
			return esbuild.OnResolveResult{}, b.fail(&PackageError{Package: owner.id(),
				Reason: fmt.Sprintf("%s imports an absolute path; a package may import only its own files and other packages", args.Importer)})
		}
		if strings.HasSuffix(args.Path, ".node") {
			// A native addon: no build of it exists (fount runs no
			// install script) and none could run in the sandbox. As in
			// Node with a failed build, requiring it fails, where the
			// package reaches that require (often inside a try, falling
			// back to JavaScript).
			return notFound(args), nil
		}
		if strings.HasPrefix(args.Path, ".") || strings.HasPrefix(args.Path, "#") {
			r := pb.Resolve(args.Path, esbuild.ResolveOptions{ResolveDir: args.ResolveDir, Kind: args.Kind, PluginData: innerResolve{}})
			if len(r.Errors) > 0 {
				return esbuild.OnResolveResult{}, b.fail(&PackageError{Package: owner.id(),
					Reason: fmt.Sprintf("%s imports %q, which does not resolve%s", args.Importer, args.Path, resolveReason(r.Errors[0].Text))})
			}
			res, err := b.inPackage(owner, args.Importer, args.Path, r)
			if err != nil {
				return esbuild.OnResolveResult{}, b.fail(err)
			}
			return res, nil
		}
		return b.resolveBare(pb, args, owner)
	})
	pb.OnLoad(esbuild.OnLoadOptions{Filter: `.*`, Namespace: missingNamespace}, func(args esbuild.OnLoadArgs) (esbuild.OnLoadResult, error) {
		return notFoundModule(args), nil
	})
	pb.OnLoad(esbuild.OnLoadOptions{Filter: `.*`, Namespace: npmNamespace}, func(args esbuild.OnLoadArgs) (esbuild.OnLoadResult, error) {
		f, _ := args.PluginData.(packageFile)
		if file, ok := replacedFiles[f.in.name+"/"+f.rel]; ok {
			src, err := nodeFS.ReadFile(path.Join("node", "replace", file))
			if err != nil {
				return esbuild.OnLoadResult{}, b.fail(fmt.Errorf("fount's replacement of %s/%s: %w", f.in.name, f.rel, err))
			}
			contents := string(src)
			return esbuild.OnLoadResult{Contents: &contents, ResolveDir: filepath.Join(f.in.root(), filepath.Dir(filepath.FromSlash(f.rel))), Loader: esbuild.LoaderJS}, nil
		}
		raw, err := f.read()
		if err != nil {
			return esbuild.OnLoadResult{}, b.fail(&PackageError{Package: f.in.id(), Reason: fmt.Sprintf("its file %s cannot be read: %v", f.rel, err)})
		}
		contents := string(raw)
		// Node gives __filename and __dirname to CommonJS modules only;
		// an ES module may declare its own.
		if f.loader == esbuild.LoaderJS && path.Ext(f.rel) != ".mjs" && !b.nodeESM(f) {
			contents = withModulePaths(contents, f)
		}
		if f.loader == esbuild.LoaderJS {
			contents = withImportMeta(contents, f)
		}
		return esbuild.OnLoadResult{Contents: &contents, ResolveDir: filepath.Join(f.in.root(), filepath.Dir(filepath.FromSlash(f.rel))), Loader: f.loader}, nil
	})
}

// missingNamespace holds the modules a package names that the bundle
// leaves out (an optional peer npm would not install, a native addon, a
// built-in fount lacks): each throws Node's error for a module that is
// not there when it is evaluated. Left external instead, an import of
// one in a module the package loads lazily (mistral's await import() of
// its OpenTelemetry support, in a try) would become an import of the
// whole bundle, failing it at load.
const missingNamespace = "missing"

// notFound resolves an import of a module that is not there.
func notFound(args esbuild.OnResolveArgs) esbuild.OnResolveResult {
	return esbuild.OnResolveResult{Path: args.Path, Namespace: missingNamespace, PluginData: args.Kind}
}

// notFoundModule is the module of notFound: CommonJS, so that any name
// may be imported from it, throwing as Node does for the kind of import.
func notFoundModule(args esbuild.OnLoadArgs) esbuild.OnLoadResult {
	code, msg := "ERR_MODULE_NOT_FOUND", fmt.Sprintf("Cannot find package '%s'", args.Path)
	if args.PluginData == esbuild.ResolveJSRequireCall {
		code, msg = "MODULE_NOT_FOUND", fmt.Sprintf("Cannot find module '%s'", args.Path)
	}
	contents := fmt.Sprintf("throw Object.assign(new Error(%q), { code: %q });\nmodule.exports = {};\n", msg, code)
	return esbuild.OnLoadResult{Contents: &contents, Loader: esbuild.LoaderJS}
}

// resolveBare resolves a bare specifier imported by the component (owner
// nil) or by a module of package owner.
func (b *build) resolveBare(pb esbuild.PluginBuild, args esbuild.OnResolveArgs, owner *instance) (esbuild.OnResolveResult, error) {
	if name, ok := Builtin(args.Path); ok {
		if file, provided := builtinPath(name, b.fsStreams); provided {
			return b.builtin(name, file, args.Kind), nil
		}
		if owner == nil {
			return esbuild.OnResolveResult{}, b.fail(&PackageError{Package: name, Builtin: true})
		}
		// A package may only touch it on a path the component never
		// takes; it fails when it is reached, as a missing module does.
		return notFound(args), nil
	}
	imp, err := ParseImport(args.Path)
	if err != nil {
		return esbuild.OnResolveResult{}, b.fail(&PackageError{Package: args.Path, Reason: err.Error()})
	}
	if err := checkSubpath(imp, args.Path); err != nil {
		return esbuild.OnResolveResult{}, b.fail(err)
	}
	if owner != nil {
		if r, ok, err := b.withinPackage(pb, args, owner); err != nil {
			return esbuild.OnResolveResult{}, b.fail(err)
		} else if ok {
			return r, nil
		}
		if b.leftOut(imp.Name, owner) {
			// As in Node without it: requiring it fails, where the
			// package reaches that require.
			return notFound(args), nil
		}
	}
	b.mu.Lock()
	inst, err := b.instanceFor(imp, owner)
	b.mu.Unlock()
	if err != nil {
		return esbuild.OnResolveResult{}, b.fail(err)
	}
	spec, resolveDir := imp.Name+imp.Subpath, inst.dir
	if main, ok := requireMain(inst, imp, args.Kind); ok {
		spec, resolveDir = main, inst.root()
	}
	r := pb.Resolve(spec, esbuild.ResolveOptions{
		ResolveDir: resolveDir, Kind: args.Kind, PluginData: innerResolve{},
	})
	if len(r.Errors) > 0 {
		return esbuild.OnResolveResult{}, b.fail(&PackageError{Package: inst.id(),
			Reason: fmt.Sprintf("it has no module %q%s", imp.Name+imp.Subpath, resolveReason(r.Errors[0].Text))})
	}
	importer := args.Importer
	if owner == nil {
		importer = "the component"
	}
	res, err := b.inPackage(inst, importer, args.Path, r)
	if err != nil {
		return esbuild.OnResolveResult{}, b.fail(err)
	}
	return res, nil
}

// requireMain is the file that require() of package inst's root loads,
// as Node 20 loads it (instance.main); false where esbuild's own
// resolution already does as Node does.
func requireMain(inst *instance, imp Import, kind esbuild.ResolveKind) (string, bool) {
	if imp.Subpath != "" || (kind != esbuild.ResolveJSRequireCall && kind != esbuild.ResolveJSRequireResolve) || inst.main == "" {
		return "", false
	}
	return inst.main, true
}

// leftOut reports whether owner's import of package name is left for run
// time: name is an optional peer of owner's that nothing in the bundle
// has installed.
func (b *build) leftOut(name string, owner *instance) bool {
	if !owner.optionalPeers[name] {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, in := range b.chosen {
		if in.name == name {
			return false
		}
	}
	return true
}

// withinPackage resolves a package's import of itself or of a package
// it ships in its own node_modules (bundledDependencies); false when
// the import names neither.
func (b *build) withinPackage(pb esbuild.PluginBuild, args esbuild.OnResolveArgs, owner *instance) (esbuild.OnResolveResult, bool, error) {
	r := pb.Resolve(args.Path, esbuild.ResolveOptions{ResolveDir: args.ResolveDir, Kind: args.Kind, PluginData: innerResolve{}})
	if len(r.Errors) > 0 || !within(r.Path, owner.root()) {
		return esbuild.OnResolveResult{}, false, nil
	}
	res, err := b.inPackage(owner, args.Importer, args.Path, r)
	return res, err == nil, err
}

func sideEffects(has bool) esbuild.SideEffects {
	if has {
		return esbuild.SideEffectsTrue
	}
	return esbuild.SideEffectsFalse
}

// ownerOf finds the package instance a folder of the cache belongs
// to: the one whose root holds it (a bundled dependency's folder belongs
// to the package that ships it).
func (b *build) ownerOf(dir string) *instance {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, in := range b.chosen {
		if dir == in.dir || strings.HasPrefix(dir, in.dir+string(filepath.Separator)) {
			return in
		}
	}
	return nil
}

func (in *instance) id() string { return in.name + "@" + in.version }

// root is the package's own folder.
func (in *instance) root() string {
	return filepath.Join(in.dir, "node_modules", filepath.FromSlash(in.name))
}

// instanceFor picks and unpacks the version of imp.Name that the
// component (owner nil) or package owner needs. Called with b.mu held.
func (b *build) instanceFor(imp Import, owner *instance) (*instance, error) {
	want := imp.Range
	if owner != nil {
		want = "*" // a dependency a package does not declare: npm's hoisting would find some version
		if r, ok := owner.deps[imp.Name]; ok {
			want = r
		}
	} else if want == "" {
		want = "latest"
	}
	tag, constraint, err := parseRange(imp.Name, want)
	if err != nil {
		return nil, err
	}
	// The lock first (for a dist-tag, whatever version it locked), then
	// what this bundle already holds, then the registry.
	if l, ok := b.fromLock(imp.Name, constraint); ok {
		return b.install(imp.Name, l.Version, l.Integrity, nil)
	}
	if tag == "" {
		if in := b.alreadyChosen(imp.Name, constraint); in != nil {
			return in, nil
		}
	}
	version, m, err := b.pickFromRegistry(imp.Name, tag, constraint, want)
	if err != nil {
		return nil, err
	}
	return b.install(imp.Name, version, "", &m)
}

// parseRange reads an npm dependency range: a semver range or a
// dist-tag. Aliases, URLs, git and file dependencies are refused.
func parseRange(name, r string) (tag string, c *semver.Constraints, err error) {
	r = strings.TrimSpace(r)
	if r == "" {
		r = "*"
	}
	for _, unsupported := range []string{"npm:", "file:", "link:", "git", "http:", "https:", "workspace:", "github:"} {
		if strings.HasPrefix(r, unsupported) {
			return "", nil, &PackageError{Package: name, Reason: fmt.Sprintf("the dependency %q is not a version range; fount resolves only registry versions", r)}
		}
	}
	if c, err := semver.NewConstraint(r); err == nil {
		return "", c, nil
	}
	if validName.MatchString(r) { // dist-tags share package names' alphabet
		return r, nil, nil
	}
	return "", nil, &PackageError{Package: name, Reason: fmt.Sprintf("%q is neither a version range nor a dist-tag", r)}
}

func (b *build) fromLock(name string, c *semver.Constraints) (Locked, bool) {
	var best Locked
	var bestV *semver.Version
	for _, l := range b.lock[name] {
		v, err := semver.NewVersion(l.Version)
		if err != nil || (c != nil && !c.Check(v)) {
			continue
		}
		if bestV == nil || v.GreaterThan(bestV) {
			best, bestV = l, v
		}
	}
	return best, bestV != nil
}

func (b *build) alreadyChosen(name string, c *semver.Constraints) *instance {
	var best *instance
	var bestV *semver.Version
	for _, in := range b.chosen {
		if in.name != name {
			continue
		}
		v, err := semver.NewVersion(in.version)
		if err != nil || !c.Check(v) {
			continue
		}
		if bestV == nil || v.GreaterThan(bestV) {
			best, bestV = in, v
		}
	}
	return best
}

// NodeVersion is the version of Node fount's runtime reports
// (process.version, without its v): the prelude's.
const NodeVersion = "20.18.1"

// pickFromRegistry chooses a version from the registry's packument as npm
// does: for an explicit dist-tag, the version it names; for "latest" (a
// bare import) or a range, the latest version if it matches, runs on
// NodeVersion and is not deprecated, else the highest matching version,
// preferring those that run on NodeVersion, then those not deprecated.
// (undici's latest needs Node 22: npm on Node 20 installs the last 7.x.)
func (b *build) pickFromRegistry(name, tag string, c *semver.Constraints, asked string) (string, packageManifest, error) {
	pk, err := b.packument(name)
	if err != nil {
		return "", packageManifest{}, err
	}
	if tag != "" && tag != "latest" {
		v, ok := pk.DistTags[tag]
		if !ok {
			return "", packageManifest{}, &PackageError{Package: name, Reason: fmt.Sprintf("no version matches %q (no such dist-tag)", tag)}
		}
		m, ok := pk.Versions[v]
		if !ok {
			return "", packageManifest{}, &PackageError{Package: name, Reason: fmt.Sprintf("dist-tag %q names version %s, which the registry does not list", tag, v)}
		}
		return v, m, nil
	}
	if c == nil {
		c, _ = semver.NewConstraint("*")
	}
	latest := pk.DistTags["latest"]
	if m, ok := pk.Versions[latest]; ok && m.preferred() {
		if v, err := semver.NewVersion(latest); err == nil && c.Check(v) {
			return latest, m, nil
		}
	}
	var best *semver.Version
	var bestM packageManifest
	for raw, m := range pk.Versions {
		v, err := semver.NewVersion(raw)
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || betterPick(v, m, best, bestM) {
			best, bestM = v, m
		}
	}
	if best == nil {
		if tag == "latest" && latest != "" {
			// Only prereleases, or nothing "*" matches: the tag decides.
			if m, ok := pk.Versions[latest]; ok {
				return latest, m, nil
			}
		}
		return "", packageManifest{}, &PackageError{Package: name, Reason: fmt.Sprintf("no version matches %q (latest is %s)", asked, latest)}
	}
	return best.Original(), bestM, nil
}

// betterPick says whether version v (manifest m) is a better pick than
// the best so far: one that runs on NodeVersion, then one not
// deprecated, then the higher.
func betterPick(v *semver.Version, m packageManifest, best *semver.Version, bestM packageManifest) bool {
	if a, b := m.runsOnNode(), bestM.runsOnNode(); a != b {
		return a
	}
	if a, b := m.deprecated(), bestM.deprecated(); a != b {
		return b
	}
	return v.GreaterThan(best)
}

// runsOnNode says whether the manifest's engines allow NodeVersion; a
// range fount cannot read allows it.
func (m packageManifest) runsOnNode() bool {
	if m.Engines.Node == "" {
		return true
	}
	c, err := semver.NewConstraint(m.Engines.Node)
	if err != nil {
		return true
	}
	return c.Check(semver.MustParse(NodeVersion))
}

func (m packageManifest) deprecated() bool {
	switch d := m.Deprecated.(type) {
	case string:
		return d != ""
	case bool:
		return d
	}
	return false
}

// preferred says whether a manifest may be picked without looking
// further: it runs on NodeVersion and is not deprecated.
func (m packageManifest) preferred() bool {
	return m.runsOnNode() && !m.deprecated()
}

func (b *build) packument(name string) (*packument, error) {
	if pk, ok := b.packuments[name]; ok {
		return pk, nil
	}
	if b.p.Registry == nil {
		return nil, &PackageError{Package: name, Reason: "no npm registry is configured on this server (see --npm-registry)"}
	}
	pk, err := b.p.Registry.packument(b.ctx, name)
	if err != nil {
		return nil, err
	}
	b.packuments[name] = pk
	return pk, nil
}

// install makes sure name@version is unpacked in the cache, from the
// cache alone when its hash (sum, from a lock) is already there. m is
// the registry's manifest when the version came from it.
func (b *build) install(name, version, sum string, m *packageManifest) (*instance, error) {
	id := name + "@" + version
	if in, ok := b.chosen[id]; ok {
		return in, nil
	}
	cache := folders{cache: b.p.Cache, staging: b.p.Staging}
	var dir string
	var integ integrity
	if sum != "" {
		s, err := parseIntegrity(sum)
		if err != nil {
			return nil, &PackageError{Package: id, Reason: "its lock entry: " + err.Error()}
		}
		integ = s
		if d, ok := cache.lookup(name, version, s); ok {
			dir = d
		}
	}
	if dir == "" {
		if m == nil {
			pk, err := b.packument(name)
			if err != nil {
				return nil, err
			}
			mm, ok := pk.Versions[version]
			if !ok {
				return nil, &PackageError{Package: id, Reason: "the locked version is no longer in the registry"}
			}
			m = &mm
		}
		m.Name, m.Version = name, version // the registry's word on its own key is not needed
		s, err := integrityOf(*m)
		if err != nil {
			return nil, &PackageError{Package: id, Reason: err.Error()}
		}
		if sum != "" && s.String() != integ.String() {
			return nil, &PackageError{Package: id, Reason: "integrity mismatch: the registry's hash is not the one in the lock"}
		}
		integ = s
		if d, ok := cache.lookup(name, version, integ); ok {
			dir = d
		} else {
			tgz, err := b.p.Registry.tarball(b.ctx, *m)
			if err != nil {
				return nil, err
			}
			b.downloaded += int64(len(tgz))
			if dir, err = cache.unpack(name, version, integ, tgz); err != nil {
				return nil, err
			}
		}
	}
	in := &instance{name: name, version: version, sum: integ, dir: dir}
	if err := in.readDeps(); err != nil {
		return nil, &PackageError{Package: id, Reason: err.Error()}
	}
	b.chosen[id] = in
	return in, nil
}

// readDeps reads the dependency ranges of the unpacked package.json,
// which npm also takes over the registry's copy, and its main.
func (in *instance) readDeps() error {
	raw, err := packageFile{in: in, rel: "package.json"}.read()
	if err != nil {
		return fmt.Errorf("its package.json: %w", err)
	}
	var pj struct {
		Dependencies         map[string]string `json:"dependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
		PeerDependenciesMeta map[string]struct {
			Optional bool `json:"optional"`
		} `json:"peerDependenciesMeta"`
		Main    any             `json:"main"`
		Module  json.RawMessage `json:"module"`
		Exports json.RawMessage `json:"exports"`
	}
	if err := json.Unmarshal(raw, &pj); err != nil {
		return fmt.Errorf("its package.json does not parse: %w", err)
	}
	if main, _ := pj.Main.(string); strings.TrimSpace(main) != "" && len(pj.Module) > 0 && len(pj.Exports) == 0 {
		in.main = "./" + strings.TrimPrefix(path.Clean("/"+main), "/")
	}
	in.optionalPeers = map[string]bool{}
	for name, meta := range pj.PeerDependenciesMeta {
		if meta.Optional {
			in.optionalPeers[name] = true
		}
	}
	in.deps = map[string]string{}
	for _, m := range []map[string]string{pj.PeerDependencies, pj.OptionalDependencies, pj.Dependencies} {
		for k, v := range m {
			in.deps[k] = v
		}
	}
	return nil
}

func (b *build) locked() []Locked {
	out := make([]Locked, 0, len(b.chosen))
	for _, in := range b.chosen {
		out = append(out, Locked{Name: in.name, Version: in.version, Integrity: in.sum.String()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// fail records err, whose text esbuild then reports as a message.
func (b *build) fail(err error) error {
	b.mu.Lock()
	b.errs = append(b.errs, err)
	b.mu.Unlock()
	return err
}

// failure turns esbuild's messages into one error, keeping a recorded
// *PackageError as such so callers can tell what went wrong.
func (b *build) failure(msgs []esbuild.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, err := range b.errs {
		var pe *PackageError
		if errors.As(err, &pe) {
			return pe
		}
	}
	var lines []string
	pkg := "" // the first package whose own files do not bundle
	for _, m := range msgs {
		loc := ""
		if m.Location != nil {
			loc = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column+1)
			if p := packageOfPath(m.Location.File); pkg == "" && p != "" {
				pkg = p
			}
		}
		lines = append(lines, loc+m.Text)
	}
	if pkg != "" {
		// The component's own code is fine: it is a package's that esbuild
		// cannot read. Say which, with its first errors, rather than let the
		// code load unbundled and fail on a missing module.
		const shown = 3
		more := ""
		if len(lines) > shown {
			more = fmt.Sprintf(" (and %d more)", len(lines)-shown)
			lines = lines[:shown]
		}
		return &PackageError{Package: pkg, Reason: "it does not bundle: " + b.scrub(strings.Join(lines, "; ")) + more}
	}
	return &BuildError{Messages: b.scrub(strings.Join(lines, "\n"))}
}

// checkSize refuses a bundle over the cap, naming the package that
// weighs the most in it.
func (p *Packages) checkSize(out, metafile string) error {
	limit := p.MaxBundle
	if limit <= 0 {
		limit = DefaultMaxBundle
	}
	if len(out) <= limit {
		return nil
	}
	var meta struct {
		Inputs map[string]struct {
			Bytes int `json:"bytes"`
		} `json:"inputs"`
	}
	heaviest, most := "", 0
	if json.Unmarshal([]byte(metafile), &meta) == nil {
		byPkg := map[string]int{}
		for path, in := range meta.Inputs {
			if pkg := packageOfPath(path); pkg != "" {
				byPkg[pkg] += in.Bytes
			}
		}
		for pkg, n := range byPkg {
			if n > most || (n == most && pkg < heaviest) {
				heaviest, most = pkg, n
			}
		}
	}
	msg := fmt.Sprintf("the bundle is too large: %d bytes with its npm packages (the limit is %d)", len(out), limit)
	if heaviest != "" {
		msg += fmt.Sprintf("; the largest package is %s (%d bytes of source)", heaviest, most)
	}
	return &PackageError{Package: heaviest, Reason: msg}
}

// packageOfPath names the package of a metafile input, which esbuild
// calls "npm:<name>@<version>/<path>".
func packageOfPath(p string) string {
	rest, ok := strings.CutPrefix(p, npmNamespace+":")
	if !ok {
		return ""
	}
	scope := ""
	if strings.HasPrefix(rest, "@") {
		s, r, _ := strings.Cut(rest, "/")
		scope, rest = s+"/", r
	}
	first, _, _ := strings.Cut(rest, "/")
	return scope + first
}
