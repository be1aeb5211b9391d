package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/bundle/npmtest"
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
	s := startServer(t, serveConfig{dataDir: dataDir, npmRegistry: reg.URL()})
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
