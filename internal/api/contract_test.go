package api

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestUnknownAndMistypedParameters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		param              string
	}{
		{"an unknown body field", "POST", "/v1/webhooks", map[string]any{"url": "https://example.com", "colour": "red"}, 400, "colour"},
		{"an unknown query parameter", "GET", "/v1/users/me?verbose=1", nil, 400, "verbose"},
		{"a misspelt field", "POST", "/v1/sources", map[string]any{"componentCode": "x"}, 400, "componentCode"},
		{"a body field on a GET", "GET", "/v1/users/me/sources?name=x", nil, 400, "name"},
		{"a mistyped query parameter", "GET", "/v1/users/me/sources?limit=ten", nil, 400, "limit"},
		{"a mistyped body field", "PUT", "/v1/sources/dc_x", map[string]any{"active": "yes"}, 400, "active"},
		{"a required parameter missing", "POST", "/v1/subscriptions?listener_id=wh_x", nil, 400, "emitter_id"},
		{"a query field sent in the body", "POST", "/v1/webhooks", map[string]any{"url": "https://example.com/body"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call(tt.method, tt.path, "owner-key", tt.body)
			if r.status != tt.status || r.errParam() != tt.param {
				t.Fatalf("%d %s; want %d naming %q", r.status, r.raw, tt.status, tt.param)
			}
			if tt.status == 400 && !strings.Contains(r.raw, tt.param) {
				t.Errorf("the message does not name %s: %s", tt.param, r.raw)
			}
		})
	}
	// A scalar body field may come in the query, as the specification
	// allows for POST; the body wins when both are given.
	code := readTestComponent(t, "http-request.mjs")
	r := h.must(h.call("POST", "/v1/sources?name=from-query", "owner-key", map[string]any{"component_code": code}), 200)
	if r.data()["name"] != "from-query" {
		t.Errorf("name in the query: %v", r.data()["name"])
	}
	r = h.must(h.call("POST", "/v1/sources?name=from-query-2", "owner-key", map[string]any{"component_code": code, "name": "from-body"}), 200)
	if r.data()["name"] != "from-body" {
		t.Errorf("body and query: %v, want the body's", r.data()["name"])
	}
}

func TestRecovererAnswersInTheErrorShape(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := New(Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	h := s.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("nil map") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/users/me", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal_error"`) || strings.Contains(rec.Body.String(), "nil map") {
		t.Errorf("a panic answered %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(log.String(), "handler panicked") || !strings.Contains(log.String(), "nil map") {
		t.Errorf("the panic was not logged: %s", log.String())
	}
	abort := s.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if v := recover(); v == nil || !errors.Is(v.(error), http.ErrAbortHandler) {
			t.Errorf("ErrAbortHandler was swallowed: %v", v)
		}
	}()
	abort.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

// TestAPIDoesNotImportHost: the API reaches the sandbox only through the
// engine, so nothing above the engine links wazero.
func TestAPIDoesNotImportHost(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/fount-dev/fount/internal/api").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/fount-dev/fount/internal/host" || strings.HasPrefix(pkg, "github.com/tetratelabs/wazero") {
			t.Errorf("package api depends on %s", pkg)
		}
	}
}

// TestOpenAPIDocumentsTheContract: parameters, bodies and responses come
// from the apiv1 types.
func TestOpenAPIDocumentsTheContract(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	doc := h.must(h.call("GET", "/v1/openapi.json", "", nil), 200).body
	op := func(path, method string) map[string]any {
		return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
	}
	params := map[string]bool{}
	for _, p := range op("/v1/webhooks", "post")["parameters"].([]any) {
		params[p.(map[string]any)["name"].(string)+"@"+p.(map[string]any)["in"].(string)] = true
	}
	for _, want := range []string{"url@query", "name@query", "description@query", "org_id@query"} {
		if !params[want] {
			t.Errorf("POST /v1/webhooks lacks %s: %v", want, params)
		}
	}
	body := op("/v1/sources", "post")["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	schema := doc["components"].(map[string]any)["schemas"].(map[string]any)[strings.TrimPrefix(body["$ref"].(string), "#/components/schemas/")].(map[string]any)
	for _, f := range []string{"component_id", "component_code", "component_url", "name", "configured_props"} {
		if schema["properties"].(map[string]any)[f] == nil {
			t.Errorf("the POST /v1/sources body has no %s", f)
		}
	}
	ok := op("/v1/users/me/sources", "get")["responses"].(map[string]any)["200"].(map[string]any)
	if !strings.Contains(string(mustJSON(t, ok)), "#/components/schemas/PageSource") {
		t.Errorf("the source list's response: %s", string(mustJSON(t, ok)))
	}
	if op("/v1/sources/{id}", "delete")["responses"].(map[string]any)["204"] == nil {
		t.Error("DELETE /v1/sources/{id} does not document its 204")
	}
	// The bodies that are not JSON say what they are.
	for _, tt := range []struct{ path, contentType, schema string }{
		{"/v1/backup", "application/x-tar", "#/components/schemas/TarArchive"},
		{"/v1/sources/{id}/sse", "text/event-stream", "#/components/schemas/EventSummary"},
		{"/v1/workflows/{id}/sse", "text/event-stream", "#/components/schemas/EventSummary"},
	} {
		ok, _ := op(tt.path, "get")["responses"].(map[string]any)["200"].(map[string]any)
		types, _ := ok["content"].(map[string]any)
		content, _ := types[tt.contentType].(map[string]any)
		if schema, _ := content["schema"].(map[string]any); schema["$ref"] != tt.schema {
			t.Errorf("GET %s's 200 is not %s of %s: %s", tt.path, tt.contentType, tt.schema, mustJSON(t, ok))
		}
	}
}

// FuzzDecodeRequest: request decoding never panics on any query and body,
// and what it accepts is a request of the route's type.
func FuzzDecodeRequest(f *testing.F) {
	f.Add(0, "url=https%3A%2F%2Fexample.com&name=a", `{"description":"d"}`)
	f.Add(1, "org_id=o_1&limit=5", `{"component_code":"x","configured_props":{"a":[1,{"b":null}]},"active":false}`)
	f.Add(2, "event_name=%24errors&limit=100&expand=event", ``)
	f.Add(1, "", `{"event":{"deep":[[[]]]},"name":1}`)
	f.Add(3, "a=1&a=2", `[]`)
	s := New(Config{})
	routes := []route{s.routes[0], s.routes[10], s.routes[12], s.routes[14]}
	f.Fuzz(func(t *testing.T, which int, query, body string) {
		if which < 0 {
			which = -which
		}
		rt := routes[which%len(routes)]
		req := httptest.NewRequest(http.MethodPost, "/v1/x", strings.NewReader(body))
		req.URL.RawQuery = query // any bytes a client could send
		req.Header.Set("Content-Type", "application/json")
		rctx := chi.NewRouteContext()
		rctx.URLParams.Add("id", "dc_1")
		req = req.WithContext(chiContext(req, rctx))
		v, err := rt.fields.decode(req)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status > 499 || e.Message == "" {
				t.Fatalf("decode failed with %v, not a 4xx in the error shape", err)
			}
			return
		}
		if reflect.TypeOf(v) != reflect.PointerTo(rt.fields.typ) {
			t.Fatalf("decoded a %T, want *%v", v, rt.fields.typ)
		}
	})
}
