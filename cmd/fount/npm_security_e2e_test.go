package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
	"github.com/fount-dev/fount/internal/server"
)

// TestNpmResolutionNeverReadsTheHost deploys components whose imports,
// or whose packages' requires, name the server's files: the owner key
// the server wrote, and a JSON file of the host's. Each deploy is a 400
// naming the package and the import; no answer holds the key or a path
// of the server's, and nothing is stored.
func TestNpmResolutionNeverReadsTheHost(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dataDir := filepath.Join(root, "data")
	hostJSON := filepath.Join(root, "host.json")
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "plainpkg", Version: "4.17.21", Files: map[string]string{ // no exports map, as lodash
		"index.js":  `module.exports = 1;`,
		"climb.js":  `module.exports = require("../../../../owner.key");`,
		"hostjs.js": `module.exports = require(` + jsString(hostJSON) + `);`,
	}})
	reg.Publish(npmtest.Package{Name: "mainpkg", Version: "1.0.0", Files: map[string]string{
		"package.json": `{"name":"mainpkg","version":"1.0.0","main":"../../../../owner.key"}`}})
	s := startServer(t, server.Config{DataDir: dataDir, NpmRegistry: reg.URL()})
	key, err := os.ReadFile(filepath.Join(dataDir, "owner.key"))
	if err != nil {
		t.Fatal(err)
	}
	s.key = strings.TrimSpace(string(key))
	if err := os.WriteFile(hostJSON, []byte(`{"secret":"`+s.key+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ name, imp, want string }{
		{"a subpath that climbs", "plainpkg/../../../../owner.key", `"plainpkg"`},
		{"a package's relative require", "plainpkg/climb.js", `"../../../../owner.key"`},
		{"a package's absolute require", "plainpkg/hostjs.js", "absolute path"},
		{"a main outside the package", "mainpkg", `"mainpkg@1.0.0"`},
		{"an absolute import", hostJSON, "not paths"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code := `import k from ` + jsString(c.imp) + `; export default { name: "k", version: "1.0.0", run() { this.$emit(k) } }`
			for _, path := range []string{"/v1/components", "/v1/sources"} {
				st, body := s.do("POST", path, map[string]any{"component_code": code})
				e, _ := body["error"].(map[string]any)
				msg, _ := e["message"].(string)
				if st != 400 || !strings.Contains(msg, c.want) {
					t.Errorf("POST %s: %d %v, want 400 naming %s", path, st, body, c.want)
				}
				if strings.Contains(msg, s.key) || strings.Contains(msg, dataDir) {
					t.Errorf("POST %s: the answer shows the key or the data dir: %q", path, msg)
				}
			}
		})
	}
	if _, body := s.do("GET", "/v1/users/me/sources", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("%v stored after refused deploys", body["data"])
	}
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestNpmCacheIsPerPackageAndBounded: one tenant's copy of a package
// (the same tarball under another name) cannot break another's import of
// the original; a refused deploy caches nothing; the cache stays under
// --npm-cache-size; and each account's downloads are counted.
func TestNpmCacheIsPerPackageAndBounded(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	same := map[string]string{"package.json": `{"name":"popular","version":"1.0.0","main":"index.js"}`, "index.js": `module.exports = "popular";`}
	reg.Publish(npmtest.Package{Name: "popular", Version: "1.0.0", Files: same})
	reg.Publish(npmtest.Package{Name: "copycat", Version: "1.0.0", Files: same})
	reg.Publish(npmtest.Package{Name: "toobig", Version: "1.0.0", Files: map[string]string{
		"index.js": `module.exports = "` + strings.Repeat("x", 600<<10) + `";`}})
	for _, name := range []string{"mid-a", "mid-b", "mid-c"} {
		reg.Publish(npmtest.Package{Name: name, Version: "1.0.0", Files: map[string]string{
			"index.js": `module.exports = "` + strings.Repeat(name, 100<<10) + `";`}}) // 400+ KiB each
	}
	dataDir := t.TempDir()
	const cacheBound = 1 << 20
	s := startServer(t, server.Config{BootstrapKey: ownerKey, DataDir: dataDir, NpmRegistry: reg.URL(), MaxBundle: 512 << 10, NpmCacheBytes: cacheBound})
	deploy := func(pkg string) (int, map[string]any) {
		return s.do("POST", "/v1/components", map[string]any{"component_code": `import v from "` + pkg + `";
			export default { name: "` + pkg + `", version: "1.0.0", run() { this.$emit(v) } }`})
	}
	npmBytes := func() int64 {
		_, body := s.do("GET", "/v1/users/me", nil)
		n, _ := data(body)["daily_npm_bytes"].(float64)
		return int64(n)
	}
	cached := func() (names []string, size int64) {
		root := filepath.Join(dataDir, "npm")
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			names = append(names, e.Name())
			_ = filepath.WalkDir(filepath.Join(root, e.Name()), func(_ string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					info, _ := d.Info()
					size += info.Size()
				}
				return nil
			})
		}
		return names, size
	}

	for _, pkg := range []string{"copycat", "popular"} {
		if st, body := deploy(pkg); st != 200 {
			t.Fatalf("deploy %s: %d %v", pkg, st, body)
		}
	}
	before := npmBytes()
	if before == 0 {
		t.Error("no npm bytes counted for two downloads")
	}
	if st, body := deploy("toobig"); st != 400 || !strings.Contains(fmt.Sprint(body), "too large") {
		t.Fatalf("deploy toobig: %d %v, want 400 too large", st, body)
	}
	if names, _ := cached(); strings.Contains(strings.Join(names, " "), "toobig") {
		t.Errorf("a refused package was cached: %v", names)
	}
	if after := npmBytes(); after <= before {
		t.Errorf("the refused deploy's download was not counted: %d then %d", before, after)
	}
	for _, pkg := range []string{"mid-a", "mid-b", "mid-c"} {
		if st, body := deploy(pkg); st != 200 {
			t.Fatalf("deploy %s: %d %v", pkg, st, body)
		}
	}
	names, size := cached()
	if size > cacheBound || !strings.Contains(strings.Join(names, " "), "mid-c@") || strings.Contains(strings.Join(names, " "), "mid-a@") {
		t.Errorf("cache holds %v, %d bytes: want under %d, the newest kept and the oldest evicted", names, size, cacheBound)
	}
}
