package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// httpRequestSource sends its http_request prop and emits the answer.
const httpRequestSource = `export default {
	name: "http-request", version: "0.1.0",
	props: { req: { type: "http_request", default: { method: "GET" } } },
	async run() {
		try {
			const res = await this.req.execute();
			this.$emit({ status: res.status, data: res.data, echo: res.headers["x-echo"] });
		} catch (e) {
			this.$emit({ error: e.message, status: e.response ? e.response.status : null });
		}
	},
}`

func TestHTTPRequestProp(t *testing.T) {
	t.Parallel()
	var got struct{ method, query, header, body, ctype string }
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.query, got.header, got.body, got.ctype = r.Method, r.URL.RawQuery, r.Header.Get("X-Test"), string(b), r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", "yes")
		if r.URL.Path == "/missing" {
			w.WriteHeader(404)
		}
		fmt.Fprint(w, `{"ok":true}`)
	}))
	t.Cleanup(receiver.Close)
	s := startEngineServer(t) // private egress allowed: the receiver is on loopback
	cfg := map[string]any{"url": receiver.URL + "/hook", "method": "post",
		"headers": []any{map[string]any{"name": "X-Test", "value": "1"}},
		"params":  []any{map[string]any{"name": "q", "value": "a b"}},
		"body":    map[string]any{"contentType": "application/json", "fields": []any{map[string]any{"name": "k", "value": "v"}}}}
	src := s.deploySource(httpRequestSource, map[string]any{"req": cfg})
	s.run(src["id"].(string), nil)
	ev := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any)
	if fmt.Sprint(ev) != "map[data:map[ok:true] echo:yes status:200]" {
		t.Errorf("emitted %v", ev)
	}
	if got.method != "POST" || got.query != "q=a+b" || got.header != "1" || got.body != `{"k":"v"}` || got.ctype != "application/json" {
		t.Errorf("the receiver got %+v", got)
	}

	cfg["url"] = receiver.URL + "/missing"
	src = s.deploySource(httpRequestSource, map[string]any{"req": cfg})
	s.run(src["id"].(string), nil)
	if ev := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any); ev["status"] != float64(404) || !strings.Contains(fmt.Sprint(ev["error"]), "status code 404") {
		t.Errorf("a 404: %v", ev)
	}

	for name, bad := range map[string]any{"not an object": "x", "ftp url": map[string]any{"url": "ftp://x/"}, "bad header": map[string]any{"headers": []any{"x"}}} {
		if st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": httpRequestSource, "configured_props": map[string]any{"req": bad}}); st != 400 {
			t.Errorf("%s: %d %v", name, st, body)
		}
	}
}

// TestHTTPRequestPropEgress: execute() goes through the egress policy: a
// server that refuses private destinations refuses a loopback one.
func TestHTTPRequestPropEgress(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{}, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit <- struct{}{} }))
	t.Cleanup(receiver.Close)
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	src := s.deploySource(httpRequestSource, map[string]any{"req": map[string]any{"url": receiver.URL + "/", "method": "GET"}})
	s.run(src["id"].(string), nil)
	ev := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any)
	if !strings.Contains(fmt.Sprint(ev["error"]), "not allowed") {
		t.Errorf("a loopback request without --allow-private-egress: %v", ev)
	}
	select {
	case <-hit:
		t.Error("the loopback receiver was reached")
	default:
	}
}

// TestEgressIsLoggedAtDebug: a component's request shows in the debug log
// with its method, its destination without the query, and its status;
// the query's token does not.
func TestEgressIsLoggedAtDebug(t *testing.T) {
	t.Parallel()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) }))
	t.Cleanup(receiver.Close)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, LogLevel: slog.LevelDebug})
	src := s.deploySource(`export default { name: "f", version: "1", async run(e) { await fetch(e.url, { method: "PUT" }) } }`, nil)
	s.run(src["id"].(string), map[string]any{"url": receiver.URL + "/hook?token=SECRET123"})
	wait.Poll(eventsDeadline, func() bool { return strings.Contains(s.log.String(), "msg=egress") }) // the check below says what is missing
	log := s.log.String()
	if !strings.Contains(log, "msg=egress method=PUT url="+receiver.URL+"/hook") || !strings.Contains(log, "status=202") || strings.Contains(log, "SECRET123") {
		t.Errorf("log:\n%s", log)
	}
}

// TestWebhookURLTheEgressPolicyRefuses: a webhook whose URL the egress
// policy refuses is a 400 at create that names --allow-private-egress,
// not a webhook whose every delivery fails.
func TestWebhookURLTheEgressPolicyRefuses(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	for _, u := range []string{"http://127.0.0.1:9/hook", "http://localhost:9/hook", "http://[::1]:9/", "http://10.1.2.3/x"} {
		st, body := s.do("POST", "/v1/webhooks?url="+url.QueryEscape(u), nil)
		if e, _ := body["error"].(map[string]any); st != 400 || e["param"] != "url" || !strings.Contains(fmt.Sprint(e["message"]), "--allow-private-egress") {
			t.Errorf("%s: %d %v", u, st, body)
		}
	}
	allowed := startEngineServer(t) // private egress allowed
	if st, body := allowed.do("POST", "/v1/webhooks?url="+url.QueryEscape("http://127.0.0.1:9/hook"), nil); st != 200 {
		t.Errorf("with --allow-private-egress: %d %v", st, body)
	}
}
