package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// sandbox compiles the guest once for the package's tests.
var sandbox = sync.OnceValues(func() (*host.Host, error) {
	return host.New(context.Background(), host.Config{})
})

// harness is the real handler stack on loopback: bbolt in a temp dir, the
// real sandbox, an owner user.
type harness struct {
	t        testing.TB
	srv      *httptest.Server
	st       *store.Bolt
	server   *Server
	engine   *engine.Engine
	ownerKey string
	owner    model.User
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	return newHarnessWith(t, Config{})
}

// newHarnessWith is a harness whose server has cfg's PageBytes and
// StreamHeartbeat, over a store opened with opts.
func newHarnessWith(t testing.TB, cfg Config, opts ...store.Option) *harness {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, st: st, ownerKey: "owner-key"}
	h.owner = model.User{ID: ids.New(ids.User), Username: "owner", Email: "owner@example.com", Plan: model.PlanFree, Owner: true, CreatedAt: time.Now().Unix()}
	if err := st.CreateUser(context.Background(), h.owner, HashKey(h.ownerKey)); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st, Queues: st, Sandbox: sb, Secrets: sealer, PublicURL: "http://fount.test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.engine = eng
	h.server = New(Config{Engine: eng, Records: records.New(records.Config{Store: st, Secrets: sealer}), PublicURL: "http://fount.test", Registry: testRegistry(t, sb), PageBytes: cfg.PageBytes, StreamHeartbeat: cfg.StreamHeartbeat})
	h.srv = httptest.NewServer(h.server.Handler())
	t.Cleanup(func() {
		h.srv.Close()
		eng.Stop()
		st.Close()
	})
	return h
}

func testRegistry(t testing.TB, sb *host.Host) map[string]model.Component {
	code := readTestComponent(t, "http-request.mjs")
	m, err := sb.Introspect(context.Background(), code, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]model.Component{m.Key: {ID: "sc_registryhttp", Key: m.Key, Name: m.Name, Version: m.Version, Code: code, Metadata: *m}}
}

func readTestComponent(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "components", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// response is a decoded API answer.
type response struct {
	status int
	body   map[string]any
	raw    string
}

func (r response) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

func (r response) list() []any {
	d, _ := r.body["data"].([]any)
	return d
}

func (r response) errCode() string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (r response) errParam() string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["param"].(string)
	return s
}

func (r response) pageInfo() map[string]any {
	p, _ := r.body["page_info"].(map[string]any)
	return p
}

// call sends a request with key as the bearer token (none when empty) and
// body as JSON (none when nil).
func (h *harness) call(method, path, key string, body any) response {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return h.send(req)
}

func (h *harness) send(req *http.Request) response {
	h.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, raw: string(raw)}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			h.t.Fatalf("%s %s: response is not JSON: %q", req.Method, req.URL.Path, raw)
		}
	}
	if resp.StatusCode >= 400 && r.errCode() == "" {
		h.t.Fatalf("%s %s: error %d without the error shape: %s", req.Method, req.URL.Path, resp.StatusCode, raw)
	}
	return r
}

// must checks the status of a response.
func (h *harness) must(r response, status int) response {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// newUser creates a user through the API and returns its id and key.
func (h *harness) newUser(username string) (string, string) {
	h.t.Helper()
	r := h.must(h.call("POST", "/v1/users", h.ownerKey, map[string]any{"username": username, "email": username + "@example.com"}), 200)
	return r.data()["id"].(string), r.data()["api_key"].(string)
}

// deploy creates a source from a testdata component.
func (h *harness) deploy(key, file string, props map[string]any, extra map[string]any) response {
	h.t.Helper()
	body := map[string]any{"component_code": readTestComponent(h.t, file), "configured_props": props}
	for k, v := range extra {
		body[k] = v
	}
	return h.call("POST", "/v1/sources/", key, body)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func chiContext(r *http.Request, rctx *chi.Context) context.Context {
	return context.WithValue(r.Context(), chi.RouteCtxKey, rctx)
}
