package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
	"github.com/fount-dev/fount/internal/worker"

	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
)

// as is the server seen with another API key.
func (s *testServer) as(key string) *testServer {
	return &testServer{t: s.t, base: s.base, key: key, stdout: s.stdout, log: s.log, done: s.done, cancel: s.cancel}
}

// newUser creates a user with the server's (owner's) key and returns the
// server as that user.
func (s *testServer) newUser(name, plan string) *testServer {
	s.t.Helper()
	st, body := s.do("POST", "/v1/users", map[string]any{"username": name, "email": name + "@example.com", "plan": plan})
	if st != 200 {
		s.t.Fatalf("create user %s: %d %v", name, st, body)
	}
	return s.as(data(body)["api_key"].(string))
}

// listedSource is the caller's source id as listed, or nil.
func (s *testServer) listedSource(id string) map[string]any {
	s.t.Helper()
	_, body := s.do("GET", "/v1/users/me/sources?limit=100", nil)
	for _, it := range body["data"].([]any) {
		if src := it.(map[string]any); src["id"] == id {
			return src
		}
	}
	return nil
}

// startServerWithLimits is a server whose sandbox loads components within
// limits too (the shared sandbox loads them with the default limits).
func startServerWithLimits(t *testing.T, cfg server.Config, limits sandbox.Limits) *testServer {
	t.Helper()
	warmCache(t)
	sb, err := host.New(context.Background(), host.Config{CacheDir: cacheDir, Analyzer: worker.Analyzer{Exe: workerExe(t)}, Limits: limits, Engine: testEngine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close(context.Background()) })
	cfg.Sandbox, cfg.RunTimeout = sb, limits.Timeout
	return startServer(t, cfg)
}

// TestRunawayAccountLeavesOthersTheirShare: one account's sources looping
// forever hold at most that account's share of the workers; another
// account's run starts at once instead of waiting for a loop to time out.
func TestRunawayAccountLeavesOthersTheirShare(t *testing.T) {
	t.Parallel()
	var spinning atomic.Int32
	beacon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { spinning.Add(1) }))
	defer beacon.Close()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, RunTimeout: 20 * time.Second, Workers: 4, AccountWorkers: 2})
	spin := `export default { name: "Spin", version: "1", props: { http: "$.interface.http" },
		async run() { await fetch("` + beacon.URL + `"); for (;;) {} } }`
	// Deployed first: the account's own lifecycle work waits for its share
	// once its runs hold it.
	var attackers, endpoints []string
	for range 6 {
		src := s.deploySource(spin, nil)
		attackers, endpoints = append(attackers, src["id"].(string)), append(endpoints, endpointOf(src, "http"))
	}
	for _, url := range endpoints {
		post(t, url, "{}")
		post(t, url, "{}")
	}
	wait.Until(t, "the attacking sources to start", eventsDeadline, func() bool { return spinning.Load() >= 2 })

	victim := s.newUser("victim", "paid")
	src := victim.deploySource(`export default { name: "Answer", version: "1",
		props: { http: { type: "$.interface.http", customResponse: true } },
		run() { this.http.respond({ status: 200, body: "ok" }) } }`, nil)
	resp, err := http.Post(endpointOf(src, "http"), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" {
		t.Fatalf("the other account's endpoint answered %d %q", resp.StatusCode, b)
	}
	// Had the victim waited for a worker, a loop would have timed out first.
	for _, id := range attackers {
		if _, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?event_name=$errors", nil); len(body["data"].([]any)) > 0 {
			t.Fatalf("the other account was answered only after a loop timed out (%v)", body["data"])
		}
	}
	if n := spinning.Load(); n > 2 {
		t.Errorf("%d attacking runs started at once; the account's share is 2", n)
	}
}

// TestLifecycleCodeRunsUnderTheQuota: top-level code and hooks run within
// the run time limit and count against the daily compute quota; a hook
// that times out is a 400 naming it; once the quota is used up, deploying
// more code is a 429.
func TestLifecycleCodeRunsUnderTheQuota(t *testing.T) {
	t.Parallel()
	s := startServerWithLimits(t, server.Config{BootstrapKey: ownerKey}, sandbox.Limits{Timeout: time.Second})
	tenant := s.newUser("tenant", "free")
	computeUsed := func() float64 {
		_, me := tenant.do("GET", "/v1/users/me", nil)
		return data(me)["daily_compute_time_used"].(float64)
	}
	st, body := tenant.do("POST", "/v1/sources", map[string]any{"component_code": `for (;;) {} export default { name: "Top", version: "1", run() {} }`})
	if st != 400 || !strings.Contains(string(mustMarshal(t, body)), "TimeoutError") {
		t.Fatalf("top-level loop: %d %v", st, body)
	}
	if used := computeUsed(); used < 1000 {
		t.Errorf("a second of top-level code counted %v ms", used)
	}
	loopingHook := map[string]any{"component_code": `export default { name: "Hook", version: "1", hooks: { deploy() { for (;;) {} } }, run() {} }`}
	st, body = tenant.do("POST", "/v1/sources", loopingHook)
	if msg := string(mustMarshal(t, body)); st != 400 || !strings.Contains(msg, "hook_failed") || !strings.Contains(msg, "deploy hook") {
		t.Fatalf("looping deploy hook: %d %v", st, body)
	}
	if used := computeUsed(); used < 2000 {
		t.Errorf("a second of top-level code and a second of hook counted %v ms", used)
	}

	// Over the quota, deploying code (which would run it) is refused.
	small := startServer(t, server.Config{BootstrapKey: ownerKey, RunTimeout: time.Second, QuotaComputeMs: 500})
	tenant = small.newUser("tenant", "free")
	deadline := time.Now().Add(eventsDeadline) // quota checks are trusted for a second
	for {
		st, body = tenant.do("POST", "/v1/sources", loopingHook)
		if st == http.StatusTooManyRequests && strings.Contains(string(mustMarshal(t, body)), "quota_exceeded") {
			break
		}
		if st != 400 || time.Now().After(deadline) {
			t.Fatalf("deploying over the compute quota: %d %v, want 429 quota_exceeded", st, body)
		}
	}
}

// TestHostileDeactivateHookCannotPinASource: a deactivate hook that throws
// or loops makes an update fail with a 400 naming the hook (the running
// version stays), and never stops the source from being deleted.
func TestHostileDeactivateHookCannotPinASource(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, RunTimeout: time.Second})
	for name, hook := range map[string]string{
		"throws": `throw new Error("no")`,
		"loops":  `for (;;) {}`,
	} {
		code := `export default { name: "Pinned", version: "1", hooks: { deactivate() { ` + hook + ` } }, run() {} }`
		id := s.deploySource(code, nil)["id"].(string)
		st, body := s.do("PUT", "/v1/sources/"+id, map[string]any{"component_code": `export default { name: "Next", version: "2", run() {} }`})
		if msg := string(mustMarshal(t, body)); st != 400 || !strings.Contains(msg, "hook_failed") || !strings.Contains(msg, "deactivate hook") {
			t.Errorf("%s: update answered %d %v, want 400 hook_failed naming the deactivate hook", name, st, body)
		}
		if got := s.listedSource(id); got == nil || got["name"] != "pinned" {
			t.Errorf("%s: after the failed update the source is %v, want the running version", name, got)
		}
		if st, body := s.do("DELETE", "/v1/sources/"+id, nil); st != 204 {
			t.Errorf("%s: delete answered %d %v", name, st, body)
		}
		if got := s.listedSource(id); got != nil {
			t.Errorf("%s: after delete the source is listed: %v", name, got)
		}
	}
}
