package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRunDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"no args prints usage", nil, exitUsage, "", "Usage:"},
		{"version", []string{"version"}, exitOK, "fount dev", ""},
		{"help", []string{"--help"}, exitOK, "start the server", ""},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"serve rejects stray args", []string{"serve", "extra"}, exitUsage, "", "serve takes no arguments"},
		{"serve help has an example", []string{"serve", "--help"}, exitOK, "", "Example:"},
		{"serve help names the environment-only key", []string{"serve", "--help"}, exitOK, "", "FOUNT_BOOTSTRAP_API_KEY"},
		{"openapi", []string{"openapi"}, exitOK, `"openapi": "3.1.0"`, ""},
		{"openapi takes no arguments", []string{"openapi", "x"}, exitUsage, "", "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, testEnvironment(nil, &stdout, &stderr))
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestServeHealthzAndShutdown starts a real server on loopback through the
// command line, as `make run` does, checks /healthz, then cancels it like
// SIGINT would.
func TestServeHealthzAndShutdown(t *testing.T) {
	t.Parallel()
	warmCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--cache-dir", cacheDir}
		done <- run(ctx, args, testEnvironment(nil, stdout, io.Discard))
	}()

	addr := waitForListening(t, stdout)
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("GET /healthz = %d %q, want 200 with status ok", resp.StatusCode, body)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited with %d after cancel, want %d", code, exitOK)
		}
	case <-time.After(startupDeadline):
		t.Fatal("serve did not shut down after cancel")
	}
}

var listeningLine = regexp.MustCompile(`listening on http://(\S+)`)

func waitForListening(t *testing.T, out *lockedBuffer) string {
	t.Helper()
	deadline := time.Now().Add(startupDeadline)
	for time.Now().Before(deadline) {
		if m := listeningLine.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("server never printed its address; output so far: %q", out.String())
	return ""
}

// TestServeFlagsAndEnvironment: every flag has an environment variable,
// and the flag wins.
func TestServeFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	env := testEnvironment(map[string]string{
		"FOUNT_ADDR": "127.0.0.1:9999", "FOUNT_DATA_DIR": "/tmp/d", "FOUNT_CACHE_DIR": "/tmp/c", "FOUNT_PUBLIC_URL": "https://p",
		"FOUNT_ALLOW_PRIVATE_EGRESS": "1", "FOUNT_QUOTA_INVOCATIONS": "5", "FOUNT_QUOTA_COMPUTE_MS": "6", "FOUNT_EVENTS_KEPT": "7",
		"FOUNT_BOOTSTRAP_API_KEY": "boot", "FOUNT_SECRET_KEY_FILE": "/tmp/k",
	}, io.Discard, io.Discard)
	cfg, err := parseServeFlags(nil, env)
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{addr: "127.0.0.1:9999", dataDir: "/tmp/d", cacheDir: "/tmp/c", publicURL: "https://p", allowPrivateEgress: true,
		quotaInvocations: 5, quotaComputeMs: 6, eventsKept: 7, bootstrapKey: "boot"}
	if cfg.addr != want.addr || cfg.dataDir != want.dataDir || cfg.cacheDir != want.cacheDir || cfg.publicURL != want.publicURL ||
		cfg.secretKeyFile != "/tmp/k" || !cfg.allowPrivateEgress || cfg.quotaInvocations != 5 || cfg.quotaComputeMs != 6 || cfg.eventsKept != 7 || cfg.bootstrapKey != "boot" {
		t.Errorf("from the environment: %+v", cfg)
	}
	cfg, err = parseServeFlags([]string{"--addr", "127.0.0.1:1", "--events-kept", "9"}, env)
	if err != nil || cfg.addr != "127.0.0.1:1" || cfg.eventsKept != 9 {
		t.Errorf("flags over the environment: %+v %v", cfg, err)
	}
	if _, err := parseServeFlags([]string{"--events-kept", "0"}, env); err == nil {
		t.Error("--events-kept 0 was accepted")
	}
	cfg, _ = parseServeFlags(nil, testEnvironment(nil, io.Discard, io.Discard))
	if cfg.addr != "127.0.0.1:8080" || cfg.dataDir != "./fount-data" || cfg.eventsKept != 100 {
		t.Errorf("defaults: %+v", cfg)
	}
}
