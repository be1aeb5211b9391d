package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name, header string
		want         int
	}{
		{"no header", "", 401},
		{"unknown key", "Bearer nope", 401},
		{"wrong scheme", "Basic owner-key", 401},
		{"empty bearer", "Bearer ", 401},
		{"valid", "Bearer owner-key", 200},
		{"scheme is case-insensitive", "bearer owner-key", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", h.srv.URL+"/v1/users/me", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			r := h.send(req)
			if r.status != tt.want {
				t.Fatalf("status %d, want %d", r.status, tt.want)
			}
			if tt.want == 401 && r.errCode() != "unauthorized" {
				t.Fatalf("error code %q", r.errCode())
			}
		})
	}
	for _, path := range []string{"/v1/openapi.json", "/healthz"} {
		if r := h.call("GET", path, "", nil); r.status != 200 {
			t.Errorf("GET %s without a key = %d, want 200", path, r.status)
		}
	}
}

func TestContentTypeAndBody(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	send := func(ct, body string) response {
		req, _ := http.NewRequest("POST", h.srv.URL+"/v1/webhooks", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer owner-key")
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		return h.send(req)
	}
	if r := send("text/plain", `{"url":"https://example.com"}`); r.status != 415 || r.errCode() != "unsupported_media_type" {
		t.Errorf("text/plain body: %d %s", r.status, r.raw)
	}
	if r := send("", `{"url":"https://example.com"}`); r.status != 415 {
		t.Errorf("body without content type: %d", r.status)
	}
	if r := send("application/json; charset=utf-8", `{"url":"https://example.com"}`); r.status != 200 {
		t.Errorf("json with charset: %d %s", r.status, r.raw)
	}
	if r := send("application/json", `[1,2]`); r.status != 400 {
		t.Errorf("a non-object body: %d", r.status)
	}
	if r := send("application/json", `{"url": 5}`); r.status != 400 || r.errParam() != "url" {
		t.Errorf("a non-string url: %d %s", r.status, r.raw)
	}
	big := `{"url":"https://example.com","name":"` + strings.Repeat("x", maxBody) + `"}`
	if r := send("application/json", big); r.status != 413 {
		t.Errorf("an oversize body: %d", r.status)
	}
	// Query parameters work on POST without any body, as the spec's
	// webhook and subscription endpoints take them.
	req, _ := http.NewRequest("POST", h.srv.URL+"/v1/webhooks?url=https%3A%2F%2Fexample.com%2Fq&name=q", nil)
	req.Header.Set("Authorization", "Bearer owner-key")
	if r := h.send(req); r.status != 200 || r.data()["url"] != "https://example.com/q" || r.data()["name"] != "q" {
		t.Errorf("query parameters on POST: %d %s", r.status, r.raw)
	}
}

func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if r := h.call("GET", "/v1/nope", "owner-key", nil); r.status != 404 || r.errCode() != "route_not_found" {
		t.Errorf("unknown route: %d %s", r.status, r.raw)
	}
	if r := h.call("PATCH", "/v1/sources/dc_x", "owner-key", nil); r.status != 405 {
		t.Errorf("wrong method: %d %s", r.status, r.raw)
	}
}

// TestOpenAPICoversEveryRoute walks the real router and checks that every
// route and method is in the served OpenAPI document, and nothing else.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.must(h.call("GET", "/v1/openapi.json", "", nil), 200)
	if r.body["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v", r.body["openapi"])
	}
	paths := r.body["paths"].(map[string]any)
	documented := map[string]bool{}
	for path, ops := range paths {
		for method := range ops.(map[string]any) {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	routed := map[string]bool{}
	err := chi.Walk(h.server.Handler().(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(strings.ReplaceAll(route, "/*/", "/"), "/")
		routed[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rt := range routed {
		if !documented[rt] {
			t.Errorf("route %s is not in the OpenAPI document", rt)
		}
	}
	for d := range documented {
		if !routed[d] {
			t.Errorf("the OpenAPI document lists %s, which is not routed", d)
		}
	}
	ext := paths["/v1/users"].(map[string]any)["post"].(map[string]any)
	if ext["x-fount-extension"] != true {
		t.Errorf("POST /v1/users is not marked as an extension")
	}
}

func TestIncludeExclude(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.must(h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": "https://example.com/a", "name": "a"}), 200)
	r := h.must(h.call("GET", "/v1/users/me/webhooks?include=id,url", "owner-key", nil), 200)
	item := r.list()[0].(map[string]any)
	if len(item) != 2 || item["id"] == nil || item["url"] == nil {
		t.Errorf("include=id,url gave %v", item)
	}
	if r.pageInfo()["total_count"] == nil {
		t.Errorf("include must not touch page_info: %s", r.raw)
	}
	r = h.must(h.call("GET", "/v1/users/me/webhooks?exclude=url,%20name", "owner-key", nil), 200)
	item = r.list()[0].(map[string]any)
	if item["url"] != nil || item["name"] != nil || item["id"] == nil {
		t.Errorf("exclude=url,name gave %v", item)
	}
	r = h.must(h.call("GET", "/v1/users/me?include=username", "owner-key", nil), 200)
	if len(r.data()) != 1 || r.data()["username"] != "owner" {
		t.Errorf("include on a single object: %v", r.data())
	}
	// On POST, include may come in the body like any query parameter.
	r = h.must(h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": "https://example.com/b", "include": "id"}), 200)
	if len(r.data()) != 1 || r.data()["id"] == nil {
		t.Errorf("include in the body: %v", r.data())
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var ids []string
	for i := range 25 {
		r := h.must(h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": fmt.Sprintf("https://example.com/%d", i)}), 200)
		ids = append(ids, r.data()["id"].(string))
	}
	list := func(q string) response { return h.call("GET", "/v1/users/me/webhooks"+q, "owner-key", nil) }
	idsOf := func(r response) []string {
		var out []string
		for _, it := range r.list() {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}

	for _, bad := range []string{"?limit=0", "?limit=101", "?limit=-1", "?limit=abc", "?after=x&before=y", "?after=bogus"} {
		if r := list(bad); r.status != 400 {
			t.Errorf("%s: status %d, want 400", bad, r.status)
		}
	}
	r := h.must(list(""), 200)
	if len(r.list()) != 10 || r.pageInfo()["total_count"].(float64) != 25 || r.pageInfo()["count"].(float64) != 10 {
		t.Fatalf("default page: %d items, page_info %v", len(r.list()), r.pageInfo())
	}
	for _, lim := range []int{1, 100} {
		r := h.must(list(fmt.Sprintf("?limit=%d", lim)), 200)
		if want := min(lim, 25); len(r.list()) != want {
			t.Errorf("limit=%d gave %d items", lim, len(r.list()))
		}
	}

	// Forward through every page with after; creation order, no gaps.
	var seen []string
	cursor := ""
	for range 10 {
		r := h.must(list("?limit=7&after="+cursor), 200)
		seen = append(seen, idsOf(r)...)
		if len(r.list()) < 7 {
			break
		}
		cursor = r.pageInfo()["end_cursor"].(string)
	}
	if strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Fatalf("paging forward gave %v,\nwant %v", seen, ids)
	}
	// Backward from the last page with before.
	last := h.must(list("?limit=5&after="+cursor), 200)
	_ = last
	r = h.must(list("?limit=25"), 200)
	endCursor := r.pageInfo()["end_cursor"].(string)
	back := h.must(list("?limit=5&before="+endCursor), 200)
	if got := idsOf(back); strings.Join(got, ",") != strings.Join(ids[19:24], ",") {
		t.Errorf("before the last item: %v, want %v", got, ids[19:24])
	}
	start := back.pageInfo()["start_cursor"].(string)
	back2 := h.must(list("?limit=5&before="+start), 200)
	if got := idsOf(back2); strings.Join(got, ",") != strings.Join(ids[14:19], ",") {
		t.Errorf("paging backward: %v, want %v", got, ids[14:19])
	}
}

func TestErrorShapeNeverLeaksInternals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.call("GET", "/v1/components/sc_doesnotexist", "owner-key", nil)
	if r.status != 404 || r.errCode() != "not_found" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var shape map[string]map[string]string
	if err := json.Unmarshal([]byte(r.raw), &shape); err != nil || shape["error"]["message"] == "" {
		t.Fatalf("error shape: %s", r.raw)
	}
}
