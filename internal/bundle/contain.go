package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	esbuild "github.com/evanw/esbuild/pkg/api"
)

// A package's code decides what the resolver opens: its imports, its
// package.json's main, module and exports, and the subpaths components
// import from it. None of it may make the resolver read a file of the
// server's. So every file esbuild resolves is checked to lie inside the
// package's own folder in the cache before it is loaded, it is read
// through an os.Root of that folder (which no symbolic link leaves), and
// only the kinds of file Node loads are loaded, JSON as JSON. The bundle
// worker is also confined by the kernel to the cache (see
// internal/confine), so that a flaw here still reads nothing else.

// packageFile is a file of a package instance that may be loaded.
type packageFile struct {
	in     *instance
	rel    string // slash-separated, inside in.root()
	loader esbuild.Loader
}

// loaders are the kinds of file Node loads from a package, by extension;
// a file without one is CommonJS, as for Node.
var loaders = map[string]esbuild.Loader{
	".js":   esbuild.LoaderJS,
	".mjs":  esbuild.LoaderJS,
	".cjs":  esbuild.LoaderJS,
	".json": esbuild.LoaderJSON,
	"":      esbuild.LoaderJS,
}

// file checks that p, a path esbuild resolved, is a file of the package
// that may be loaded.
func (in *instance) file(p string) (packageFile, error) {
	rel, err := filepath.Rel(in.root(), p)
	if err != nil || !filepath.IsLocal(rel) {
		return packageFile{}, errors.New("it resolves outside the package")
	}
	ext := strings.ToLower(filepath.Ext(rel))
	loader, ok := loaders[ext]
	if !ok {
		return packageFile{}, fmt.Errorf("it resolves to a %s file, and only JavaScript and JSON files are loaded", ext)
	}
	return packageFile{in: in, rel: filepath.ToSlash(rel), loader: loader}, nil
}

// read reads the file through the package's folder as a root, so that a
// link cannot lead out of it.
func (f packageFile) read() ([]byte, error) {
	root, err := os.OpenRoot(f.in.root())
	if err != nil {
		return nil, errors.New("the package's folder in the cache cannot be opened")
	}
	defer root.Close()
	return root.ReadFile(filepath.FromSlash(f.rel))
}

// inPackage names a file esbuild resolved, for an import spec of
// importer, by the package instance it must belong to, its version and
// its path in the package, so that no cache path shows in a bundle.
func (b *build) inPackage(in *instance, importer, spec string, r esbuild.ResolveResult) (esbuild.OnResolveResult, error) {
	f, err := in.file(r.Path)
	if err != nil {
		return esbuild.OnResolveResult{}, &PackageError{Package: in.id(), Reason: fmt.Sprintf("%s imports %q: %v", importer, spec, err)}
	}
	p := in.id() + "/" + f.rel
	if b.nodeESM(f) {
		p += nodeESMSuffix
	}
	return esbuild.OnResolveResult{Path: p, Namespace: npmNamespace, PluginData: f, SideEffects: sideEffects(r.SideEffects)}, nil
}

// nodeESMSuffix marks, in the path esbuild knows a package's module by, a
// .js file that Node loads as an ES module (its package.json says "type":
// "module"). esbuild tells how Node would load a plugin's module only by
// its path's extension; so marked, an ES module importing CommonJS gets
// its module.exports as default, as in Node, even when the CommonJS
// module says __esModule (tslib's modules/index.js imports tslib.js). The
// mark is taken out of the source map, so that stacks name the file.
const nodeESMSuffix = "?module.mjs"

// nodeESM reports whether Node loads f, a .js file, as an ES module: the
// nearest package.json inside the package says "type": "module".
func (b *build) nodeESM(f packageFile) bool {
	if path.Ext(f.rel) != ".js" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.moduleTypes == nil {
		b.moduleTypes = map[string]bool{}
	}
	for dir := path.Dir(f.rel); ; dir = path.Dir(dir) {
		key := f.in.id() + "/" + dir
		if esm, ok := b.moduleTypes[key]; ok {
			return esm
		}
		if esm, found := f.in.packageType(dir); found {
			b.moduleTypes[key] = esm
			return esm
		}
		if dir == "." {
			b.moduleTypes[key] = false
			return false
		}
	}
}

// packageType reads dir/package.json in the package: whether it says
// "type": "module", and whether there is one.
func (in *instance) packageType(dir string) (esm, found bool) {
	root, err := os.OpenRoot(in.root())
	if err != nil {
		return false, false
	}
	defer root.Close()
	raw, err := root.ReadFile(filepath.FromSlash(path.Join(dir, "package.json")))
	if err != nil {
		return false, false
	}
	var pj struct {
		Type string `json:"type"`
	}
	json.Unmarshal(raw, &pj)
	return pj.Type == "module", true
}

// within reports whether p lies inside the folder dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

// checkSubpath refuses a subpath that climbs ("pkg/../x"): Node joins
// it onto the package's folder, so it could name any file.
func checkSubpath(imp Import, spec string) error {
	if strings.ContainsAny(imp.Subpath, "\\\x00") {
		return &PackageError{Package: imp.Name, Reason: fmt.Sprintf("import %q: a subpath may not hold a backslash or a NUL", spec)}
	}
	for _, seg := range strings.Split(imp.Subpath, "/") {
		if seg == "." || seg == ".." {
			return &PackageError{Package: imp.Name, Reason: fmt.Sprintf("import %q: a subpath may not have \".\" or \"..\" segments", spec)}
		}
	}
	return nil
}

// resolveReason passes on esbuild's word on why an import does not
// resolve when it is about the package ("The path "./x" is not exported
// by package "p""), and nothing else: its other messages name folders of
// the server's, relative or absolute.
func resolveReason(text string) string {
	if strings.HasPrefix(text, "The path ") && !strings.Contains(text, "../") {
		return ": " + text
	}
	return ""
}

// scrub takes the cache's folder out of a message of esbuild's, so that
// no server path reaches the component's author.
func (b *build) scrub(msg string) string {
	if b.p.Cache == "" {
		return msg
	}
	if abs, err := filepath.Abs(b.p.Cache); err == nil {
		msg = strings.ReplaceAll(msg, abs, "<npm cache>")
	}
	return strings.ReplaceAll(msg, b.p.Cache, "<npm cache>")
}

// withImportMeta gives a package's ES module the import.meta.url,
// filename and dirname Node would, for the package installed in
// /fount/node_modules: SDKs derive paths from them at load
// (@azure/storage-common calls fileURLToPath(import.meta.url)). Each is
// renamed to a variable declared on the module's first line, so that its
// line numbers stay as they were. The rename is textual: "import.meta.url"
// inside a string or a comment is renamed too, which changes that text
// only (and no such text was seen in the packages tried).
func withImportMeta(code string, f packageFile) string {
	if !strings.Contains(code, "import.meta") {
		return code
	}
	file := path.Join("/fount/node_modules", f.in.name, f.rel)
	code = strings.NewReplacer("import.meta.url", "__fountImportMetaURL", "import.meta.filename", "__fountImportMetaFilename",
		"import.meta.dirname", "__fountImportMetaDirname").Replace(code)
	decl := fmt.Sprintf("var __fountImportMetaURL = %q, __fountImportMetaFilename = %q, __fountImportMetaDirname = %q;",
		"file://"+file, file, path.Dir(file))
	return withFirstLine(code, decl)
}

// withFirstLine puts decl on code's first line (after a hashbang).
func withFirstLine(code, decl string) string {
	if strings.HasPrefix(code, "#!") { // a hashbang must stay first
		if nl := strings.IndexByte(code, '\n'); nl >= 0 {
			return code[:nl+1] + decl + code[nl+1:]
		}
		return code
	}
	return decl + code
}

// withModulePaths gives a module that names __filename or __dirname the
// values Node gives a CommonJS module, for a package installed in
// /fount/node_modules (a path that says nothing of the server): older
// libraries test them to know they run in Node (htmlparser's
// runningInNode), and fall back on browser globals otherwise. The
// declaration goes on the module's first line, so that its line numbers
// stay as they were.
func withModulePaths(code string, f packageFile) string {
	if !strings.Contains(code, "__filename") && !strings.Contains(code, "__dirname") {
		return code
	}
	file := path.Join("/fount/node_modules", f.in.name, f.rel)
	return withFirstLine(code, fmt.Sprintf("var __filename = %q, __dirname = %q;", file, path.Dir(file)))
}
