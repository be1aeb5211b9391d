package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/component"
	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/sandbox"
)

// startProductionServer is a server whose sandbox parses code as `fount
// serve` does: in a worker process (this test binary, see TestMain).
func startProductionServer(t *testing.T) *server {
	t.Helper()
	warmCache(t)
	sb, err := host.New(context.Background(), host.Config{CacheDir: cacheDir, Analyzer: processAnalyzer{exe: os.Args[0]}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close(context.Background()) })
	return startServer(t, serveConfig{bootstrapKey: "k", allowPrivateEgress: true, sandbox: sb})
}

// TestDeeplyNestedCodeCannotCrashTheServer: code nested deeply enough to
// overflow the parser's stack (it killed the process before the parser
// ran in a worker) is a 400 on every path that takes code, and the server
// goes on serving.
func TestDeeplyNestedCodeCannotCrashTheServer(t *testing.T) {
	t.Parallel()
	s := startProductionServer(t)
	bombs := map[string]string{
		"negations":   "export default " + strings.Repeat("!", 200_000) + "1",
		"brackets":    "export default " + strings.Repeat("[", 200_000),
		"parentheses": "module.exports = " + strings.Repeat("(", 150_000) + "1" + strings.Repeat(")", 150_000),
	}
	codeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(bombs[strings.TrimPrefix(r.URL.Path, "/")]))
	}))
	defer codeSrv.Close()
	good := s.deploySource(`export default { name: "Good", version: "1", run() {} }`, nil)
	for name, code := range bombs {
		for _, tt := range []struct {
			method, path string
			body         map[string]any
			param        string
		}{
			{"POST", "/v1/components", map[string]any{"component_code": code}, "component_code"},
			{"POST", "/v1/sources", map[string]any{"component_code": code}, "component_code"},
			{"PUT", "/v1/sources/" + good["id"].(string), map[string]any{"component_code": code}, "component_code"},
			{"POST", "/v1/components", map[string]any{"component_url": codeSrv.URL + "/" + name}, "component_url"},
		} {
			st, body := s.do(tt.method, tt.path, tt.body)
			e, _ := body["error"].(map[string]any)
			if st != 400 || e["code"] != "invalid_component" || e["param"] != tt.param {
				t.Errorf("%s via %s %s: %d %v", name, tt.method, tt.path, st, body)
			}
		}
	}
	if st, _ := s.do("GET", "/v1/users/me", nil); st != 200 {
		t.Fatalf("the server no longer answers: %d", st)
	}
	s.deploySource(`export default { name: "Still fine", version: "1", run() {} }`, nil)
}

// productionSandbox is one sandbox that parses in worker processes, for
// the fuzz target.
var productionSandbox = sync.OnceValues(func() (*host.Host, error) {
	if _, err := sharedSandbox(); err != nil { // fills the compilation cache
		return nil, err
	}
	return host.New(context.Background(), host.Config{CacheDir: cacheDir, Analyzer: processAnalyzer{exe: os.Args[0]}})
})

// FuzzDeployPath puts arbitrary code through what a deploy does with it:
// parsing (in the worker) and introspection (in the sandbox). The process
// must survive every input, and every failure must be a documented one.
func FuzzDeployPath(f *testing.F) {
	f.Add(`export default { name: "a", version: "1", run() {} }`)
	f.Add(`module.exports = { name: "b", version: "1", props: { t: { type: "$.interface.timer", default: { intervalSeconds: 60 } } }, run() {} }`)
	f.Add("export default " + strings.Repeat("!", 100_000) + "1")
	f.Add("export default " + strings.Repeat("[", 100_000))
	f.Add("export default " + strings.Repeat("`${", 50_000))
	f.Add("export default " + strings.Repeat("a?", 50_000) + "1")
	f.Add("export default " + strings.Repeat("x=>", 50_000) + "1")
	f.Add(strings.Repeat("if(1)", 50_000) + ";")
	sb, err := productionSandbox()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code string) {
		m, err := sb.Introspect(context.Background(), code, "", nil)
		var se *sandbox.ScriptError
		switch {
		case err == nil:
			if m.Name == "" || m.Version == "" || (m.Format != component.FormatESM && m.Format != component.FormatCJS) {
				t.Fatalf("accepted metadata %+v", m)
			}
		case errors.As(err, &se), errors.Is(err, sandbox.ErrTimeout), errors.Is(err, sandbox.ErrOutOfMemory), errors.Is(err, sandbox.ErrTrap):
		default:
			t.Fatalf("undocumented error %T: %v", err, err)
		}
	})
}
