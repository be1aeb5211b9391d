package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
)

// plainGetter fetches with no policy: the test registry is on loopback.
type plainGetter struct{}

func (plainGetter) Get(ctx context.Context, url string, h http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// testRegistry publishes packages shaped like real ones: a date library,
// a utility library with subpaths, a scoped package with a dependency,
// CommonJS and ESM entries.
func testRegistry(t *testing.T) *npmtest.Registry {
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "tinydate", Version: "1.0.0", Files: map[string]string{
		"index.js": `module.exports = function (iso) { return { year: () => Number(String(iso).slice(0, 4)), v: "1.0.0" }; };`}})
	reg.Publish(npmtest.Package{Name: "tinydate", Version: "1.4.2", Files: map[string]string{
		"index.js": `module.exports = function (iso) { return { year: () => Number(String(iso).slice(0, 4)), v: "1.4.2" }; };`}})
	reg.Publish(npmtest.Package{Name: "tinydate", Version: "2.0.0", Files: map[string]string{
		"index.js": `module.exports = function () { return { v: "2.0.0" }; };`}})
	reg.Publish(npmtest.Package{Name: "lodashish", Version: "4.17.21", Files: map[string]string{
		"index.js": `exports.get = require("./get"); exports.version = "4.17.21";`,
		"get.js":   `module.exports = function get(o, p) { return String(p).split(".").reduce((a, k) => a == null ? a : a[k], o); };`}})
	reg.Publish(npmtest.Package{Name: "@acme/platform", Version: "3.1.0", Dependencies: map[string]string{"tinydate": "^1.0.0"},
		Files: map[string]string{
			"package.json": `{"name":"@acme/platform","version":"3.1.0","type":"module","exports":{".":"./main.mjs"},"dependencies":{"tinydate":"^1.0.0"}}`,
			"main.mjs":     `import tinydate from "tinydate"; export const platformYear = (s) => tinydate(s).year(); export const dateVersion = tinydate("").v;`}})
	reg.Publish(npmtest.Package{Name: "installer", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"installer","version":"1.0.0","main":"index.js","scripts":{"install":"touch INSTALLED","postinstall":"touch POSTINSTALLED"}}`,
		"index.js":     `module.exports = 1;`}})
	reg.Publish(npmtest.Package{Name: "pgish", Version: "8.0.0", Files: map[string]string{
		"package.json": `{"name":"pgish","version":"8.0.0","main":"index.js","peerDependencies":{"pgish-native":">=3"},"peerDependenciesMeta":{"pgish-native":{"optional":true}}}`,
		"index.js":     `exports.pure = true; Object.defineProperty(exports, "native", { get() { return require("pgish-native"); } });`}})
	return reg
}

func newPackages(t *testing.T, reg *npmtest.Registry) *Packages {
	return &Packages{Registry: &Registry{URL: reg.URL(), Get: plainGetter{}}, Cache: filepath.Join(t.TempDir(), "npm")}
}

func TestBundleResolvesImports(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	p := newPackages(t, reg)
	cases := []struct {
		name, code string
		want       []string // name@version of the lock
		inBundle   string
	}{
		{"bare import gets latest", `import d from "tinydate"; export default { run() { return d("2024-01-01").year(); } };`,
			[]string{"tinydate@2.0.0"}, `"2.0.0"`},
		{"range in the specifier", `import d from "tinydate@^1.0.0"; export default { run() { return d("2024").year(); } };`,
			[]string{"tinydate@1.4.2"}, `"1.4.2"`},
		{"exact version", `import d from "tinydate@1.0.0"; export default { v: d("").v };`,
			[]string{"tinydate@1.0.0"}, `"1.0.0"`},
		{"subpath", `import get from "lodashish/get"; export default { v: get({a:{b:2}}, "a.b") };`,
			[]string{"lodashish@4.17.21"}, `String(p).split(".")`},
		{"scoped with a dependency of its own", `import { platformYear } from "@acme/platform"; export default { y: platformYear("1999") };`,
			[]string{"@acme/platform@3.1.0", "tinydate@1.4.2"}, `platformYear`},
		{"CommonJS require", `const d = require("tinydate@1"); module.exports = { v: d("").v };`,
			[]string{"tinydate@1.4.2"}, `"1.4.2"`},
		{"an optional peer is left for run time, as npm leaves it out", `import pg from "pgish"; export default { v: pg.pure };`,
			[]string{"pgish@8.0.0"}, `Cannot find module 'pgish-native'`},
		{"no package: code is not rebundled", `import x from "./lib.mjs"; export default { x };`, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := p.Bundle(context.Background(), c.code, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range res.Packages {
				if !strings.HasPrefix(l.Integrity, "sha512-") {
					t.Errorf("%s: integrity %q", l.Name, l.Integrity)
				}
				got = append(got, l.Name+"@"+l.Version)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("lock = %v, want %v", got, c.want)
			}
			if c.inBundle == "" {
				if res.Code != "" {
					t.Errorf("code without packages was rebundled:\n%s", res.Code)
				}
				return
			}
			if !strings.Contains(res.Code, c.inBundle) {
				t.Errorf("bundle lacks %q:\n%s", c.inBundle, res.Code)
			}
		})
	}
}

func TestBundleLockKeepsVersions(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	p := newPackages(t, reg)
	code := `import d from "tinydate@^1"; export default { v: d("").v };`
	first, err := p.Bundle(context.Background(), code, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg.Publish(npmtest.Package{Name: "tinydate", Version: "1.9.0", Files: map[string]string{"index.js": `module.exports = () => ({ v: "1.9.0" });`}})

	before := reg.Requests.Load()
	again, err := p.Bundle(context.Background(), code, first.Packages)
	if err != nil {
		t.Fatal(err)
	}
	if again.Code != first.Code || again.Packages[0].Version != "1.4.2" {
		t.Errorf("with its lock the code bundled %v, want the locked 1.4.2", again.Packages)
	}
	if n := reg.Requests.Load() - before; n != 0 {
		t.Errorf("a locked, cached bundle made %d registry requests, want none", n)
	}
	updated, err := p.Bundle(context.Background(), code, nil)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Packages[0].Version != "1.9.0" || !strings.Contains(updated.Code, `"1.9.0"`) {
		t.Errorf("without a lock the code bundled %v, want 1.9.0", updated.Packages)
	}
}

func TestBundleErrorsNameThePackage(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	reg.Publish(npmtest.Package{Name: "tampered", Version: "1.0.0", Files: map[string]string{"index.js": `module.exports = 1;`}})
	reg.Tamper("tampered", "1.0.0")
	dead := npmtest.New(t)
	deadURL := dead.URL()
	closed := &Packages{Registry: &Registry{URL: deadURL, Get: plainGetter{}}, Cache: t.TempDir()}
	cases := []struct {
		name, code string
		p          *Packages
		want       []string
	}{
		{"not found", `import x from "no-such-pkg"; export default {};`, nil, []string{`"no-such-pkg"`, "no such package"}},
		{"no matching version", `import x from "tinydate@^7"; export default {};`, nil, []string{`"tinydate"`, `no version matches "^7"`, "latest is 2.0.0"}},
		{"integrity mismatch", `import x from "tampered"; export default {};`, nil, []string{`"tampered@1.0.0"`, "integrity mismatch"}},
		{"built-in not provided", `import w from "path/win32"; export default {};`, nil, []string{`"path/win32"`, "Node built-in", "does not provide"}},
		{"node: built-in not provided", `import w from "node:path/win32"; export default {};`, nil, []string{`"path/win32"`, "does not provide"}},
		{"invalid name", `import x from "Not_Valid"; export default {};`, nil, []string{`"Not_Valid"`, "not a valid npm package name"}},
		{"git dependency", `import x from "tinydate@github:a/b"; export default {};`, nil, []string{"not a version range"}},
		{"subpath the package lacks", `import x from "lodashish/nope"; export default {};`, nil, []string{`"lodashish@4.17.21"`, `no module "lodashish/nope"`}},
		{"registry unreachable", `import x from "tinydate"; export default {};`, closed, []string{`"tinydate"`, "unreachable"}},
		{"no registry configured", `import x from "tinydate"; export default {};`, &Packages{Cache: t.TempDir()}, []string{"no npm registry is configured"}},
		{"bundle too large", `import { platformYear } from "@acme/platform"; export default { platformYear };`,
			&Packages{Registry: &Registry{URL: reg.URL(), Get: plainGetter{}}, Cache: t.TempDir(), MaxBundle: 100},
			[]string{"too large", "limit is 100", "largest package is"}},
	}
	dead.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			if p == nil {
				p = newPackages(t, reg)
			}
			_, err := p.Bundle(context.Background(), c.code, nil)
			if err == nil {
				t.Fatal("bundled, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestBundleRunsNoInstallScript(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import i from "installer"; export default { i };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pe *PackageError
	if errors.As(err, &pe) || len(res.Packages) != 1 {
		t.Fatalf("lock %v", res.Packages)
	}
	err = filepath.Walk(p.Cache, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(info.Name(), "INSTALLED") {
			t.Errorf("an install script ran: %s exists", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseImport(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec string
		want Import
		err  bool
	}{
		{"dayjs", Import{Name: "dayjs"}, false},
		{"lodash@^4.17.0", Import{Name: "lodash", Range: "^4.17.0"}, false},
		{"uuid@9", Import{Name: "uuid", Range: "9"}, false},
		{"@pipedream/platform", Import{Name: "@pipedream/platform"}, false},
		{"@pipedream/platform@1.6/dist/x.js", Import{Name: "@pipedream/platform", Range: "1.6", Subpath: "/dist/x.js"}, false},
		{"lodash/get", Import{Name: "lodash", Subpath: "/get"}, false},
		{"@scope", Import{}, true},
		{"pkg@", Import{}, true},
		{"UPPER", Import{}, true},
	}
	for _, c := range cases {
		got, err := ParseImport(c.spec)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseImport(%q) = %+v, %v; want %+v, error %v", c.spec, got, err, c.want, c.err)
		}
	}
}

// TestEveryProvidedBuiltinBundles: each built-in fount provides bundles,
// by its bare and node: names, with no registry at all.
func TestEveryProvidedBuiltinBundles(t *testing.T) {
	t.Parallel()
	p := &Packages{Cache: t.TempDir()}
	for _, name := range ProvidedBuiltins() {
		for _, spec := range []string{name, "node:" + name} {
			res, err := p.Bundle(context.Background(), `import m from "`+spec+`"; export default { m };`, nil)
			if err != nil || res.Code == "" || len(res.Packages) != 0 {
				t.Errorf("%s: %v (bundled %d bytes, lock %v)", spec, err, len(res.Code), res.Packages)
			}
		}
	}
	res, err := p.Bundle(context.Background(), `export default { run() { return Buffer.from("x") } };`, nil)
	if err != nil || !strings.Contains(res.Code, "base64") {
		t.Errorf("the Buffer global was not injected: %v\n%.300s", err, res.Code)
	}
}

// TestReplacedFilesAreEmbedded: every file fount replaces in a package
// has its replacement in the binary, so that a package never loads the
// original by a missing entry.
func TestReplacedFilesAreEmbedded(t *testing.T) {
	t.Parallel()
	for orig, file := range replacedFiles {
		src, err := nodeFS.ReadFile("node/replace/" + file)
		if err != nil || len(src) == 0 {
			t.Errorf("%s: its replacement %s is not embedded: %v", orig, file, err)
		}
	}
}

// TestLargeBundlesAreMinified: a bundle past minifyAbove is bundled again
// minified, with its names kept (QuickJS keeps every name it compiles, so
// a large SDK would not fit a component's memory); a small one is left
// as written.
func TestLargeBundlesAreMinified(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	var big strings.Builder
	for i := 0; big.Len() <= minifyAbove; i++ {
		fmt.Fprintf(&big, "exports.operation%d = function fetchOperationNumber%d(argumentOfTheOperation) {\n  return argumentOfTheOperation + %d;\n};\n", i, i, i)
	}
	reg.Publish(npmtest.Package{Name: "hugesdk", Version: "1.0.0", Files: map[string]string{"index.js": big.String()}})
	reg.Publish(npmtest.Package{Name: "smallsdk", Version: "1.0.0", Files: map[string]string{
		"index.js": "exports.operation = function fetchOperation(argumentOfTheOperation) {\n  return argumentOfTheOperation;\n};\n"}})
	p := newPackages(t, reg)
	for _, c := range []struct {
		pkg      string
		minified bool
	}{{"hugesdk", true}, {"smallsdk", false}} {
		res, err := p.Bundle(context.Background(), `import * as sdk from "`+c.pkg+`"; export default { name: "x", run() { return sdk; } };`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if minified := !strings.Contains(res.Code, "argumentOfTheOperation"); minified != c.minified {
			t.Errorf("%s (%d bytes): minified %v, want %v", c.pkg, len(res.Code), minified, c.minified)
		}
		if !strings.Contains(res.Code, "fetchOperation") {
			t.Errorf("%s: the function's name is not kept", c.pkg)
		}
	}
}

// TestOldManifestShapesAreRead: versions whose dependencies npm once
// wrote as a list, or with values that are not ranges, leave the package
// readable (mime's document holds one such version).
func TestOldManifestShapesAreRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc string
		want      map[string]string
	}{
		{"an object of ranges", `{"dependencies":{"a":"^1.0.0","b":"2"}}`, map[string]string{"a": "^1.0.0", "b": "2"}},
		{"a list of names", `{"dependencies":["a","b",3]}`, map[string]string{"a": "*", "b": "*"}},
		{"values that are not ranges", `{"dependencies":{"a":"1","b":{"version":"2"},"c":null}}`, map[string]string{"a": "1"}},
		{"neither", `{"dependencies":"a"}`, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m packageManifest
			if err := json.Unmarshal([]byte(c.doc), &m); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(map[string]string(m.Dependencies), c.want) {
				t.Errorf("dependencies %v, want %v", m.Dependencies, c.want)
			}
		})
	}
}

// TestPicksAsNpmOnNode20: like npm on Node 20, a bare import or a range
// passes over versions whose engines need another Node, and deprecated
// ones, when another version matches; an exact version is taken as asked.
func TestPicksAsNpmOnNode20(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	for _, p := range []npmtest.Package{
		{Name: "fetchy", Version: "1.0.0"},
		{Name: "fetchy", Version: "1.5.0", Engines: map[string]string{"node": ">=18"}},
		{Name: "fetchy", Version: "1.6.0", Engines: map[string]string{"node": ">=22.19.0"}},
		{Name: "fetchy", Version: "2.0.0", Engines: map[string]string{"node": ">=22.19.0"}},
		{Name: "oldie", Version: "1.0.0"},
		{Name: "oldie", Version: "1.1.0", Deprecated: "use newie"},
		{Name: "onlynew", Version: "3.0.0", Engines: map[string]string{"node": ">=24"}},
	} {
		p.Files = map[string]string{"index.js": `module.exports = "` + p.Name + "@" + p.Version + `";`}
		reg.Publish(p)
	}
	p := newPackages(t, reg)
	for _, c := range []struct{ spec, want string }{
		{"fetchy", "fetchy@1.5.0"},
		{"fetchy@^1.0.0", "fetchy@1.5.0"},
		{"fetchy@2", "fetchy@2.0.0"},
		{"fetchy@1.6.0", "fetchy@1.6.0"},
		{"oldie", "oldie@1.0.0"},
		{"onlynew", "onlynew@3.0.0"},
	} {
		res, err := p.Bundle(context.Background(), `import v from "`+c.spec+`"; export default { v };`, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if len(res.Packages) != 1 || res.Packages[0].Name+"@"+res.Packages[0].Version != c.want {
			t.Errorf("%s: picked %v, want %s", c.spec, res.Packages, c.want)
		}
	}
}

// TestNodeVersionIsThePreludes: the version bundling picks for is the
// one components see as process.version.
func TestNodeVersionIsThePreludes(t *testing.T) {
	t.Parallel()
	prelude, err := os.ReadFile("../../guest/prelude.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(prelude), `NODE_VERSION = "v`+NodeVersion+`"`) {
		t.Errorf("guest/prelude.js's NODE_VERSION is not v%s", NodeVersion)
	}
}

// TestBuiltinsExportWhatNodeExports: every name a Node 20 built-in
// exports (node/node20-exports.json, from tools/node-exports.mjs) can
// be imported by name from fount's module, so that a package naming one
// bundles (jose imports publicEncrypt); what fount cannot do throws when
// called, saying why.
func TestBuiltinsExportWhatNodeExports(t *testing.T) {
	t.Parallel()
	raw, err := nodeFS.ReadFile("node/node20-exports.json")
	if err != nil {
		t.Fatal(err)
	}
	var exports map[string][]string
	if err := json.Unmarshal(raw, &exports); err != nil {
		t.Fatal(err)
	}
	p := &Packages{Cache: t.TempDir()}
	for _, name := range ProvidedBuiltins() {
		names, ok := exports[name]
		if !ok {
			t.Errorf("%s: not in testdata/node20-exports.json", name)
			continue
		}
		var imports []string
		for i, n := range names {
			imports = append(imports, fmt.Sprintf("%s as n%d", n, i))
		}
		code := fmt.Sprintf("import { %s } from %q; export default { n0 };", strings.Join(imports, ", "), name)
		if _, err := p.Bundle(context.Background(), code, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestBuiltinFacesDropWhatIsUnused: the names a built-in's face adds cost
// nothing to a bundle that does not import them.
func TestBuiltinFacesDropWhatIsUnused(t *testing.T) {
	t.Parallel()
	p := &Packages{Cache: t.TempDir()}
	res, err := p.Bundle(context.Background(), `import { randomUUID } from "crypto"; export default { run: randomUUID };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Code, `"publicEncrypt"`) || strings.Contains(res.Code, `"setEngine"`) {
		t.Errorf("the bundle holds names it does not import:\n%s", res.Code)
	}
	res, err = p.Bundle(context.Background(), `import { setEngine } from "crypto"; export default { run: setEngine };`, nil)
	if err != nil || !strings.Contains(res.Code, `"setEngine"`) {
		t.Errorf("an imported name is not in the bundle: %v", err)
	}
}

// TestNodeESMImportsCommonJSAsNode: a .js file under "type": "module"
// imports CommonJS as Node does, module.exports as its default even when
// the CommonJS module says __esModule (tslib's modules/index.js), and
// stacks name the file as it is.
func TestNodeESMImportsCommonJSAsNode(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "esmwrap", Version: "1.0.0", Files: map[string]string{
		"lib.js":               `Object.defineProperty(exports, "__esModule", { value: true }); exports.v = 1;`,
		"modules/package.json": `{"type":"module"}`,
		"modules/index.js":     `import lib from "../lib.js"; export const v = lib.v;`,
		"plain/index.js":       `import lib from "../lib.js"; export const v = lib;`,
	}})
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import { v } from "esmwrap/modules/index.js"; import { v as w } from "esmwrap/plain/index.js"; export default { v, w };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Code, "__toESM(require_lib(), 1)"); n != 1 {
		t.Errorf("%d imports of lib.js in Node's mode, want 1 (modules/ only):\n%s", n, res.Code)
	}
	if strings.Contains(res.Map+res.Code, nodeESMSuffix) || !strings.Contains(res.Map, "esmwrap@1.0.0/modules/index.js") {
		t.Errorf("the source map does not name modules/index.js as it is: %s", res.Map)
	}
}

// TestESModulesKeepTheirOwnPaths: Node gives __filename and __dirname to
// CommonJS modules only, so an ES module that declares its own
// (@azure/storage-common's) bundles, and a CommonJS module gets Node's.
func TestESModulesKeepTheirOwnPaths(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "pathy", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"pathy","version":"1.0.0","type":"module","main":"index.js"}`,
		"index.js":     `import { cjs } from "./old.cjs"; const __filename = "mine"; const __dirname = "."; export const paths = [__filename, __dirname, cjs];`,
		"old.cjs":      `exports.cjs = __dirname;`,
	}})
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import { paths } from "pathy"; export default { paths };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Code, `"/fount/node_modules/pathy"`) {
		t.Errorf("the CommonJS module lacks Node's __dirname:\n%s", res.Code)
	}
}

// TestImportMetaIsAFile: import.meta.url, filename and dirname are a
// file's, as in Node: a package module's its own, the component's
// component.mjs.
func TestImportMetaIsAFile(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "metapkg", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"metapkg","version":"1.0.0","type":"module","main":"lib/index.js"}`,
		"lib/index.js": `export const where = [import.meta.url, import.meta.dirname, import.meta.filename];`,
	}})
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import { where } from "metapkg"; export default { where, mine: import.meta.url };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"file:///fount/node_modules/metapkg/lib/index.js"`, `"/fount/node_modules/metapkg/lib"`,
		`"/fount/node_modules/metapkg/lib/index.js"`, `"file:///fount/component.mjs"`} {
		if !strings.Contains(res.Code, want) {
			t.Errorf("the bundle lacks %s:\n%s", want, res.Code)
		}
	}
	if strings.Contains(res.Code, "import.meta") {
		t.Errorf("import.meta is left in the bundle:\n%s", res.Code)
	}
}

// TestMissingModulesFailWhereReached: an optional peer npm leaves out,
// imported by a module the package loads lazily, fails only where it is
// reached, with Node's error, instead of becoming an import of the whole
// bundle that fails it at load (mistral's OpenTelemetry support).
func TestMissingModulesFailWhereReached(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "lazypeer", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"lazypeer","version":"1.0.0","type":"module","main":"index.js","peerDependencies":{"otelish":"^1"},"peerDependenciesMeta":{"otelish":{"optional":true}}}`,
		"index.js":     `export async function traced() { try { const m = await import("./otel.js"); return m.on(); } catch (e) { return e.code; } }`,
		"otel.js":      `import { trace } from "otelish"; export const on = () => trace;`,
	}})
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import { traced } from "lazypeer"; export default { traced };`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Code, `from "otelish"`) || !strings.Contains(res.Code, `Cannot find package 'otelish'`) ||
		!strings.Contains(res.Code, "ERR_MODULE_NOT_FOUND") {
		t.Errorf("the missing peer is not a module that fails where reached:\n%s", res.Code)
	}
}

// TestRequireLoadsMainAsNode: a package that names a main (CommonJS) and a
// module (ES) build, without exports, is given to require() as its main,
// as Node 20 gives it, and to import as its module build; through a
// package's own require too.
func TestRequireLoadsMainAsNode(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "dualish", Version: "2.6.0", Files: map[string]string{
		"package.json":   `{"name":"dualish","version":"2.6.0","main":"lib/index","module":"lib/index.mjs"}`,
		"lib/index.js":   `module.exports = function fetchish() { return "cjs build"; };`,
		"lib/index.mjs":  `export default function fetchish() { return "esm build"; }`,
		"lib/escape.mjs": `export default "unused";`}})
	reg.Publish(npmtest.Package{Name: "sdkish", Version: "1.0.0", Dependencies: map[string]string{"dualish": "^2.0.0"}, Files: map[string]string{
		"index.js": `const fetchish = require("dualish"); module.exports = { call: () => fetchish() };`}})
	p := newPackages(t, reg)
	cases := []struct{ name, code, want, not string }{
		{"require", `const f = require("dualish"); module.exports = { v: f() };`, "cjs build", "esm build"},
		{"a package's require", `const sdk = require("sdkish"); module.exports = { v: sdk.call() };`, "cjs build", "esm build"},
		{"import", `import f from "dualish"; export default { v: f() };`, "esm build", "cjs build"},
	}
	for _, c := range cases {
		res, err := p.Bundle(context.Background(), c.code, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(res.Code, c.want) || strings.Contains(res.Code, c.not) {
			t.Errorf("%s: the bundle has %q: %v, %q: %v", c.name, c.want, strings.Contains(res.Code, c.want), c.not, strings.Contains(res.Code, c.not))
		}
	}
}
