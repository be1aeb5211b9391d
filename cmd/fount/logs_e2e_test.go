package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// TestJSONLogsCarryRequestIDs: with --log-format json every log line is a
// JSON object; an API request's access line carries its X-Request-Id (the
// client's, when it sends a sane one), and the answer echoes it; a failed
// run is a warning naming its source and error class, without the
// component's message.
func TestJSONLogsCarryRequestIDs(t *testing.T) {
	t.Parallel()
	warmCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--cache-dir", cacheDir, "--log-format", "json"}
		done <- run(ctx, args, testEnvironment(map[string]string{"FOUNT_BOOTSTRAP_API_KEY": ownerKey}, stdout, stderr))
	}()
	addr := waitForListening(t, stdout)
	s := &testServer{t: t, base: "http://" + addr, key: ownerKey}

	req, _ := http.NewRequest("GET", s.base+"/v1/users/me", nil)
	req.Header.Set("Authorization", "Bearer "+ownerKey)
	req.Header.Set("X-Request-Id", "req-abc.123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-Id"); got != "req-abc.123" {
		t.Errorf("X-Request-Id answered %q", got)
	}
	bad, _ := http.NewRequest("GET", s.base+"/readyz", nil)
	bad.Header.Set("X-Request-Id", "has spaces and \"quotes\" <tags>")
	resp, err = http.DefaultClient.Do(bad)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") == "" || strings.ContainsAny(resp.Header.Get("X-Request-Id"), " <\"") {
		t.Errorf("readyz: %d, id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}

	src := s.deploySource(`export default { name: "thrower", version: "1", run() { throw new TypeError("secret-ish detail") } }`, nil)
	s.run(src["id"].(string), nil)
	s.events(src["id"].(string), "$errors", 1)

	var access, warned bool
	wait.Poll(eventsDeadline, func() bool { // the check below says what is missing
		sc := bufio.NewScanner(strings.NewReader(stderr.String()))
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("a log line is not JSON: %q", sc.Text())
			}
			if line["msg"] == "request" && line["request_id"] == "req-abc.123" && line["route"] == "/v1/users/me" && line["status"] == float64(200) {
				access = true
			}
			if line["msg"] == "run failed" && line["source"] == src["id"] && line["error"] == "TypeError" && line["level"] == "WARN" {
				warned = true
			}
		}
		return access && warned
	})
	if !access || !warned {
		t.Errorf("access line %v, run warning %v in:\n%s", access, warned, stderr)
	}
	if strings.Contains(stderr.String(), "secret-ish detail") {
		t.Error("the log carries a run's error message")
	}
	cancel()
	<-done
}

// TestPprofOnlyWhenAskedOnLoopback: /debug/pprof/ answers only with
// --pprof, and --pprof refuses an address that is not loopback.
func TestPprofOnlyWhenAskedOnLoopback(t *testing.T) {
	t.Parallel()
	plain := startServer(t, server.Config{BootstrapKey: ownerKey})
	if resp, err := http.Get(plain.base + "/debug/pprof/"); err != nil || resp.StatusCode == 200 {
		t.Errorf("pprof without --pprof: %v %v", resp, err)
	}
	profiled := startServer(t, server.Config{BootstrapKey: ownerKey, Pprof: true})
	resp, err := http.Get(profiled.base + "/debug/pprof/")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("pprof with --pprof: %v %v", resp, err)
	}
	if _, err := parseServeFlags([]string{"--pprof", "--addr", "0.0.0.0:8080"}, testEnvironment(nil, io.Discard, io.Discard)); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--pprof on 0.0.0.0: %v", err)
	}
}
