package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/store"
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
		{"version", []string{"version"}, exitOK, "fount dev (go1.", ""},
		{"version json", []string{"version", "--json"}, exitOK, `"version":"dev"`, ""},
		{"version bad", []string{"version", "x"}, exitUsage, "", "takes no arguments"},
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
	return wait.For(t, "the server to print its address", startupDeadline, func() (string, bool) {
		m := listeningLine.FindStringSubmatch(out.String())
		if m == nil {
			return out.String(), false
		}
		return m[1], true
	})
}

// TestServeFlagsAndEnvironment: every flag has an environment variable,
// and the flag wins; the bootstrap key has only its variable.
func TestServeFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	settings := []struct {
		flag, env, value string
		got              func(server.Config) any
		want             any
	}{
		{"addr", "FOUNT_ADDR", "127.0.0.1:9999", func(c server.Config) any { return c.Addr }, "127.0.0.1:9999"},
		{"data-dir", "FOUNT_DATA_DIR", "/tmp/d", func(c server.Config) any { return c.DataDir }, "/tmp/d"},
		{"cache-dir", "FOUNT_CACHE_DIR", "/tmp/c", func(c server.Config) any { return c.CacheDir }, "/tmp/c"},
		{"public-url", "FOUNT_PUBLIC_URL", "https://p", func(c server.Config) any { return c.PublicURL }, "https://p"},
		{"endpoint-addr", "FOUNT_ENDPOINT_ADDR", "127.0.0.1:9998", func(c server.Config) any { return c.EndpointAddr }, "127.0.0.1:9998"},
		{"endpoint-url", "FOUNT_ENDPOINT_URL", "https://e", func(c server.Config) any { return c.EndpointURL }, "https://e"},
		{"max-connections", "FOUNT_MAX_CONNECTIONS", "77", func(c server.Config) any { return c.MaxConnections }, 77},
		{"run-timeout", "FOUNT_RUN_TIMEOUT", "2s", func(c server.Config) any { return c.RunTimeout }, 2 * time.Second},
		{"workers", "FOUNT_WORKERS", "6", func(c server.Config) any { return c.Workers }, 6},
		{"account-workers", "FOUNT_ACCOUNT_WORKERS", "3", func(c server.Config) any { return c.AccountWorkers }, 3},
		{"secret-key-file", "FOUNT_SECRET_KEY_FILE", "/tmp/k", func(c server.Config) any { return c.SecretKeyFile }, "/tmp/k"},
		{"", "FOUNT_BOOTSTRAP_API_KEY", "boot", func(c server.Config) any { return c.BootstrapKey }, "boot"},
		{"quota-invocations", "FOUNT_QUOTA_INVOCATIONS", "5", func(c server.Config) any { return c.QuotaInvocations }, int64(5)},
		{"quota-compute-ms", "FOUNT_QUOTA_COMPUTE_MS", "6", func(c server.Config) any { return c.QuotaComputeMs }, int64(6)},
		{"max-warm-instances", "FOUNT_MAX_WARM_INSTANCES", "7", func(c server.Config) any { return c.MaxWarm }, 7},
		{"events-kept", "FOUNT_EVENTS_KEPT", "7", func(c server.Config) any { return c.EventsKept }, 7},
		{"channels-per-source", "FOUNT_CHANNELS_PER_SOURCE", "8", func(c server.Config) any { return c.ChannelsPerSource }, 8},
		{"executions-kept", "FOUNT_EXECUTIONS_KEPT", "9", func(c server.Config) any { return c.ExecutionsKept }, 9},
		{"execution-retry-base", "FOUNT_EXECUTION_RETRY_BASE", "2s", func(c server.Config) any { return c.ExecutionRetryBase }, 2 * time.Second},
		{"data-store-max-keys", "FOUNT_DATA_STORE_MAX_KEYS", "12", func(c server.Config) any { return c.DataStoreKeys }, 12},
		{"data-store-max-bytes", "FOUNT_DATA_STORE_MAX_BYTES", "4096", func(c server.Config) any { return c.DataStoreBytes }, int64(4096)},
		{"max-paused-executions", "FOUNT_MAX_PAUSED_EXECUTIONS", "11", func(c server.Config) any { return c.MaxPaused }, 11},
		{"execution-timeout", "FOUNT_EXECUTION_TIMEOUT", "3s", func(c server.Config) any { return c.ExecutionTimeout }, 3 * time.Second},
		{"npm-cache-size", "FOUNT_NPM_CACHE_SIZE", "16777216", func(c server.Config) any { return c.NpmCacheBytes }, int64(16 << 20)},
		{"max-workflows-per-account", "FOUNT_MAX_WORKFLOWS_PER_ACCOUNT", "13", func(c server.Config) any { return c.Caps[model.CountWorkflows] }, 13},
		{"max-sources-per-account", "FOUNT_MAX_SOURCES_PER_ACCOUNT", "8", func(c server.Config) any { return c.Caps[model.CountSources] }, 8},
		{"max-components-per-account", "FOUNT_MAX_COMPONENTS_PER_ACCOUNT", "0", func(c server.Config) any { return c.Caps[model.CountComponents] }, 0},
		{"max-webhooks-per-account", "FOUNT_MAX_WEBHOOKS_PER_ACCOUNT", "10", func(c server.Config) any { return c.Caps[model.CountWebhooks] }, 10},
		{"max-subscriptions-per-account", "FOUNT_MAX_SUBSCRIPTIONS_PER_ACCOUNT", "11", func(c server.Config) any { return c.Caps[model.CountSubscriptions] }, 11},
		{"max-orgs-per-user", "FOUNT_MAX_ORGS_PER_USER", "12", func(c server.Config) any { return c.Caps[model.CountOrgs] }, 12},
		{"account-sandboxes", "FOUNT_ACCOUNT_SANDBOXES", "5", func(c server.Config) any { return c.AccountSandboxes }, 5},
		{"account-sandbox-memory", "FOUNT_ACCOUNT_SANDBOX_MEMORY", "536870912", func(c server.Config) any { return c.AccountSandboxMemory }, int64(512 << 20)},
		{"sandbox-memory", "FOUNT_SANDBOX_MEMORY", "2147483648", func(c server.Config) any { return c.SandboxMemory }, int64(2 << 30)},
		{"trusted-proxies", "FOUNT_TRUSTED_PROXIES", "10.0.0.0/8", func(c server.Config) any { return fmt.Sprint(c.TrustedProxies) }, "[10.0.0.0/8]"},
	}
	vars := map[string]string{"FOUNT_ALLOW_PRIVATE_EGRESS": "1"}
	for _, s := range settings {
		vars[s.env] = s.value
	}
	env := testEnvironment(vars, io.Discard, io.Discard)
	cfg, err := parseServeFlags(nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.AllowPrivateEgress {
		t.Error("FOUNT_ALLOW_PRIVATE_EGRESS=1 did not allow private egress")
	}
	for _, s := range settings {
		if got := s.got(cfg); got != s.want {
			t.Errorf("%s=%s: got %v (%T), want %v (%T)", s.env, s.value, got, got, s.want, s.want)
		}
		if s.flag == "" {
			continue // environment only: a key on the command line shows in ps
		}
		// The flag wins over the environment.
		env := map[string]string{s.env: "9"}
		if s.flag == "public-url" {
			env["FOUNT_ENDPOINT_URL"] = "https://e" // the endpoints' URL is needed beside it
		}
		flagged, err := parseServeFlags([]string{"--" + s.flag, s.value}, testEnvironment(env, io.Discard, io.Discard))
		if err != nil {
			t.Errorf("--%s %s: %v", s.flag, s.value, err)
		} else if got := s.got(flagged); got != s.want {
			t.Errorf("--%s %s over %s=9: got %v", s.flag, s.value, s.env, got)
		}
	}
	for _, bad := range [][]string{
		{"--events-kept", "0"}, {"--channels-per-source", "0"}, {"--max-connections", "-1"}, {"--workers", "-1"}, {"--run-timeout", "10ms"}, {"--public-url", "fount.example.com", "--endpoint-url", "https://e"},
		{"--endpoint-url", "ftp://e"}, {"--endpoint-url", "https://e/?q"}, {"--max-sources-per-account", "-1"},
		{"--max-orgs-per-user", "-5"}, {"--executions-kept", "0"}, {"--execution-timeout", "2h"}, {"--max-paused-executions", "0"}, {"--execution-retry-base", "1ms"}, {"--data-store-max-bytes", "10"},
		{"--secret-key-file", "/tmp/d/npm/k", "--data-dir", "/tmp/d"}, {"--npm-cache-size", "1000"},
		{"--account-sandboxes", "0"}, {"--account-sandbox-memory", "1000"}, {"--sandbox-memory", "1000"}, {"--trusted-proxies", "not-an-address"},
		{"--pprof", "--allow-private-egress"}, // the profiler would be in reach of tenants' fetch
	} {
		if _, err := parseServeFlags(bad, env); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%q: %v, want an error naming %s", bad, err, bad[0])
		}
	}
	// A public URL alone would show endpoints under a loopback address.
	if _, err := parseServeFlags([]string{"--public-url", "https://api.example.com"}, testEnvironment(nil, io.Discard, io.Discard)); err == nil || !strings.Contains(err.Error(), "--endpoint-url") {
		t.Errorf("--public-url without --endpoint-url: %v, want an error naming --endpoint-url", err)
	}
	cfg, _ = parseServeFlags(nil, testEnvironment(nil, io.Discard, io.Discard))
	if cfg.Addr != "127.0.0.1:8080" || cfg.DataDir != "./fount-data" || cfg.EventsKept != 100 || cfg.ChannelsPerSource != 100 || cfg.MaxConnections != 0 {
		t.Errorf("defaults: %+v", cfg)
	}
	if want := (store.Limits{model.CountSources: 500, model.CountComponents: 1000, model.CountWebhooks: 100,
		model.CountSubscriptions: 2000, model.CountOrgs: 20, model.CountWorkflows: 500, model.CountAccounts: 200, model.CountDataStores: 50}); !maps.Equal(cfg.Caps, want) {
		t.Errorf("default limits %v, want %v", cfg.Caps, want)
	}
}
