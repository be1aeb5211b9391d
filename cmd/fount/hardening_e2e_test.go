package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
	"github.com/fount-dev/fount/internal/worker"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// startProductionServer is a server whose sandbox parses code as `fount
// serve` does: in a worker process (this test binary, see TestMain).
func startProductionServer(t *testing.T) *testServer {
	t.Helper()
	return startProductionServerWith(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
}

// startProductionServerWith is startProductionServer with cfg.
func startProductionServerWith(t testing.TB, cfg server.Config) *testServer {
	t.Helper()
	warmCache(t)
	sb, err := host.New(context.Background(), host.Config{CacheDir: cacheDir, Analyzer: worker.Analyzer{Exe: workerExe(t)}, Engine: testEngine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close(context.Background()) })
	cfg.Sandbox = sb
	return startServer(t, cfg)
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
	exe, err := workerExePath()
	if err != nil {
		return nil, err
	}
	return host.New(context.Background(), host.Config{CacheDir: cacheDir, Analyzer: worker.Analyzer{Exe: exe}, Engine: testEngine})
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

// TestSealedSecretsAreBoundToTheirOwner: a tenant who obtained another
// tenant's sealed value (from a copy of the store) cannot have the server
// decrypt it into its own source, neither by declaring a prop that holds
// it secret nor by copying it into a secret prop.
func TestSealedSecretsAreBoundToTheirOwner(t *testing.T) {
	t.Parallel()
	dir, keyDir := t.TempDir(), t.TempDir()
	keyFile := filepath.Join(keyDir, "secret.key")
	// On bbolt whatever FOUNT_TEST_STORE says: the test copies from the file.
	s := startServer(t, server.Config{DataDir: dir, StoreURL: "bolt", BootstrapKey: ownerKey, SecretKeyFile: keyFile})
	victim := s.deploySource(`export default { name: "Victim", version: "1", props: { token: { type: "string", secret: true } }, run() {} }`,
		map[string]any{"token": "hunter2"})
	_, created := s.do("POST", "/v1/users", map[string]any{"username": "mallory", "email": "m@example.com"})
	s.stop()
	if _, err := os.Stat(filepath.Join(dir, "secret.key")); !os.IsNotExist(err) {
		t.Errorf("the key was written into the data dir despite --secret-key-file: %v", err)
	}
	st, err := store.OpenBolt(filepath.Join(dir, "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	stolen, err := st.GetSource(context.Background(), victim["id"].(string))
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	blob := stolen.ConfiguredProps["token"]

	s2 := startServer(t, server.Config{DataDir: dir, StoreURL: "bolt", SecretKeyFile: keyFile})
	s2.key = data(created)["api_key"].(string)
	holder := `export default { name: "Holder", version: "1", props: { opts: { type: "object" } }, run() { this.$emit(this.opts) } }`
	src := s2.deploySource(holder, map[string]any{"opts": json.RawMessage(blob)})
	id := src["id"].(string)
	// Redeclare the prop secret, keeping its value.
	if st, body := s2.do("PUT", "/v1/sources/"+id, map[string]any{"component_code": strings.Replace(holder, `type: "object"`, `type: "object", secret: true`, 1)}); st != 200 {
		t.Fatalf("redeclare: %d %v", st, body)
	}
	s2.run(id, nil)
	ev := s2.events(id, "", 1)[0]
	if got := string(mustMarshal(t, ev["event"])); strings.Contains(got, "hunter2") {
		t.Fatalf("the other tenant's secret was decrypted: %s", got)
	}
}

// TestDeliveryErrorsShowNoServerAddresses: a failed delivery says what
// failed, not the server's addresses (Go's errors carry the local address
// and the DNS resolver's).
func TestDeliveryErrorsShowNoServerAddresses(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/in"
	ln.Close() // nothing listens there now: connection refused
	_, hook := s.do("POST", "/v1/webhooks", map[string]any{"url": dead})
	wh := data(hook)["id"].(string)
	src := s.deploySource(`export default { name: "E", version: "1", run() { this.$emit(1) } }`, nil)
	s.do("POST", "/v1/subscriptions?emitter_id="+src["id"].(string)+"&listener_id="+wh, nil)
	s.run(src["id"].(string), nil)
	attempt := wait.For(t, "a delivery attempt recorded", eventsDeadline, func() (map[string]any, bool) {
		_, dl := s.do("GET", "/v1/webhooks/"+wh+"/deliveries", nil)
		if list := dl["data"].([]any); len(list) > 0 {
			if atts := list[0].(map[string]any)["attempts"].([]any); len(atts) > 0 {
				return atts[0].(map[string]any), true
			}
		}
		return nil, false
	})
	if msg, _ := attempt["error"].(string); msg != "connection refused" {
		t.Errorf("the attempt's error is %q, want just %q", msg, "connection refused")
	}
}
