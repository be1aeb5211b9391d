package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/s3"
)

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	if err := Defaults().Validate(); err != nil {
		t.Errorf("Defaults: %v", err)
	}
	// A server started in-process from a partial Config takes the
	// defaults for what it leaves out.
	if err := (Config{DataDir: t.TempDir()}).withDefaults().Validate(); err != nil {
		t.Errorf("an empty Config with its defaults: %v", err)
	}
	if got := (Config{EventsKept: 7, StatsKept: 0}).withDefaults(); got.EventsKept != 7 || got.StatsKept != 0 || got.RunTimeout != Defaults().RunTimeout {
		t.Errorf("withDefaults changed a set field, or a zero that means something, or left a default out: %+v", got)
	}
}

func TestValidateNamesTheSetting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		want   string // the flag the error must name
		change func(*Config)
	}{
		{"--events-kept", func(c *Config) { c.EventsKept = 0 }},
		{"--channels-per-source", func(c *Config) { c.ChannelsPerSource = -1 }},
		{"--account-sandboxes", func(c *Config) { c.AccountSandboxes = 0 }},
		{"--sandbox-memory", func(c *Config) { c.SandboxMemory = 1000 }},
		{"--data-store-max-keys", func(c *Config) { c.DataStoreKeys = 100_001 }},
		{"--data-store-max-bytes", func(c *Config) { c.DataStoreBytes = 10 }},
		{"--max-paused-executions", func(c *Config) { c.MaxPaused = 0 }},
		{"--executions-kept", func(c *Config) { c.ExecutionsKept = 10_001 }},
		{"--webhook-disable-failures", func(c *Config) { c.DisableFailures = -1 }},
		{"--workers", func(c *Config) { c.Workers = -1 }},
		{"--run-timeout", func(c *Config) { c.RunTimeout = 10 * time.Millisecond }},
		{"--execution-timeout", func(c *Config) { c.ExecutionTimeout = 2 * time.Hour }},
		{"--execution-retry-base", func(c *Config) { c.ExecutionRetryBase = time.Millisecond }},
		{"--stats-kept", func(c *Config) { c.StatsKept = 100 * 24 * time.Hour }},
		{"--webhook-disable-age", func(c *Config) { c.DisableAge = -time.Second }},
		{"--endpoint-url", func(c *Config) { c.PublicURL = "https://api.example.com" }},
		{"--endpoint-url", func(c *Config) { c.EndpointURL = "ftp://e" }},
		{"--public-url", func(c *Config) { c.PublicURL, c.EndpointURL = "api.example.com", "https://e" }},
		{"--pprof", func(c *Config) { c.Pprof, c.Addr = true, "0.0.0.0:8080" }},
		{"--pprof", func(c *Config) { c.Pprof, c.AllowPrivateEgress = true, true }},
		{"--npm-registry", func(c *Config) { c.NpmRegistry = "file:///etc" }},
		{"--max-bundle-size", func(c *Config) { c.MaxBundle = 10 }},
		{"--npm-timeout", func(c *Config) { c.NpmTimeout = time.Hour }},
		{"--npm-cache-size", func(c *Config) { c.NpmCacheBytes = 1000 }},
		{"--secret-key-file", func(c *Config) { c.DataDir, c.SecretKeyFile = "/tmp/d", "/tmp/d/npm/k" }},
		{"--store", func(c *Config) { c.StoreURL = "postgres://db" }},
		{"--store", func(c *Config) { c.StoreURL, c.SecretKeyFile = "nats://user:pw@n:4222", "/k" }},
		{"--secret-key-file", func(c *Config) { c.StoreURL = "nats://n:4222" }},
		{"--node-lease-ttl", func(c *Config) {
			c.StoreURL, c.SecretKeyFile, c.NodeLeaseTTL = "nats://n:4222", "/k", 3500*time.Millisecond
		}},
		{"--nats-replicas", func(c *Config) { c.StoreURL, c.SecretKeyFile, c.NatsReplicas = "nats://n:4222", "/k", 6 }},
		{"--s3-endpoint", func(c *Config) { c.S3 = s3.Config{Bucket: "b"} }},
		{"--log-format", func(c *Config) { c.LogFormat = "xml" }},
	}
	for _, tc := range cases {
		c := Defaults()
		tc.change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.want, err, tc.want)
		}
	}
}

// TestNewValidates: a server started in-process is held to the ranges
// `fount serve` checks, before it opens anything.
func TestNewValidates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := New(context.Background(), Config{DataDir: dir, ExecutionTimeout: 2 * time.Hour}, io.Discard, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "--execution-timeout") {
		t.Fatalf("New with a 2h execution timeout: %v, want an error naming --execution-timeout", err)
	}
}
