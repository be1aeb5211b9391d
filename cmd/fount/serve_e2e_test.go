package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
)

func TestServeBootstrapsOwnerKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{DataDir: dir})
	keyFile := filepath.Join(dir, "owner.key")
	info, err := os.Stat(keyFile)
	if err != nil {
		t.Fatalf("owner.key: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("owner.key mode %v, want 0600", info.Mode().Perm())
	}
	raw, _ := os.ReadFile(keyFile)
	s.key = strings.TrimSpace(string(raw))
	if !strings.Contains(s.stdout.String(), s.key) {
		t.Errorf("the generated key was not printed")
	}
	if code, me := s.do("GET", "/v1/users/me", nil); code != 200 || data(me)["username"] != "owner" {
		t.Fatalf("users/me with the generated key: %d %v", code, me)
	}
	s.stop()

	// A restart keeps the owner and does not print a key again.
	s2 := startServer(t, server.Config{DataDir: dir})
	s2.key = s.key
	if code, _ := s2.do("GET", "/v1/users/me", nil); code != 200 {
		t.Fatalf("after restart: %d", code)
	}
	if strings.Contains(s2.stdout.String(), s.key) {
		t.Errorf("the key was printed again on restart")
	}
}

// TestServeEndToEnd drives every resource through a real fount serve.
func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	code, err := os.ReadFile("../../testdata/components/http-request.mjs")
	if err != nil {
		t.Fatal(err)
	}
	codeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(code) }))
	defer codeSrv.Close()

	s := startServer(t, server.Config{BootstrapKey: "boot-key-0123456789abcdef0123456789ab", PublicURL: "https://api.example.com/", EndpointURL: "https://hooks.example.com/", AllowPrivateEgress: true})

	st, body := s.do("POST", "/v1/components", map[string]any{"component_url": codeSrv.URL + "/c.mjs"})
	if st != 200 || data(body)["name"] != "New Requests" {
		t.Fatalf("component from component_url: %d %v", st, body)
	}
	comp := data(body)["id"].(string)
	st, body = s.do("POST", "/v1/sources/", map[string]any{"component_id": comp, "configured_props": map[string]any{"token": "t0ken"}})
	if st != 200 {
		t.Fatalf("create source: %d %v", st, body)
	}
	src := data(body)
	endpoint := src["configured_props"].(map[string]any)["http"].(map[string]any)["endpoint_url"].(string)
	if !strings.HasPrefix(endpoint, "https://hooks.example.com/h/") {
		t.Errorf("endpoint_url %q does not use --endpoint-url", endpoint)
	}
	id := src["id"].(string)
	st, body = s.do("PUT", "/v1/sources/"+id, map[string]any{"component_id": comp, "active": false})
	if st != 200 || data(body)["active"] != false || data(body)["id"] != id {
		t.Errorf("update: %d %v", st, body)
	}
	st, body = s.do("POST", "/v1/webhooks?url=https%3A%2F%2Fexample.com%2Fin", nil)
	if st != 200 {
		t.Fatalf("webhook: %d %v", st, body)
	}
	wh := data(body)["id"].(string)
	if st, body = s.do("POST", fmt.Sprintf("/v1/subscriptions?emitter_id=%s&listener_id=%s", id, wh), nil); st != 200 {
		t.Errorf("subscription: %d %v", st, body)
	}
	if st, body = s.do("POST", "/v1/auto_subscriptions?event_name=$logs&listener_id="+wh, nil); st != 200 {
		t.Errorf("auto subscription: %d %v", st, body)
	}
	for _, path := range []string{"/v1/users/me/sources/", "/v1/users/me/webhooks", "/v1/users/me/subscriptions", "/v1/sources/" + id + "/event_summaries", "/v1/components/" + comp, "/v1/components/registry/rss-new-item-in-feed", "/v1/users/me"} {
		if st, body := s.do("GET", path, nil); st != 200 {
			t.Errorf("GET %s: %d %v", path, st, body)
		}
	}
	if st, _ := s.do("DELETE", "/v1/sources/"+id+"/events", nil); st != 202 {
		t.Errorf("delete events: %d", st)
	}
	if st, _ := s.do("DELETE", fmt.Sprintf("/v1/subscriptions?emitter_id=%s&listener_id=%s&event_name=", id, wh), nil); st != 204 {
		t.Errorf("delete subscription: %d", st)
	}
	if st, _ := s.do("DELETE", "/v1/sources/"+id, nil); st != 204 {
		t.Errorf("delete source: %d", st)
	}
	if st, _ := s.do("DELETE", "/v1/webhooks/"+wh, nil); st != 204 {
		t.Errorf("delete webhook: %d", st)
	}
	if st, _ := s.do("GET", "/v1/workflows/p_x/event_summaries", nil); st != 404 {
		t.Errorf("workflow: %d", st)
	}
	resp, err := http.Get(s.base + "/v1/openapi.json")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi without a key: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestServeRefusesPrivateComponentURL: without --allow-private-egress a
// component_url on loopback is refused by the egress policy.
func TestServeRefusesPrivateComponentURL(t *testing.T) {
	t.Parallel()
	codeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer codeSrv.Close()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	st, body := s.do("POST", "/v1/components", map[string]any{"component_url": codeSrv.URL})
	if st != 400 || !strings.Contains(fmt.Sprint(body), "component_url") {
		t.Fatalf("private component_url: %d %v", st, body)
	}
}

// TestEndpointURLsFollowTheEndpointURL: the store keeps endpoint tokens,
// so a restart with another --endpoint-url shows every endpoint under it.
func TestEndpointURLsFollowTheEndpointURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{DataDir: dir, BootstrapKey: ownerKey, PublicURL: "https://api.example.com", EndpointURL: "https://old.example.com"})
	src := s.deploySource(echoSource, nil)
	old := endpointOf(src, "http")
	if !strings.HasPrefix(old, "https://old.example.com/h/") {
		t.Fatalf("endpoint %s", old)
	}
	s.stop()
	s2 := startServer(t, server.Config{DataDir: dir, PublicURL: "https://api.example.com", EndpointURL: "https://new.example.com/"})
	s2.key = ownerKey
	_, body := s2.do("GET", "/v1/users/me/sources", nil)
	moved := endpointOf(body["data"].([]any)[0].(map[string]any), "http")
	token := strings.TrimPrefix(old, "https://old.example.com")
	if moved != "https://new.example.com"+token {
		t.Errorf("after the restart the endpoint is %s, want it under the new endpoint URL", moved)
	}
	// The endpoint itself answers on the server, whatever its URL.
	resp, err := http.Post(s2.endpoints+token, "application/json", strings.NewReader(`{"x":1}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST to the endpoint: %v %v", resp, err)
	}
	resp.Body.Close()
	s2.events(src["id"].(string), "", 1)
}
