package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/webhook"
)

// received is one delivery as a receiver saw it.
type received struct {
	path, id, ts, sig string
	body              []byte
}

func signedReceiver(t *testing.T) (*httptest.Server, func() []received) {
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.URL.Path, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), b})
		mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return append([]received(nil), got...)
	}
}

// verifies reports whether the delivery verifies with secret, as a
// receiver using the public webhook package checks it.
func verifies(t *testing.T, secret string, r received) bool {
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(webhook.HeaderID, r.id)
	h.Set(webhook.HeaderTimestamp, r.ts)
	h.Set(webhook.HeaderSignature, r.sig)
	err = v.Verify(h, r.body)
	if err != nil && !errors.Is(err, webhook.ErrNoMatch) {
		t.Errorf("verify %s: %v", r.id, err)
	}
	return err == nil
}

// TestWebhookEditAndRotate: a webhook's URL and name can be edited; a
// rotation shows the new secret once, and both secrets sign during the
// overlap, as Standard Webhooks allows; with no overlap only the new one.
func TestWebhookEditAndRotate(t *testing.T) {
	t.Parallel()
	rcv, got := signedReceiver(t)
	s := startEngineServer(t)
	_, body := s.do("POST", "/v1/webhooks?url="+rcv.URL+"/a", nil)
	hook := data(body)
	id, first := hook["id"].(string), hook["signing_secret"].(string)
	src := s.deploySource(`export default { name: "e", version: "1", run(e) { this.$emit(e) } }`, nil)
	s.do("POST", "/v1/subscriptions?emitter_id="+src["id"].(string)+"&listener_id="+id, nil)
	wait := func(n int) []received { return waitReceived(t, got, n) }
	s.run(src["id"].(string), map[string]any{"n": 1})
	if g := wait(1); g[0].path != "/a" || !verifies(t, first, g[0]) {
		t.Errorf("first delivery %+v", g[0])
	}

	st, body := s.do("PUT", "/v1/webhooks/"+id, map[string]any{"url": rcv.URL + "/b", "name": "renamed"})
	if st != 200 || data(body)["url"] != rcv.URL+"/b" || data(body)["name"] != "renamed" || data(body)["signing_secret"] != nil {
		t.Fatalf("edit: %d %v", st, body)
	}
	st, body = s.do("POST", "/v1/webhooks/"+id+"/rotate", map[string]any{"overlap_seconds": 3600})
	second, _ := data(body)["signing_secret"].(string)
	if st != 200 || second == "" || second == first {
		t.Fatalf("rotate: %d %v", st, body)
	}
	s.run(src["id"].(string), map[string]any{"n": 2})
	if g := wait(2)[1]; g.path != "/b" || !verifies(t, second, g) || !verifies(t, first, g) {
		t.Errorf("during the overlap: %+v, want both secrets' signatures at /b", g)
	}
	_, body = s.do("POST", "/v1/webhooks/"+id+"/rotate", map[string]any{"overlap_seconds": 0})
	third := data(body)["signing_secret"].(string)
	s.run(src["id"].(string), map[string]any{"n": 3})
	if g := wait(3)[2]; !verifies(t, third, g) || verifies(t, second, g) || len(strings.Fields(g.sig)) != 1 {
		t.Errorf("after a rotation without overlap: %q", g.sig)
	}
	for name, b := range map[string]any{"ftp url": map[string]any{"url": "ftp://x/"}, "long overlap": map[string]any{"overlap_seconds": 9999999}} {
		path := "/v1/webhooks/" + id
		method := "PUT"
		if name == "long overlap" {
			path, method = path+"/rotate", "POST"
		}
		if st, body := s.do(method, path, b); st != 400 {
			t.Errorf("%s: %d %v", name, st, body)
		}
	}
	eve := s.newUser("eve", "")
	if st, _ := eve.do("POST", "/v1/webhooks/"+id+"/rotate", nil); st != 404 {
		t.Errorf("another user's rotate: %d", st)
	}
}

// TestResendDelivery: a delivery can be sent again, with its id and body;
// another webhook's delivery, or an unknown one, is a 404.
func TestResendDelivery(t *testing.T) {
	t.Parallel()
	rcv, got := signedReceiver(t)
	s := startEngineServer(t)
	_, body := s.do("POST", "/v1/webhooks?url="+rcv.URL+"/r", nil)
	id := data(body)["id"].(string)
	src := s.deploySource(`export default { name: "r", version: "1", run(e) { this.$emit(e) } }`, nil)
	s.do("POST", "/v1/subscriptions?emitter_id="+src["id"].(string)+"&listener_id="+id, nil)
	s.run(src["id"].(string), map[string]any{"n": 1})
	waitN := func(n int) []received { return waitReceived(t, got, n) }
	first := waitN(1)[0]
	delivery := wait.For(t, "the delivery's record", eventsDeadline, func() (string, bool) {
		_, body := s.do("GET", "/v1/webhooks/"+id+"/deliveries", nil)
		if items := body["data"].([]any); len(items) > 0 && items[0].(map[string]any)["status"] == "delivered" {
			return items[0].(map[string]any)["id"].(string), true
		}
		return "", false
	})
	if st, body := s.do("POST", "/v1/webhooks/"+id+"/deliveries/"+delivery+"/resend", nil); st != 202 {
		t.Fatalf("resend: %d %v", st, body)
	}
	again := waitN(2)[1]
	if again.id != first.id || string(again.body) != string(first.body) {
		t.Errorf("resent %q %s, want the first's id %q and body", again.id, again.body, first.id)
	}
	_, other := s.do("POST", "/v1/webhooks?url="+rcv.URL+"/o", nil)
	for _, path := range []string{"/v1/webhooks/" + data(other)["id"].(string) + "/deliveries/" + delivery + "/resend", "/v1/webhooks/" + id + "/deliveries/nope/resend"} {
		if st, _ := s.do("POST", path, nil); st != 404 {
			t.Errorf("%s: %d, want 404", path, st)
		}
	}
}

// TestWebhooksCLI: fount webhooks deliveries, resend and rotate.
func TestWebhooksCLI(t *testing.T) {
	e := newCLIEnv(t)
	rcv, got := signedReceiver(t)
	hook := strings.TrimSpace(e.mustFount("webhooks", "create", rcv.URL+"/c", "--quiet"))
	src := e.srv.deploySource(`export default { name: "c", version: "1", run(e) { this.$emit(e) } }`, nil)
	e.srv.do("POST", "/v1/subscriptions?emitter_id="+src["id"].(string)+"&listener_id="+hook, nil)
	followed, stopFollow := e.background("webhooks", "deliveries", hook, "--follow")
	e.srv.run(src["id"].(string), map[string]any{"n": 1})
	waitFor(t, followed, "delivered  attempts 1")
	if code := stopFollow(); code != exitOK {
		t.Errorf("deliveries --follow exited %d", code)
	}
	delivery := wait.For(t, "the delivery in fount webhooks deliveries", eventsDeadline, func() (string, bool) {
		if out := e.mustFount("webhooks", "deliveries", hook); strings.Contains(out, "delivered") {
			return strings.Fields(strings.Split(out, "\n")[1])[0], true
		}
		return "", false
	})
	if got := strings.TrimSpace(e.mustFount("webhooks", "resend", hook, delivery, "--quiet")); got != delivery {
		t.Errorf("resend --quiet = %q, want %s", got, delivery)
	}
	if n := len(waitReceived(t, got, 2)); n != 2 {
		t.Errorf("%d deliveries received, want the first and its resend", n)
	}
	if out := e.mustFount("webhooks", "rotate", hook, "--overlap", "1h"); !strings.Contains(out, "new signing secret (shown once): whsec_") || !strings.Contains(out, "1h0m0s") {
		t.Errorf("rotate: %q", out)
	}
}

// waitReceived waits until the receiver got n deliveries.
func waitReceived(t *testing.T, got func() []received, n int) []received {
	t.Helper()
	return wait.For(t, fmt.Sprintf("%d deliveries", n), eventsDeadline, func() ([]received, bool) {
		g := got()
		return g, len(g) >= n
	})
}

// TestReplayToWebhook: a time range of a source's kept events is
// delivered again to a webhook, oldest first; a source the caller cannot
// see is a 404.
func TestReplayToWebhook(t *testing.T) {
	t.Parallel()
	rcv, got := signedReceiver(t)
	s := startEngineServer(t)
	_, body := s.do("POST", "/v1/webhooks?url="+rcv.URL+"/replay", nil)
	hook := data(body)["id"].(string)
	src := s.deploySource(`export default { name: "rp", version: "1", run(e) { this.$emit(e) } }`, nil)
	for i := range 3 {
		s.run(src["id"].(string), map[string]any{"n": i})
	}
	evs := s.events(src["id"].(string), "", 3) // newest first
	from := int64(evs[1]["indexed_at_ms"].(float64))
	// The oldest event may share its millisecond with the second: then
	// the range holds all three.
	want := 2
	if int64(evs[2]["indexed_at_ms"].(float64)) >= from {
		want = 3
	}
	st, body := s.do("POST", "/v1/webhooks/"+hook+"/replay", map[string]any{"emitter_id": src["id"], "from_ms": from})
	if st != 202 || len(data(body)["deliveries"].([]any)) != want {
		t.Fatalf("replay: %d %v, want %d deliveries", st, body, want)
	}
	g := waitReceived(t, got, want)
	if !strings.Contains(string(g[want-2].body), `"n":1`) || !strings.Contains(string(g[want-1].body), `"n":2`) {
		t.Errorf("replayed %s then %s, want n 1 then 2", g[want-2].body, g[want-1].body)
	}
	eve := s.newUser("eve", "")
	_, eh := eve.do("POST", "/v1/webhooks?url="+rcv.URL+"/eve", nil)
	if st, body := eve.do("POST", "/v1/webhooks/"+data(eh)["id"].(string)+"/replay", map[string]any{"emitter_id": src["id"]}); st != 404 {
		t.Errorf("a replay of another user's source: %d %v, want 404", st, body)
	}
}
