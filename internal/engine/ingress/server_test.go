package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/internal/wait"
)

// fakeHost records what the ingress asks of it.
type fakeHost struct {
	mu       sync.Mutex
	over     bool
	full     bool
	failing  error
	queued   []model.Invocation
	paused   map[string]store.PausedEntry // by execution id
	resumes  []string                     // "execution action data"
	requests []json.RawMessage            // of resumes
	reads    int                          // of paused entries
}

func (h *fakeHost) OverQuota(context.Context, string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.over, nil
}

func (h *fakeHost) Enqueue(_ context.Context, inv model.Invocation, size int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.failing != nil:
		return h.failing
	case h.full:
		return fmt.Errorf("the queue is full: %d runs wait: %w", size, store.ErrQueueFull)
	}
	h.queued = append(h.queued, inv)
	return nil
}

func (h *fakeHost) ReplyAddress(key string) string { return "node1/" + key }

func (h *fakeHost) PausedEntry(_ context.Context, _, executionID string) (store.PausedEntry, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads++
	e, ok := h.paused[executionID]
	return e, ok, nil
}

func (h *fakeHost) Resume(_ context.Context, _, executionID, action string, data, request json.RawMessage) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resumes = append(h.resumes, executionID+" "+action+" "+string(data))
	h.requests = append(h.requests, request)
	return nil
}

func (h *fakeHost) invocations() []model.Invocation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]model.Invocation(nil), h.queued...)
}

// newTestServer is a started Server on host with an endpoint "tok" of
// source dc_a; ep changes the endpoint.
func newTestServer(t *testing.T, host *fakeHost, clk clock.Clock, ep func(*Endpoint)) *Server {
	t.Helper()
	s := New(Config{Clock: clk, Logger: slog.New(slog.DiscardHandler), MaxBody: 32, BodyTimeout: time.Minute, RespondTimeout: time.Minute}, host)
	s.Endpoints.Start()
	e := Endpoint{Target: model.SourceTarget("dc_a"), Account: "u_a", Prop: "http", QueueSize: 5}
	if ep != nil {
		ep(&e)
	}
	s.Endpoints.Set("dc_a", map[component.EndpointToken]Endpoint{"tok": e})
	t.Cleanup(func() { s.Endpoints.Stop(); s.Waiters.Stop() })
	return s
}

// serve sends a request to s and returns the status and body.
func serve(s *Server, r *http.Request) (int, string, http.Header) {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b), w.Result().Header
}

func TestEndpointRequests(t *testing.T) {
	t.Parallel()
	tokenHash := HashToken("0123456789abcdef-token")
	cases := []struct {
		name    string
		host    *fakeHost
		ep      func(*Endpoint)
		req     func() *http.Request
		status  int
		says    string // in the body
		queued  int
		retried bool // a Retry-After header
	}{
		{"queued", &fakeHost{}, nil, func() *http.Request {
			return httptest.NewRequest("POST", "/h/tok/a/b?x=1", strings.NewReader(`{"k":"v"}`))
		}, 200, `{"success":true}`, 1, false},
		{"unknown token", &fakeHost{}, nil, func() *http.Request { return httptest.NewRequest("POST", "/h/nope", nil) }, 404, "no active source", 0, false},
		{"over the quota", &fakeHost{over: true}, nil, func() *http.Request { return httptest.NewRequest("POST", "/h/tok", nil) }, 429, "quota", 0, false},
		{"a full queue", &fakeHost{full: true}, nil, func() *http.Request { return httptest.NewRequest("POST", "/h/tok", nil) }, 429, "queue is full", 0, true},
		{"a store that fails", &fakeHost{failing: errors.New("disk")}, nil, func() *http.Request { return httptest.NewRequest("POST", "/h/tok", nil) }, 503, "could not be queued", 0, false},
		{"a body over the bound", &fakeHost{}, nil, func() *http.Request {
			return httptest.NewRequest("POST", "/h/tok", strings.NewReader(strings.Repeat("x", 33)))
		}, 413, "size limit", 0, false},
		{"no token", &fakeHost{}, func(e *Endpoint) { e.TokenHash = tokenHash }, func() *http.Request { return httptest.NewRequest("POST", "/h/tok", nil) }, 401, "Bearer", 0, false},
		{"a wrong token", &fakeHost{}, func(e *Endpoint) { e.TokenHash = tokenHash }, func() *http.Request {
			r := httptest.NewRequest("POST", "/h/tok", nil)
			r.Header.Set("Authorization", "Bearer 0123456789abcdef-other")
			return r
		}, 401, "Bearer", 0, false},
		{"the token", &fakeHost{}, func(e *Endpoint) { e.TokenHash = tokenHash }, func() *http.Request {
			r := httptest.NewRequest("POST", "/h/tok", nil)
			r.Header.Set("Authorization", "bearer 0123456789abcdef-token")
			return r
		}, 200, "success", 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host := tc.host
			s := newTestServer(t, host, clock.NewFake(), tc.ep)
			st, body, h := serve(s, tc.req())
			if st != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("%d %s, want %d saying %q", st, body, tc.status, tc.says)
			}
			if got := len(host.invocations()); got != tc.queued {
				t.Errorf("%d invocations queued, want %d", got, tc.queued)
			}
			if (h.Get("Retry-After") != "") != tc.retried {
				t.Errorf("Retry-After %q", h.Get("Retry-After"))
			}
			if h.Get("Content-Security-Policy") != "sandbox" {
				t.Errorf("a tenant's answer is not sandboxed: %v", h)
			}
		})
	}
}

// TestTheQueuedEventIsTheRequest: the run event has the request's method,
// sub-path, query, headers and parsed body; never the trigger's token.
func TestTheQueuedEventIsTheRequest(t *testing.T) {
	t.Parallel()
	host := &fakeHost{}
	s := newTestServer(t, host, clock.NewFake(), func(e *Endpoint) { e.TokenHash = HashToken("0123456789abcdef-token") })
	r := httptest.NewRequest("PUT", "/h/tok/a/b?x=1", strings.NewReader(`{"k":"v"}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer 0123456789abcdef-token")
	r.Header.Set("Cookie", "fount_session=secret; theirs=1")
	if st, body, _ := serve(s, r); st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	invs := host.invocations()
	if len(invs) != 1 || invs[0].Kind != model.InvocationHTTP || invs[0].Target() != model.SourceTarget("dc_a") {
		t.Fatalf("queued %+v", invs)
	}
	var ev httpRunEvent
	if err := json.Unmarshal(invs[0].Event, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Method != "PUT" || ev.Path != "/a/b" || ev.Query["x"] != "1" || ev.BodyRaw != `{"k":"v"}` {
		t.Errorf("the event: %+v", ev)
	}
	if _, ok := ev.Headers["authorization"]; ok || ev.Headers["cookie"] != "theirs=1" {
		t.Errorf("the event's headers keep the token or fount's cookie: %v", ev.Headers)
	}
}

// TestACustomResponse: a request of an endpoint with a custom response
// waits for its run's respond(), then answers with it, its cookies
// scoped to the endpoint; a run that ends without one answers 500, one
// that takes too long 504, and Stop of the waiters 503.
func TestACustomResponse(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	host := &fakeHost{}
	s := newTestServer(t, host, clk, func(e *Endpoint) { e.CustomResponse = true })
	answer := func(run func(replyTo string)) (int, string, http.Header) {
		t.Helper()
		before := len(host.invocations())
		got := make(chan struct{})
		var st int
		var body string
		var h http.Header
		go func() {
			defer close(got)
			st, body, h = serve(s, httptest.NewRequest("POST", "/h/tok", strings.NewReader(`1`)))
		}()
		var inv model.Invocation
		wait.Until(t, "the request to be queued", wait.Short, func() bool {
			invs := host.invocations()
			if len(invs) > before {
				inv = invs[len(invs)-1]
				return true
			}
			return false
		})
		if !strings.HasPrefix(inv.ReplyTo, "node1/") {
			t.Errorf("ReplyTo %q is not the host's address", inv.ReplyTo)
		}
		run(inv.ReplyTo)
		<-got
		return st, body, h
	}
	st, body, h := answer(func(replyTo string) {
		w := s.Waiters.Take(replyTo)
		_ = w.Respond(context.Background(), abi.Response{Status: 201, Body: "made", Headers: map[string]string{"Set-Cookie": "a=1; Domain=example.com"}})
		w.Finish()
	})
	if st != 201 || body != "made" || h.Get("Set-Cookie") != "a=1; Path=/h/tok" {
		t.Errorf("respond(): %d %q %v", st, body, h)
	}
	if st, body, _ := answer(func(replyTo string) { s.Waiters.Take(replyTo).Finish() }); st != 500 || !strings.Contains(body, "without calling respond()") {
		t.Errorf("a run without respond(): %d %s", st, body)
	}
	if st, body, _ := answer(func(string) {
		wait.Until(t, "the wait's timer", wait.Short, func() bool { return clk.PendingTimers() > 0 })
		clk.Advance(time.Minute)
	}); st != 504 {
		t.Errorf("past the respond timeout: %d %s", st, body)
	}
	if st, body, _ := answer(func(string) { s.Waiters.Stop() }); st != 503 || !strings.Contains(body, "shutting down") {
		t.Errorf("waiters stopped: %d %s", st, body)
	}
	if st, _, _ := serve(s, httptest.NewRequest("POST", "/h/tok", nil)); st != 503 {
		t.Errorf("a custom response after the waiters stopped: %d, want 503", st)
	}
}

// TestFlowURLs: a resume or cancel URL is one small read of its entry; a
// right secret queues the action with the request's parsed body, a wrong
// one answers 404, and too many wrong ones from an address 429.
func TestFlowURLs(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("s", abi.FlowSecretLen)
	host := &fakeHost{paused: map[string]store.PausedEntry{"ex_p-1": {DueMs: 1, SecretHash: SecretHash(secret)}, "ex_p-retry": {DueMs: 1}}}
	s := newTestServer(t, host, clock.NewFake(), nil)
	call := func(path, body string) int {
		r := httptest.NewRequest("POST", component.FlowPath+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		st, _, _ := serve(s, r)
		return st
	}
	if st := call("ex_p-1/"+secret+"/resume", `{"ok":true}`); st != 202 {
		t.Fatalf("the resume URL: %d", st)
	}
	if st := call("ex_p-1/"+secret+"/cancel", ``); st != 202 {
		t.Fatalf("the cancel URL: %d", st)
	}
	host.mu.Lock()
	if strings.Join(host.resumes, "|") != `ex_p-1 resume {"ok":true}|ex_p-1 cancel ` || host.reads != 2 {
		t.Errorf("resumes %q after %d reads", host.resumes, host.reads)
	}
	host.mu.Unlock()
	for _, bad := range []string{"ex_p-1/" + strings.Repeat("x", abi.FlowSecretLen) + "/resume", "ex_p-retry/" + secret + "/resume", "ex_p-2/" + secret + "/resume", "not-an-id/" + secret + "/resume"} {
		if st := call(bad, `{}`); st != 404 {
			t.Errorf("%s: %d, want 404", bad, st)
		}
	}
	if st := call("ex_p-1/short/resume", `{}`); st != 404 {
		t.Errorf("a malformed URL: %d, want 404", st)
	}
	limited := 0
	for range flowURLFailBurst + 5 {
		if call("ex_p-1/"+strings.Repeat("y", abi.FlowSecretLen)+"/resume", `{}`) == 429 {
			limited++
		}
	}
	if limited == 0 {
		t.Error("forged URLs past the burst were not throttled")
	}
	if st := call("ex_p-1/"+secret+"/resume", `{}`); st != 202 {
		t.Errorf("the right URL while forged ones are throttled: %d, want 202", st)
	}
}
