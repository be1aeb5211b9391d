package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

const echoSource = `export default { name: "Echo", version: "1.0.0",
	props: { http: "$.interface.http" },
	run(e) { console.log("got", e.method); this.$emit({ body: e.body, path: e.path, q: e.query }, { summary: e.method }) } }`

func TestHTTPSourceToEvents(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(echoSource, nil)
	url := endpointOf(src, "http")
	resp, err := http.Post(url+"/sub/path?x=1", "application/json", strings.NewReader(`{"hello":"world"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"success":true`) {
		t.Fatalf("endpoint answered %d %s", resp.StatusCode, b)
	}
	ev := s.events(src["id"].(string), "", 1)[0]
	if got, _ := json.Marshal(ev["event"]); string(got) != `{"body":{"hello":"world"},"path":"/sub/path","q":{"x":"1"}}` {
		t.Errorf("event = %s", got)
	}
	logs := s.events(src["id"].(string), "$logs", 1)
	if msg := logs[0]["event"].(map[string]any)["message"]; msg != "got POST" {
		t.Errorf("$logs event = %v", logs[0]["event"])
	}
	// Form bodies are parsed; unknown endpoints and oversize bodies refused.
	resp, _ = http.Post(url, "application/x-www-form-urlencoded", strings.NewReader("a=1&b=2"))
	resp.Body.Close()
	evs := s.events(src["id"].(string), "", 2)
	if body := evs[0]["event"].(map[string]any)["body"].(map[string]any); body["a"] != "1" {
		t.Errorf("form body = %v", body)
	}
	if resp, _ := http.Post(url+"x", "text/plain", nil); resp.StatusCode != 404 {
		t.Errorf("unknown endpoint: %d", resp.StatusCode)
	}
	if resp, _ := http.Post(url, "text/plain", bytes.NewReader(make([]byte, 600<<10))); resp.StatusCode != 413 {
		t.Errorf("oversize body: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("OPTIONS", url, nil)
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
	// Inactive: the endpoint answers 404; active again: it works.
	s.do("PUT", "/v1/sources/"+src["id"].(string), map[string]any{"component_id": src["component_id"], "active": false})
	if resp, _ := http.Post(url, "text/plain", nil); resp.StatusCode != 404 {
		t.Errorf("inactive endpoint: %d", resp.StatusCode)
	}
	s.do("PUT", "/v1/sources/"+src["id"].(string), map[string]any{"component_id": src["component_id"], "active": true})
	if resp, _ := http.Post(url, "text/plain", nil); resp.StatusCode != 200 {
		t.Errorf("reactivated endpoint: %d", resp.StatusCode)
	}
}

// TestHTTPEventAsNodeSeesIt: a JSON body reaches run() in the order it was
// sent, as Node's JSON.parse gives it, and the event's fields come in
// Pipedream's order.
func TestHTTPEventAsNodeSeesIt(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "Keys", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ event: Object.keys(e), body: Object.keys(e.body), nested: Object.keys(e.body.m) }) } }`, nil)
	resp, err := http.Post(endpointOf(src, "http"), "application/json", strings.NewReader(`{"z":1,"a":2,"m":{"y":true,"b":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got, _ := json.Marshal(s.events(src["id"].(string), "", 1)[0]["event"])
	if want := `{"body":["z","a","m"],"event":["method","path","query","headers","bodyRaw","body"],"nested":["y","b"]}`; string(got) != want {
		t.Errorf("run() saw %s, want %s", got, want)
	}
}

func TestCustomResponse(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code, _ := readFile("../../testdata/components/http-request.mjs")
	src := s.deploySource(code, map[string]any{"allowedMethods": []string{"POST"}})
	url := endpointOf(src, "http")
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"received":true}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("custom response: %d %q %v", resp.StatusCode, b, resp.Header)
	}
	req, _ := http.NewRequest("DELETE", url, nil)
	resp, _ = http.DefaultClient.Do(req)
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("405 from the component: %d %v", resp.StatusCode, resp.Header)
	}
	silent := s.deploySource(`export default { name: "Silent", version: "1", props: { http: { type: "$.interface.http", customResponse: true } }, run() {} }`, nil)
	resp, _ = http.Post(endpointOf(silent, "http"), "text/plain", nil)
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(b), "without calling respond") {
		t.Fatalf("a run that never responds: %d %s", resp.StatusCode, b)
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

func TestTimerFires(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "Tick", version: "1", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
		run(e) { this.$emit(e) } }`, nil)
	evs := s.events(src["id"].(string), "", 2)
	ev := evs[0]["event"].(map[string]any)
	if ev["interval_seconds"] != float64(1) || ev["timestamp"].(float64) < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("timer event = %v", ev)
	}
}

func TestDedupeAndOrdering(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	mk := func(strategy string) string {
		src := s.deploySource(`export default { name: "D`+strategy+`", version: "1", dedupe: "`+strategy+`",
			run(e) { for (const id of e.ids) this.$emit({ id }, { id }) } }`, nil)
		return src["id"].(string)
	}
	ids := func(id string, want int) string {
		var out []string
		evs := s.events(id, "", want)
		for i := len(evs) - 1; i >= 0; i-- { // oldest first
			out = append(out, fmt.Sprint(evs[i]["event"].(map[string]any)["id"]))
		}
		return strings.Join(out, ",")
	}
	unique := mk("unique")
	s.run(unique, map[string]any{"ids": []any{"a", "b"}})
	s.run(unique, map[string]any{"ids": []any{"b", "c", "a", "d"}})
	if got := ids(unique, 4); got != "a,b,c,d" {
		t.Errorf("unique: %s", got)
	}
	greatest := mk("greatest")
	s.run(greatest, map[string]any{"ids": []any{3, 5}})
	s.run(greatest, map[string]any{"ids": []any{4, 5, 9, 7}})
	if got := ids(greatest, 3); got != "3,5,9" {
		t.Errorf("greatest: %s", got)
	}
	last := mk("last")
	s.run(last, map[string]any{"ids": []any{"x", "y"}})
	s.run(last, map[string]any{"ids": []any{"w", "y", "z"}})
	if got := ids(last, 3); got != "x,y,z" {
		t.Errorf("last: %s", got)
	}
	s.run(last, map[string]any{"ids": []any{"p", "q"}}) // no match: all emitted
	if got := ids(last, 5); got != "x,y,z,p,q" {
		t.Errorf("last without a match: %s", got)
	}
	noID := s.deploySource(`export default { name: "NoID", version: "1", dedupe: "unique", run() { this.$emit({}) } }`, nil)
	s.run(noID["id"].(string), nil)
	errs := s.events(noID["id"].(string), "$errors", 1)
	if msg := errs[0]["event"].(map[string]any)["error"].(map[string]any)["message"]; !strings.Contains(fmt.Sprint(msg), "without an id") {
		t.Errorf("emit without id: %v", msg)
	}

	ordered := s.deploySource(`export default { name: "TS", version: "1", run() {
		this.$emit("c", { ts: 3000 }); this.$emit("a", { ts: 1000 }); this.$emit("b", { ts: 2000 }) } }`, nil)
	s.run(ordered["id"].(string), nil)
	evs := s.events(ordered["id"].(string), "", 3)
	if got := fmt.Sprint(evs[2]["event"], evs[1]["event"], evs[0]["event"]); got != "abc" {
		t.Errorf("ts order (oldest first) = %s", got)
	}
}

func TestErrorsChannel(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "Thrower", version: "1", run(e) { throw new TypeError("bad " + e.n) } }`, nil)
	s.run(src["id"].(string), map[string]any{"n": 7})
	ev := s.events(src["id"].(string), "$errors", 1)[0]["event"].(map[string]any)
	e := ev["error"].(map[string]any)
	if e["name"] != "TypeError" || e["message"] != "bad 7" || !strings.Contains(fmt.Sprint(e["stack"]), "component.mjs") {
		t.Errorf("error = %v", e)
	}
	if ev["original_event"].(map[string]any)["n"] != float64(7) {
		t.Errorf("original event = %v", ev["original_event"])
	}
}

func TestHooksAtDeploy(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": `export default { name: "H", version: "1",
		hooks: { deploy() { throw new Error("no deploying today") } }, run() {} }`})
	if st != 400 || !strings.Contains(fmt.Sprint(body), "no deploying today") {
		t.Fatalf("a throwing deploy hook: %d %v", st, body)
	}
	if _, list := s.do("GET", "/v1/users/me/sources", nil); len(list["data"].([]any)) != 0 {
		t.Errorf("the failed source was stored")
	}
	src := s.deploySource(`export default { name: "H2", version: "1", props: { db: "$.service.db" },
		hooks: { deploy() { this.db.set("n", 41); this.$emit("deployed") } }, run() { this.$emit(this.db.get("n") + 1) } }`, nil)
	s.run(src["id"].(string), nil)
	evs := s.events(src["id"].(string), "", 2)
	if evs[0]["event"] != float64(42) || evs[1]["event"] != "deployed" {
		t.Errorf("events = %v, %v", evs[0]["event"], evs[1]["event"])
	}
}

// receiver is a local webhook endpoint that checks signatures.
type receiver struct {
	mu       sync.Mutex
	failures int // answer 500 to this many requests first
	got      []map[string]any
	bad      []string
	secret   string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(rc.secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if r.Header.Get("webhook-signature") != want || r.Header.Get("Content-Type") != "application/json" {
		rc.bad = append(rc.bad, r.Header.Get("webhook-signature"))
		w.WriteHeader(400)
		return
	}
	if rc.failures > 0 {
		rc.failures--
		w.WriteHeader(500)
		return
	}
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	m["emitter_header"] = r.Header.Get("X-Fount-Emitter-Id")
	rc.got = append(rc.got, m)
}

// webhookTo creates a webhook of the server's caller delivering to rc on a
// local HTTP server (closed when the test ends) and returns its id.
func (s *testServer) webhookTo(rc *receiver) string {
	s.t.Helper()
	return s.webhookServing(rc, rc)
}

// webhookServing is webhookTo with the requests served by h, which hands
// them on to rc.
func (s *testServer) webhookServing(h http.Handler, rc *receiver) string {
	s.t.Helper()
	srv := httptest.NewServer(h)
	s.t.Cleanup(srv.Close)
	st, body := s.do("POST", "/v1/webhooks", map[string]any{"url": srv.URL})
	if st != 200 {
		s.t.Fatalf("create a webhook: %d %v", st, body)
	}
	rc.mu.Lock()
	rc.secret = data(body)["signing_secret"].(string)
	rc.mu.Unlock()
	return data(body)["id"].(string)
}

func (rc *receiver) wait(t testing.TB, n int) []map[string]any {
	t.Helper()
	return wait.For(t, fmt.Sprintf("%d deliveries", n), eventsDeadline, func() ([]map[string]any, bool) {
		rc.mu.Lock()
		got, bad := append([]map[string]any(nil), rc.got...), len(rc.bad)
		rc.mu.Unlock()
		if bad > 0 {
			t.Fatalf("%d deliveries had a bad signature", bad)
		}
		return got, len(got) >= n
	})
}

func TestDeliveryToSourcesAndWebhooks(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	emitter := s.deploySource(`export default { name: "Emitter", version: "1", run(e) { this.$emit(e, { name: e.channel }) } }`, nil)
	listener := s.deploySource(`export default { name: "Listener", version: "1", run(e) { this.$emit({ heard: e.msg }) } }`, nil)
	eid, lid := emitter["id"].(string), listener["id"].(string)
	if st, body := s.do("POST", "/v1/subscriptions?emitter_id="+eid+"&listener_id="+lid, nil); st != 200 {
		t.Fatalf("subscribe: %d %v", st, body)
	}
	rc := &receiver{failures: 1}
	wh := s.webhookTo(rc)
	s.do("POST", "/v1/subscriptions?emitter_id="+eid+"&listener_id="+wh+"&event_name=orders", nil)

	s.run(eid, map[string]any{"msg": "hi"})                      // default channel: to the listener source
	s.run(eid, map[string]any{"msg": "o1", "channel": "orders"}) // orders: to the webhook
	heard := s.events(lid, "", 1)[0]["event"].(map[string]any)
	if heard["heard"] != "hi" {
		t.Errorf("the listener heard %v", heard)
	}
	got := rc.wait(t, 1)[0]
	if got["event"].(map[string]any)["msg"] != "o1" || got["metadata"].(map[string]any)["name"] != "orders" || got["emitter_header"] != eid {
		t.Errorf("webhook got %v", got)
	}
	// The receiver has the event; the record of the attempt follows it.
	d := wait.For(t, "the delivery's record", eventsDeadline, func() (map[string]any, bool) {
		_, dl := s.do("GET", "/v1/webhooks/"+wh+"/deliveries", nil)
		d := dl["data"].([]any)[0].(map[string]any)
		return d, d["status"] == "delivered"
	})
	if len(d["attempts"].([]any)) != 2 {
		t.Errorf("delivery after a 500 then a 200: %v", d)
	}
}

func TestAutoSubscriptionOnlyForLaterSources(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	thrower := `export default { name: "T", version: "1", run() { throw new Error("boom") } }`
	before := s.deploySource(thrower, nil)
	rc := &receiver{}
	wh := s.webhookTo(rc)
	// In the same second as the source before it: creation order, not the
	// clock, decides.
	if st, b := s.do("POST", "/v1/auto_subscriptions?event_name=$errors&listener_id="+wh, nil); st != 200 {
		t.Fatalf("auto subscription: %d %v", st, b)
	}
	after := s.deploySource(thrower, nil)
	s.run(before["id"].(string), nil)
	s.run(after["id"].(string), nil)
	s.events(before["id"].(string), "$errors", 1)
	s.events(after["id"].(string), "$errors", 1)
	// A run's deliveries are queued in the commit that stores its events.
	_, dl := s.do("GET", "/v1/webhooks/"+wh+"/deliveries", nil)
	if list := dl["data"].([]any); len(list) != 1 || list[0].(map[string]any)["emitter_id"] != after["id"] {
		t.Errorf("deliveries %v: want only the later source's error", list)
	}
	if got := rc.wait(t, 1); got[0]["emitter_header"] != after["id"] {
		t.Errorf("the webhook got %v", got)
	}
}

func TestQuota(t *testing.T) {
	t.Parallel()
	server := startServer(t, server.Config{BootstrapKey: ownerKey, QuotaInvocations: 3})
	s := server.newUser("tenant", "free") // the owner has no daily quota
	src := s.deploySource(echoSource, nil)
	url := endpointOf(src, "http")
	for i := range 3 {
		resp, err := http.Post(url, "text/plain", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %v %v", i, err, resp)
		}
		resp.Body.Close()
		s.events(src["id"].(string), "", i+1)
	}
	_, me := s.do("GET", "/v1/users/me", nil)
	if u := data(me); u["daily_invocations_used"] != float64(3) || u["daily_invocations_quota"] != float64(3) || u["daily_compute_time_used"].(float64) < 3 {
		t.Errorf("users/me = %v", u)
	}
	// The ingress trusts a quota check for a second.
	wait.For(t, "429 over the quota", eventsDeadline, func() (int, bool) {
		resp, err := http.Post(url, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.StatusCode == http.StatusTooManyRequests
	})
}

func TestSelfSubscriptionLoopIsBounded(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "Loop", version: "1", run(e) { this.$emit({ depth: (e.depth || 0) + 1 }) } }`, nil)
	id := src["id"].(string)
	s.do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+id, nil)
	s.run(id, map[string]any{})
	errs := s.events(id, "$errors", 1)
	if msg := fmt.Sprint(errs[0]["event"].(map[string]any)["error"].(map[string]any)["message"]); !strings.Contains(msg, "limit of 8 hops") {
		t.Errorf("loop error: %s", msg)
	}
	evs := s.events(id, "", 9)
	if len(evs) != 9 || evs[0]["event"].(map[string]any)["depth"] != float64(9) {
		t.Errorf("the chain ran %d times, deepest %v; want 9 (the run and 8 hops)", len(evs), evs[0]["event"])
	}
}

func TestTimerSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{DataDir: dir, BootstrapKey: ownerKey})
	src := s.deploySource(`export default { name: "Tick", version: "1", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
		run(e) { this.$emit(e) } }`, nil)
	id := src["id"].(string)
	s.events(id, "", 1)
	s.stop()
	s2 := startServer(t, server.Config{DataDir: dir})
	s2.key = ownerKey
	_, body := s2.do("GET", "/v1/sources/"+id+"/event_summaries?limit=100", nil)
	before := len(body["data"].([]any))
	s2.events(id, "", before+2)
}

// TestDelayedEmits: a delayed emit waits on $in across a restart and is
// released at its time; one too far ahead fails the run. (Cancelling is
// tested with a fake clock in package engine.)
func TestDelayedEmits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{DataDir: dir, BootstrapKey: ownerKey})
	src := s.deploySource(`export default { name: "Later", version: "1", run(e) {
		this.$emit({ n: e.n }, { id: String(e.n), name: "later", summary: "n" + e.n, delivery_ts: Date.now() + e.wait }) } }`, nil)
	id := src["id"].(string)
	s.run(id, map[string]any{"n": 1, "wait": 1500})
	s.run(id, map[string]any{"n": 2, "wait": 3600000})
	// Each carries the id the component gave it, as Pipedream's REST
	// client looks delayed events up (to cancel them) by it.
	for _, w := range s.events(id, "$in", 2) {
		if m := w["metadata"].(map[string]any); m["id"] != "1" && m["id"] != "2" {
			t.Errorf("a waiting event's metadata lacks its id: %v", m)
		}
	}
	// Restart before the first is due: the delay survives it.
	s.stop()
	s2 := startServer(t, server.Config{DataDir: dir})
	s2.key = ownerKey
	got := s2.events(id, "later", 1)
	if m := got[0]["metadata"].(map[string]any); got[0]["event"].(map[string]any)["n"] != float64(1) || m["summary"] != "n1" || m["id"] != "1" {
		t.Errorf("released = %v", got[0])
	}
	if waiting := s2.events(id, "$in", 1); len(waiting) != 1 || waiting[0]["event"].(map[string]any)["event"].(map[string]any)["n"] != float64(2) {
		t.Errorf("still waiting: %v, want only n=2", waiting)
	}
	st, body := s2.do("POST", "/v1/sources", map[string]any{"component_code": `export default { name: "TooLate", version: "1", run() { this.$emit(1, { delivery_ts: Date.now() + 400 * 86400000 }) } }`})
	if st != 200 {
		t.Fatal(body)
	}
	s2.run(data(body)["id"].(string), nil)
	errs := s2.events(data(body)["id"].(string), "$errors", 1)
	if !strings.Contains(fmt.Sprint(errs[0]["event"]), "more than a year ahead") {
		t.Errorf("a delay over a year: %v", errs[0]["event"])
	}
}

// TestOrgMemberSubscriptionIsDelivered: a member who did not create an org
// source subscribes to it; the event reaches the member's webhook.
func TestOrgMemberSubscriptionIsDelivered(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	_, org := s.do("POST", "/v1/orgs", map[string]any{"orgname": "team"})
	orgID := data(org)["id"].(string)
	_, carol := s.do("POST", "/v1/users", map[string]any{"username": "carol", "email": "carol@example.com"})
	s.do("POST", "/v1/orgs/"+orgID+"/members", map[string]any{"user_id": data(carol)["id"]})
	st, body := s.do("POST", "/v1/sources?org_id="+orgID, map[string]any{"component_code": `export default { name: "Org", version: "1", run(e) { this.$emit({ n: e.n }) } }`})
	if st != 200 {
		t.Fatalf("org source: %d %v", st, body)
	}
	src := data(body)["id"].(string)

	rc := &receiver{}
	asCarol := &testServer{t: t, base: s.base, key: data(carol)["api_key"].(string)}
	hook := asCarol.webhookTo(rc)
	if st, b := asCarol.do("POST", "/v1/subscriptions?emitter_id="+src+"&listener_id="+hook, nil); st != 200 {
		t.Fatalf("carol subscribes: %d %v", st, b)
	}
	asCarol.run(src, map[string]any{"n": 5})
	if got := rc.wait(t, 1)[0]; got["event"].(map[string]any)["n"] != float64(5) {
		t.Errorf("carol's webhook got %v", got)
	}
}

// TestOwnerHasNoDailyQuota: the owner of a fresh server runs it and is
// not held to the free plan's daily quota; users it creates are.
func TestOwnerHasNoDailyQuota(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, QuotaInvocations: 1})
	src := s.deploySource(echoSource, nil)
	for i := range 3 {
		resp, err := http.Post(endpointOf(src, "http"), "text/plain", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("the owner's request %d: %v %v", i, err, resp)
		}
		resp.Body.Close()
		s.events(src["id"].(string), "", i+1)
	}
	_, me := s.do("GET", "/v1/users/me", nil)
	if u := data(me); u["daily_invocations_quota"] != nil || u["billing_period_invocations"] != float64(3) {
		t.Errorf("the owner's users/me = %v: want no daily quota and 3 invocations this period", u)
	}
}
