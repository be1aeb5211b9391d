package server

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/bundle"
	"github.com/fount-dev/fount/internal/cluster"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/records"
	"github.com/fount-dev/fount/internal/s3"
	"github.com/fount-dev/fount/internal/store"
)

// Defaults returns the settings a server takes when none is given: the
// defaults `fount serve` shows for its flags, and what New puts in a
// Config's zero fields that have no meaning of their own (see
// withDefaults).
func Defaults() Config {
	return Config{
		Addr: "127.0.0.1:8080", DataDir: "./fount-data", StoreURL: "bolt", LogFormat: "text",
		RunTimeout:       host.DefaultTimeout,
		QuotaInvocations: engine.DefaultQuotaInvocations, QuotaComputeMs: engine.DefaultQuotaComputeMs,
		EventsKept: 100, ExecutionsKept: 100, StatsKept: store.DefaultStatsKept,
		ExecutionRetryBase: 30 * time.Second, ExecutionTimeout: 5 * time.Minute,
		DataStoreKeys: records.DefaultDataStoreMaxKeys, DataStoreBytes: records.DefaultDataStoreMaxBytes, MaxPaused: 10_000,
		ChannelsPerSource: engine.DefaultMaxChannels, MaxWarm: DefaultMaxWarm,
		AccountSandboxes:     engine.DefaultSandboxes.AccountSandboxes,
		AccountSandboxMemory: engine.DefaultSandboxes.AccountBytes,
		SandboxMemory:        engine.DefaultSandboxes.ServerBytes,
		MaxBundle:            bundle.DefaultMaxBundle, NpmTimeout: bundle.DefaultTimeout, NpmCacheBytes: bundle.DefaultCacheBytes,
		DisableFailures: 20, DisableAge: 24 * time.Hour,
		NatsNamespace: "fount", NatsReplicas: 1, NodeLeaseTTL: cluster.DefaultLeaseTTL,
		S3: s3.Config{Region: "us-east-1"},
	}
}

// withDefaults fills the zero fields that would be out of range (a
// zero run timeout, no events kept...) from Defaults, so that a server
// started in-process from a partial Config runs as `fount serve` would.
// The zeros that mean something (no statistics counted, webhooks never
// deactivated, no limit) are left as they are.
func (c Config) withDefaults() Config {
	d := Defaults()
	c.Addr, c.StoreURL, c.LogFormat = cmp.Or(c.Addr, d.Addr), cmp.Or(c.StoreURL, d.StoreURL), cmp.Or(c.LogFormat, d.LogFormat)
	c.RunTimeout = cmp.Or(c.RunTimeout, d.RunTimeout)
	c.QuotaInvocations, c.QuotaComputeMs = cmp.Or(c.QuotaInvocations, d.QuotaInvocations), cmp.Or(c.QuotaComputeMs, d.QuotaComputeMs)
	c.EventsKept, c.ExecutionsKept = cmp.Or(c.EventsKept, d.EventsKept), cmp.Or(c.ExecutionsKept, d.ExecutionsKept)
	c.ExecutionRetryBase, c.ExecutionTimeout = cmp.Or(c.ExecutionRetryBase, d.ExecutionRetryBase), cmp.Or(c.ExecutionTimeout, d.ExecutionTimeout)
	c.DataStoreKeys, c.DataStoreBytes = cmp.Or(c.DataStoreKeys, d.DataStoreKeys), cmp.Or(c.DataStoreBytes, d.DataStoreBytes)
	c.MaxPaused, c.ChannelsPerSource, c.MaxWarm = cmp.Or(c.MaxPaused, d.MaxPaused), cmp.Or(c.ChannelsPerSource, d.ChannelsPerSource), cmp.Or(c.MaxWarm, d.MaxWarm)
	c.AccountSandboxes = cmp.Or(c.AccountSandboxes, d.AccountSandboxes)
	c.AccountSandboxMemory, c.SandboxMemory = cmp.Or(c.AccountSandboxMemory, d.AccountSandboxMemory), cmp.Or(c.SandboxMemory, d.SandboxMemory)
	c.MaxBundle, c.NpmTimeout, c.NpmCacheBytes = cmp.Or(c.MaxBundle, d.MaxBundle), cmp.Or(c.NpmTimeout, d.NpmTimeout), cmp.Or(c.NpmCacheBytes, d.NpmCacheBytes)
	c.NatsNamespace, c.NatsReplicas, c.NodeLeaseTTL = cmp.Or(c.NatsNamespace, d.NatsNamespace), cmp.Or(c.NatsReplicas, d.NatsReplicas), cmp.Or(c.NodeLeaseTTL, d.NodeLeaseTTL)
	c.S3.Region = cmp.Or(c.S3.Region, d.S3.Region)
	return c
}

// Validate refuses settings out of range, or that do not go together,
// with an error naming the setting by its `fount serve` flag. New
// validates its Config after withDefaults; `fount serve` validates
// what its flags gave, so that an explicit 0 is refused there too.
func (c Config) Validate() error {
	for _, check := range []func(Config) error{checkLimits, checkDurations, checkURLs, checkPprof, checkNpm, checkStore, checkS3} {
		if err := check(c); err != nil {
			return err
		}
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("--log-format must be text or json, got %q", c.LogFormat)
	}
	return nil
}

// checkLimits checks the bounds that count things.
func checkLimits(c Config) error {
	switch {
	case c.QuotaInvocations < 1 || c.QuotaComputeMs < 1 || c.EventsKept < 1 || c.ChannelsPerSource < 1 || c.MaxWarm < 1:
		return errors.New("--quota-invocations, --quota-compute-ms, --events-kept, --channels-per-source and --max-warm-instances must be at least 1")
	case c.AccountSandboxes < 1 || c.AccountSandboxMemory < host.DefaultMemory || c.SandboxMemory < host.DefaultMemory:
		return fmt.Errorf("--account-sandboxes must be at least 1, and --account-sandbox-memory and --sandbox-memory at least %d bytes (one sandbox)", host.DefaultMemory)
	case c.DataStoreKeys < 1 || c.DataStoreKeys > 100_000:
		return fmt.Errorf("--data-store-max-keys must be from 1 to 100000, got %d", c.DataStoreKeys)
	case c.DataStoreBytes < 1<<10 || c.DataStoreBytes > 3<<20:
		return fmt.Errorf("--data-store-max-bytes must be from 1024 to 3145728, got %d", c.DataStoreBytes)
	case c.MaxPaused < 1 || c.MaxPaused > 100_000:
		return fmt.Errorf("--max-paused-executions must be from 1 to 100000, got %d", c.MaxPaused)
	case c.ExecutionsKept < 1 || c.ExecutionsKept > 10_000:
		return fmt.Errorf("--executions-kept must be from 1 to 10000, got %d", c.ExecutionsKept)
	case c.DisableFailures < 0:
		return errors.New("--webhook-disable-failures must be 0 (never) or more")
	case c.MaxConnections < 0 || c.Workers < 0 || c.AccountWorkers < 0:
		return errors.New("--max-connections, --workers and --account-workers must be 0 (the default) or more")
	}
	return nil
}

// checkDurations checks the bounds in time.
func checkDurations(c Config) error {
	switch {
	case c.RunTimeout < 100*time.Millisecond || c.RunTimeout > 15*time.Minute:
		return fmt.Errorf("--run-timeout must be between 100ms and 15m, got %v", c.RunTimeout)
	case c.ExecutionTimeout < 100*time.Millisecond || c.ExecutionTimeout > time.Hour:
		return fmt.Errorf("--execution-timeout must be between 100ms and 1h, got %v", c.ExecutionTimeout)
	case c.ExecutionRetryBase < 100*time.Millisecond || c.ExecutionRetryBase > time.Hour:
		return fmt.Errorf("--execution-retry-base must be from 100ms to 1h, got %s", c.ExecutionRetryBase)
	case c.StatsKept < 0 || c.StatsKept > 90*24*time.Hour:
		return fmt.Errorf("--stats-kept must be from 0 to 2160h (90 days), got %s", c.StatsKept)
	case c.DisableAge < 0:
		return fmt.Errorf("--webhook-disable-age must be 0 or more, got %s", c.DisableAge)
	}
	return nil
}

// checkURLs checks the external URLs of the API and of the endpoints.
func checkURLs(c Config) error {
	if c.PublicURL != "" && c.EndpointURL == "" && c.EndpointAddr != EndpointsOnAPI {
		return errors.New("--public-url names the API's external URL: name the endpoints' with --endpoint-url (they listen apart, on --endpoint-addr), best on a host name of their own; or serve them on the API's address with --endpoint-addr api")
	}
	for _, u := range []struct{ flag, value string }{{"--public-url", c.PublicURL}, {"--endpoint-url", c.EndpointURL}} {
		if err := checkBaseURL(u.value); err != nil {
			return fmt.Errorf("%s: %w", u.flag, err)
		}
	}
	return nil
}

// checkBaseURL accepts "" (the default) or an absolute http(s) URL with
// no query or fragment, that paths such as /h/<token> are added to.
func checkBaseURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an http(s) base URL such as https://fount.example.com", s)
	}
	return nil
}

// checkPprof keeps the profiler, which shows the process's memory, out
// of anyone's reach but the host's own users.
func checkPprof(c Config) error {
	if !c.Pprof {
		return nil
	}
	if !isLoopbackAddr(c.Addr) {
		return fmt.Errorf("--pprof needs a loopback --addr (127.0.0.1 or [::1]), got %q: the profiler shows the process's memory", c.Addr)
	}
	if c.AllowPrivateEgress { // loopback is then in reach of every tenant's fetch
		return errors.New("--pprof and --allow-private-egress cannot be used together: tenants' fetch could then read the profiler on loopback, and with it the process's memory")
	}
	return nil
}

// isLoopbackAddr reports whether a listen address is on loopback only.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// checkNpm checks the npm settings.
func checkNpm(c Config) error {
	if c.NpmRegistry != "" {
		u, err := url.Parse(c.NpmRegistry)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--npm-registry must be an http(s) URL, got %q", c.NpmRegistry)
		}
	}
	switch {
	case c.MaxBundle < 1<<10 || c.MaxBundle > 100<<20:
		return fmt.Errorf("--max-bundle-size must be from 1024 bytes to 100 MiB, got %d", c.MaxBundle)
	case c.NpmTimeout < time.Second || c.NpmTimeout > 30*time.Minute:
		return fmt.Errorf("--npm-timeout must be between 1s and 30m, got %v", c.NpmTimeout)
	case c.NpmCacheBytes < 1<<20 || c.NpmCacheBytes > 1<<40:
		return fmt.Errorf("--npm-cache-size must be from 1 MiB to 1 TiB, got %d bytes", c.NpmCacheBytes)
	}
	// The bundle worker may read the npm cache, and only it: no key may
	// live there.
	if c.SecretKeyFile != "" {
		key, err1 := filepath.Abs(c.SecretKeyFile)
		cache, err2 := filepath.Abs(c.NPMCacheDir())
		if rel, err := filepath.Rel(cache, key); err1 == nil && err2 == nil && err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("--secret-key-file %s is inside the npm cache %s, which the workers that bundle tenants' packages read: keep it out", c.SecretKeyFile, cache)
		}
	}
	return nil
}

// checkStore refuses a store that is neither bolt nor nats:// URLs, and
// a NATS store without the secret key file that every node must share:
// each node opens the secrets the others sealed.
func checkStore(c Config) error {
	if !c.UsesNATS() {
		return nil
	}
	for u := range strings.SplitSeq(c.StoreURL, ",") {
		parsed, err := url.Parse(strings.TrimSpace(u))
		if err != nil || (parsed.Scheme != "nats" && parsed.Scheme != "tls") || parsed.Host == "" {
			return fmt.Errorf("--store must be bolt or nats://host:port URLs separated by commas, got %q", c.StoreURL)
		}
		if parsed.User != nil {
			return errors.New("--store: put NATS credentials in --nats-creds or FOUNT_NATS_TOKEN, not in the URL, where the process list shows them")
		}
	}
	switch {
	case c.SecretKeyFile == "":
		return errors.New("--store nats://... needs --secret-key-file (FOUNT_SECRET_KEY_FILE): every node sharing the store must open the secrets the others sealed, so they share one key file")
	case c.NodeLeaseTTL < 3*time.Second || c.NodeLeaseTTL%time.Second != 0:
		return fmt.Errorf("--node-lease-ttl must be whole seconds, at least 3s, got %v", c.NodeLeaseTTL)
	case c.NatsReplicas < 1 || c.NatsReplicas > 5:
		return fmt.Errorf("--nats-replicas must be from 1 to 5, got %d", c.NatsReplicas)
	}
	return nil
}

// checkS3 checks the bucket of $.send.s3.
func checkS3(c Config) error {
	if c.S3.Endpoint == "" {
		if c.S3.Bucket != "" || c.S3.AccessKeyID != "" || c.S3.SecretAccessKey != "" {
			return errors.New("--s3-bucket and FOUNT_S3_ACCESS_KEY_ID/FOUNT_S3_SECRET_ACCESS_KEY need --s3-endpoint")
		}
		return nil
	}
	if _, err := s3.New(c.S3); err != nil {
		return fmt.Errorf("--s3-endpoint: %w", err)
	}
	return nil
}
