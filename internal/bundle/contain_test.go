package bundle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
)

// hostSecret is what the server's files hold in these tests: it must
// never reach a bundle or an error.
const hostSecret = "HOSTSECRET-0123456789"

// TestResolutionStaysInsideThePackage tries every way a component or a
// package can name a file: a server's file is never loaded, the error
// names the package and the import, and never a path of the server's.
func TestResolutionStaysInsideThePackage(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	// Like lodash: no exports map, so subpaths are joined onto its folder.
	reg.Publish(npmtest.Package{Name: "plainpkg", Version: "1.0.0", Files: map[string]string{
		"index.js":   `module.exports = 1;`,
		"climb.js":   `module.exports = require("../../../../owner.key");`,
		"keyfile.js": `module.exports = require("./data.key");`,
		"data.key":   `"a key file of the package"`,
		"code.json":  `(globalThis.ran = "json ran as code")`,
		"self.js":    `module.exports = require("plainpkg/../../../../owner.key");`,
	}})
	reg.Publish(npmtest.Package{Name: "badmain", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"badmain","version":"1.0.0","main":"../../../../owner.key"}`,
	}})
	reg.Publish(npmtest.Package{Name: "badexports", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"badexports","version":"1.0.0","exports":{".":"./../../../../owner.key","./x":"./x/../../../../../owner.key"}}`,
	}})
	reg.Publish(npmtest.Package{Name: "badimports", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"badimports","version":"1.0.0","main":"index.js","imports":{"#k":"../../../../owner.key"}}`,
		"index.js":     `module.exports = require("#k");`,
	}})
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret.json")
	for _, f := range []string{filepath.Join(dir, "owner.key"), secretFile} {
		if err := os.WriteFile(f, []byte(`{"k":"`+hostSecret+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reg.Publish(npmtest.Package{Name: "abspkg", Version: "1.0.0", Files: map[string]string{
		"index.js": `module.exports = require(` + quote(secretFile) + `);`,
	}})
	p := &Packages{Registry: &Registry{URL: reg.URL(), Get: plainGetter{}}, Cache: filepath.Join(dir, "npm")}

	cases := []struct{ name, code, wantInError string }{
		{"a component's subpath climbs", `import k from "plainpkg/../../../../owner.key"; export default k;`, `"plainpkg/../../../../owner.key"`},
		{"a subpath with a dot segment", `import k from "plainpkg/./index.js"; export default k;`, `"."`},
		{"a package's relative require climbs", `import k from "plainpkg/climb.js"; export default k;`, `"../../../../owner.key"`},
		{"a package's subpath of itself climbs", `import k from "plainpkg/self.js"; export default k;`, `"plainpkg/../../../../owner.key"`},
		{"a package's absolute require", `import k from "abspkg"; export default k;`, "absolute path"},
		{"a package file that is not code", `import k from "plainpkg/keyfile.js"; export default k;`, "a .key file"},
		{"a main outside the package", `import k from "badmain"; export default k;`, `"badmain"`},
		{"an exports target outside the package", `import k from "badexports"; export default k;`, `badexports`},
		{"an exports subpath outside the package", `import k from "badexports/x"; export default k;`, `badexports`},
		{"an imports map outside the package", `import k from "badimports"; export default k;`, `"#k"`},
		{"a component's absolute import", `import k from ` + quote(secretFile) + `; export default k;`, "not paths"},
		{"a component's # import", `import k from "#k"; export default k;`, "not paths"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := p.Bundle(context.Background(), c.code, nil)
			if strings.Contains(res.Code, hostSecret) {
				t.Fatal("a server's file was bundled")
			}
			var pe *PackageError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a *PackageError", err, err)
			}
			msg := err.Error()
			// A path the component wrote itself may show; no other may.
			leaks := strings.Contains(msg, dir) && !strings.Contains(c.code, dir)
			if !strings.Contains(msg, c.wantInError) || leaks || strings.Contains(msg, hostSecret) {
				t.Errorf("error %q: want it to name %s, and no server path", msg, c.wantInError)
			}
		})
	}

	t.Run("JSON is parsed as JSON", func(t *testing.T) {
		_, err := p.Bundle(context.Background(), `import k from "plainpkg/code.json"; export default k;`, nil)
		if err == nil || strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v, want a JSON syntax error with no server path", err)
		}
	})
}

// TestALinkInTheCacheLeadsNowhere plants a link in an unpacked package
// (tarballs never make one): reading through it is refused.
func TestALinkInTheCacheLeadsNowhere(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "linked", Version: "1.0.0", Files: map[string]string{
		"index.js": `module.exports = require("./data.json");`, "data.json": `{"ok":true}`}})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.json"), []byte(`{"k":"`+hostSecret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &Packages{Registry: &Registry{URL: reg.URL(), Get: plainGetter{}}, Cache: filepath.Join(dir, "npm")}
	code := `import k from "linked"; export default k;`
	res, err := p.Bundle(context.Background(), code, nil)
	if err != nil || !strings.Contains(res.Code, `ok: true`) {
		t.Fatalf("first bundle: %v\n%s", err, res.Code)
	}
	matches, _ := filepath.Glob(filepath.Join(p.Cache, "*", "node_modules", "linked", "data.json"))
	if len(matches) != 1 {
		t.Fatalf("unpacked data.json: %v", matches)
	}
	if err := os.Remove(matches[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret.json"), matches[0]); err != nil {
		t.Fatal(err)
	}
	res, err = p.Bundle(context.Background(), code, res.Packages)
	if err == nil || strings.Contains(res.Code, hostSecret) || strings.Contains(err.Error(), dir) {
		t.Fatalf("through a link: err %v, code has the secret: %v", err, strings.Contains(res.Code, hostSecret))
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestAPackageThatDoesNotBundleIsNamed: esbuild's error in a package's
// own file is a *PackageError naming the package and the error, not a
// build error of the component's code.
func TestAPackageThatDoesNotBundleIsNamed(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "broken-sdk", Version: "3.1.0", Files: map[string]string{
		"index.js": "module.exports = require('./client');", "client.js": "export const = ;"}})
	p := newPackages(t, reg)
	_, err := p.Bundle(context.Background(), `import c from "broken-sdk"; export default { run() { return c } };`, nil)
	var pe *PackageError
	if !errors.As(err, &pe) || pe.Package != "broken-sdk@3.1.0" || !strings.Contains(err.Error(), "client.js") || !strings.Contains(err.Error(), "does not bundle") {
		t.Fatalf("err = %v (%T), want a PackageError naming broken-sdk@3.1.0 and client.js", err, err)
	}
	_, err = p.Bundle(context.Background(), `import c from "broken-sdk"; export default { run( };`, nil)
	var be *BuildError
	if !errors.As(err, &be) {
		t.Errorf("the component's own syntax error: %v (%T), want a *BuildError", err, err)
	}
}

// TestPackagesSeeNodesModulePaths: a module that tests __filename and
// __dirname to know it runs in Node (as htmlparser does) finds them, with
// paths that say nothing of the server, and its lines stay where they
// were.
func TestPackagesSeeNodesModulePaths(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "oldparser", Version: "1.7.7", Files: map[string]string{
		"lib/parser.js": "(function () {\nfunction runningInNode() { return typeof exports == 'object' && typeof __filename == 'string' && typeof __dirname == 'string'; }\n" +
			"if (!runningInNode()) { this.Old = {}; exports = this.Old; }\nexports.where = [__filename, __dirname];\n})();",
		"package.json": `{"name":"oldparser","version":"1.7.7","main":"./lib/parser"}`}})
	p := newPackages(t, reg)
	res, err := p.Bundle(context.Background(), `import p from "oldparser"; export default p;`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Code, `__filename = "/fount/node_modules/oldparser/lib/parser.js"`) ||
		!strings.Contains(res.Code, `__dirname = "/fount/node_modules/oldparser/lib"`) || strings.Contains(res.Code, p.Cache) {
		t.Errorf("bundle:\n%s", res.Code)
	}
}

// TestFSStreamsOnlyWhereNamed: fs's streams (and the stream module under
// them) are bundled with code that names them, server-side or by the CLI,
// and left out of code that only reads and writes files.
func TestFSStreamsOnlyWhereNamed(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "uploader", Version: "1.0.0", Files: map[string]string{
		"index.js": `var fs = require("fs"); module.exports = function (p) { return p instanceof fs.ReadStream; };`}})
	p := newPackages(t, reg)
	const streams = `node:fs_streams.js`
	for _, c := range []struct {
		name, code string
		want       bool
	}{
		{"files only", `import fs from "fs"; export default { run() { return fs.readFileSync("/tmp/x", "utf8") } };`, false},
		{"the component makes a stream", `import { createWriteStream } from "node:fs"; export default { run() { return createWriteStream("/tmp/x") } };`, true},
		{"a package checks for one", `import up from "uploader"; export default { run() { return up(1) } };`, true},
	} {
		res, err := p.Bundle(context.Background(), c.code, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Contains(res.Code, streams); got != c.want {
			t.Errorf("%s: fs's streams bundled: %v, want %v", c.name, got, c.want)
		}
	}
	dir := t.TempDir()
	for name, code := range map[string]string{"reads.mjs": `import fs from "fs"; export default { run() { return fs.existsSync("/tmp/x") } };`,
		"streams.mjs": `import fs from "fs"; export default { run() { return fs.createReadStream("/tmp/x") } };`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := File(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Code, streams); got != (name == "streams.mjs") {
			t.Errorf("File(%s): fs's streams bundled: %v", name, got)
		}
	}
}
