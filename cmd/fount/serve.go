package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/server"
)

func parseServeFlags(args []string, env environment) (server.Config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	d := server.Defaults()
	cfg := server.Config{Version: currentVersion().Version, BootstrapKey: env.getenv("FOUNT_BOOTSTRAP_API_KEY")}
	fs.StringVar(&cfg.Addr, "addr", env.or("FOUNT_ADDR", d.Addr), "listen address (FOUNT_ADDR)")
	fs.StringVar(&cfg.DataDir, "data-dir", env.or("FOUNT_DATA_DIR", d.DataDir), "data directory (FOUNT_DATA_DIR)")
	fs.StringVar(&cfg.SecretKeyFile, "secret-key-file", env.getenv("FOUNT_SECRET_KEY_FILE"),
		"the key that seals secret prop values, created on first use (FOUNT_SECRET_KEY_FILE; default <data-dir>/secret.key). Keep it out of the data dir to keep it out of the data dir's backups")
	fs.StringVar(&cfg.EndpointAddr, "endpoint-addr", env.getenv("FOUNT_ENDPOINT_ADDR"),
		"serve sources' and workflows' HTTP endpoints (/h/) on this address, apart from the API (FOUNT_ENDPOINT_ADDR; default the --addr host and the next port; api: on the API's address); see SECURITY.md")
	fs.StringVar(&cfg.EndpointURL, "endpoint-url", env.getenv("FOUNT_ENDPOINT_URL"),
		"external base URL of the endpoints, best on a host name of its own (FOUNT_ENDPOINT_URL; default http://<endpoint-addr>, or the public URL with --endpoint-addr api)")
	fs.IntVar(&cfg.MaxConnections, "max-connections", int(env.int("FOUNT_MAX_CONNECTIONS", 0)),
		"open connections per listener at most (FOUNT_MAX_CONNECTIONS; default half the open-file limit)")
	fs.DurationVar(&cfg.RunTimeout, "run-timeout", env.duration("FOUNT_RUN_TIMEOUT", d.RunTimeout),
		"how long a run, a hook or loading a component may take (FOUNT_RUN_TIMEOUT)")
	fs.IntVar(&cfg.Workers, "workers", int(env.int("FOUNT_WORKERS", 0)),
		"how many runs, hooks and loads execute at once (FOUNT_WORKERS; default 4)")
	fs.IntVar(&cfg.AccountWorkers, "account-workers", int(env.int("FOUNT_ACCOUNT_WORKERS", 0)),
		"how many of the workers one account may hold (FOUNT_ACCOUNT_WORKERS; default half the workers, and fewer than the CPUs)")
	fs.StringVar(&cfg.CacheDir, "cache-dir", env.getenv("FOUNT_CACHE_DIR"), "where the compiled sandbox is cached, to skip compiling it on the next start (FOUNT_CACHE_DIR; default <data-dir>/cache)")
	fs.StringVar(&cfg.PublicURL, "public-url", env.getenv("FOUNT_PUBLIC_URL"), "external base URL for endpoint URLs (FOUNT_PUBLIC_URL; default http://<addr>)")
	fs.BoolVar(&cfg.AllowPrivateEgress, "allow-private-egress", env.getenv("FOUNT_ALLOW_PRIVATE_EGRESS") == "1",
		"let webhooks and fetch reach loopback and private addresses (FOUNT_ALLOW_PRIVATE_EGRESS=1)")
	fs.Int64Var(&cfg.QuotaInvocations, "quota-invocations", env.int("FOUNT_QUOTA_INVOCATIONS", d.QuotaInvocations),
		"daily invocations of a free account (FOUNT_QUOTA_INVOCATIONS)")
	fs.Int64Var(&cfg.QuotaComputeMs, "quota-compute-ms", env.int("FOUNT_QUOTA_COMPUTE_MS", d.QuotaComputeMs),
		"daily compute milliseconds of a free account (FOUNT_QUOTA_COMPUTE_MS)")
	fs.IntVar(&cfg.EventsKept, "events-kept", int(env.int("FOUNT_EVENTS_KEPT", int64(d.EventsKept))),
		"events kept per source and channel (FOUNT_EVENTS_KEPT; the spec's figure is 100)")
	fs.IntVar(&cfg.ExecutionsKept, "executions-kept", int(env.int("FOUNT_EXECUTIONS_KEPT", int64(d.ExecutionsKept))),
		"executions kept per workflow, with each step's values and logs (FOUNT_EXECUTIONS_KEPT)")
	fs.DurationVar(&cfg.StatsKept, "stats-kept", env.duration("FOUNT_STATS_KEPT", d.StatsKept),
		"how long each source's, workflow's and webhook's per-minute statistics are kept; 0 counts none (FOUNT_STATS_KEPT)")
	fs.DurationVar(&cfg.ExecutionRetryBase, "execution-retry-base", env.duration("FOUNT_EXECUTION_RETRY_BASE", d.ExecutionRetryBase),
		"the first wait before a failed execution's step is retried (a workflow's retry); each next wait doubles (FOUNT_EXECUTION_RETRY_BASE)")
	fs.IntVar(&cfg.DataStoreKeys, "data-store-max-keys", int(env.int("FOUNT_DATA_STORE_MAX_KEYS", int64(d.DataStoreKeys))),
		"keys one data store may hold (FOUNT_DATA_STORE_MAX_KEYS)")
	fs.Int64Var(&cfg.DataStoreBytes, "data-store-max-bytes", env.int("FOUNT_DATA_STORE_MAX_BYTES", d.DataStoreBytes),
		"bytes of keys and values one data store may hold, at most 3 MiB so that entries() fits one message (FOUNT_DATA_STORE_MAX_BYTES)")
	fs.IntVar(&cfg.MaxPaused, "max-paused-executions", int(env.int("FOUNT_MAX_PAUSED_EXECUTIONS", int64(d.MaxPaused))),
		"executions of one workflow that may wait on $.flow.delay, suspend or rerun at once (FOUNT_MAX_PAUSED_EXECUTIONS)")
	fs.DurationVar(&cfg.ExecutionTimeout, "execution-timeout", env.duration("FOUNT_EXECUTION_TIMEOUT", d.ExecutionTimeout),
		"how long a workflow execution may take, all its steps together; each step also has --run-timeout (FOUNT_EXECUTION_TIMEOUT)")
	fs.IntVar(&cfg.ChannelsPerSource, "channels-per-source", int(env.int("FOUNT_CHANNELS_PER_SOURCE", int64(d.ChannelsPerSource))),
		"channels a source may have besides the default one, $errors and $logs; emits to more are dropped (FOUNT_CHANNELS_PER_SOURCE)")
	fs.IntVar(&cfg.MaxWarm, "max-warm-instances", int(env.int("FOUNT_MAX_WARM_INSTANCES", int64(d.MaxWarm))),
		"warm sandbox instances kept across all sources, each a MiB or more; past it the least recently used are closed and restore from their snapshots when next run (FOUNT_MAX_WARM_INSTANCES)")
	fs.IntVar(&cfg.AccountSandboxes, "account-sandboxes", int(env.int("FOUNT_ACCOUNT_SANDBOXES", int64(d.AccountSandboxes))),
		"sandboxes one account's calls hold at once, across its sources, its workflows' concurrency and its actions; past it calls wait, until their time limit at most (FOUNT_ACCOUNT_SANDBOXES)")
	fs.Int64Var(&cfg.AccountSandboxMemory, "account-sandbox-memory", env.int("FOUNT_ACCOUNT_SANDBOX_MEMORY", d.AccountSandboxMemory),
		"bytes of the memory limits of the sandboxes one account holds at once (FOUNT_ACCOUNT_SANDBOX_MEMORY)")
	fs.Int64Var(&cfg.SandboxMemory, "sandbox-memory", env.int("FOUNT_SANDBOX_MEMORY", d.SandboxMemory),
		"bytes of the memory limits of the sandboxes all accounts hold at once: about half the machine's memory (FOUNT_SANDBOX_MEMORY)")
	fs.StringVar(&cfg.Engine, "engine", cmp.Or(env.getenv("FOUNT_ENGINE"), host.DefaultEngine()),
		"what runs components' code: wasm2go (the guest translated to Go; in binaries built by make build) or wazero (FOUNT_ENGINE)")
	fs.StringVar(&cfg.NpmRegistry, "npm-registry", env.getenv("FOUNT_NPM_REGISTRY"),
		"npm registry that components' package imports resolve against at deploy (FOUNT_NPM_REGISTRY; default the registry npm on this machine is configured with)")
	fs.IntVar(&cfg.MaxBundle, "max-bundle-size", int(env.int("FOUNT_MAX_BUNDLE_SIZE", int64(d.MaxBundle))),
		"bytes a component's code may have once its npm packages are bundled in (FOUNT_MAX_BUNDLE_SIZE)")
	fs.DurationVar(&cfg.NpmTimeout, "npm-timeout", env.duration("FOUNT_NPM_TIMEOUT", d.NpmTimeout),
		"how long resolving and downloading a component's npm packages may take (FOUNT_NPM_TIMEOUT)")
	fs.Int64Var(&cfg.NpmCacheBytes, "npm-cache-size", env.int("FOUNT_NPM_CACHE_SIZE", d.NpmCacheBytes),
		"bytes the unpacked npm packages of all tenants may take in <data-dir>/npm; past it the least recently used are removed (FOUNT_NPM_CACHE_SIZE)")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", env.getenv("FOUNT_METRICS_ADDR"),
		"serve Prometheus /metrics on this address only (FOUNT_METRICS_ADDR; default: /metrics on the API's address)")
	fs.IntVar(&cfg.DisableFailures, "webhook-disable-failures", int(env.int("FOUNT_WEBHOOK_DISABLE_FAILURES", int64(d.DisableFailures))),
		"deactivate a webhook after this many deliveries in a row failed for good (FOUNT_WEBHOOK_DISABLE_FAILURES; 0: never)")
	fs.DurationVar(&cfg.DisableAge, "webhook-disable-age", env.duration("FOUNT_WEBHOOK_DISABLE_AGE", d.DisableAge),
		"... and only when they span at least this long (FOUNT_WEBHOOK_DISABLE_AGE)")
	fs.BoolVar(&cfg.Pprof, "pprof", env.getenv("FOUNT_PPROF") == "1",
		"serve Go's profiler at /debug/pprof/ on the API's address, which must then be loopback (FOUNT_PPROF=1)")
	fs.StringVar(&cfg.LogFormat, "log-format", env.or("FOUNT_LOG_FORMAT", d.LogFormat), "log lines as text or json (FOUNT_LOG_FORMAT)")
	logLevel := fs.String("log-level", env.or("FOUNT_LOG_LEVEL", "info"), "the least level logged: debug, info, warn or error (FOUNT_LOG_LEVEL)")
	fs.StringVar(&cfg.StoreURL, "store", env.or("FOUNT_STORE", d.StoreURL),
		"where state is kept: bolt (a file in the data dir) or nats://host:4222[,nats://...], a NATS JetStream cluster shared by several fount nodes (FOUNT_STORE; see docs/nats.md)")
	fs.StringVar(&cfg.NatsCreds, "nats-creds", env.getenv("FOUNT_NATS_CREDS"), "a NATS credentials file, with --store nats://... (FOUNT_NATS_CREDS)")
	fs.StringVar(&cfg.NatsNamespace, "nats-namespace", env.or("FOUNT_NATS_NAMESPACE", d.NatsNamespace),
		"names this deployment's stream and subjects on the NATS cluster (FOUNT_NATS_NAMESPACE)")
	fs.IntVar(&cfg.NatsReplicas, "nats-replicas", int(env.int("FOUNT_NATS_REPLICAS", int64(d.NatsReplicas))),
		"how many NATS servers hold fount's stream when this node creates it: 3 on a cluster of three (FOUNT_NATS_REPLICAS)")
	fs.StringVar(&cfg.NodeName, "node-name", env.getenv("FOUNT_NODE_NAME"), "this node's name among several sharing a NATS store (FOUNT_NODE_NAME; default the host name and process id)")
	fs.DurationVar(&cfg.NodeLeaseTTL, "node-lease-ttl", env.duration("FOUNT_NODE_LEASE_TTL", d.NodeLeaseTTL),
		"with --store nats://...: how long a node that stopped answering keeps its share of the work before the others take it over; whole seconds, at least 3s (FOUNT_NODE_LEASE_TTL)")
	fs.StringVar(&cfg.S3.Endpoint, "s3-endpoint", env.getenv("FOUNT_S3_ENDPOINT"),
		"an S3-compatible server (http(s)://host[:port]) that workflows' $.send.s3 writes to, in --s3-bucket, with the keys of FOUNT_S3_ACCESS_KEY_ID and FOUNT_S3_SECRET_ACCESS_KEY (FOUNT_S3_ENDPOINT; default none: $.send.s3 fails the step)")
	fs.StringVar(&cfg.S3.Bucket, "s3-bucket", env.getenv("FOUNT_S3_BUCKET"), "the bucket of --s3-endpoint (FOUNT_S3_BUCKET)")
	fs.StringVar(&cfg.S3.Region, "s3-region", env.or("FOUNT_S3_REGION", d.S3.Region), "the region the bucket's requests are signed for (FOUNT_S3_REGION)")
	cfg.S3.AccessKeyID, cfg.S3.SecretAccessKey = env.getenv("FOUNT_S3_ACCESS_KEY_ID"), env.getenv("FOUNT_S3_SECRET_ACCESS_KEY")
	proxies := fs.String("trusted-proxies", env.getenv("FOUNT_TRUSTED_PROXIES"),
		"reverse proxies in front of fount, as addresses and CIDR prefixes separated by commas: their X-Forwarded-For names the client that wrong API keys and forged resume URLs are counted against (FOUNT_TRUSTED_PROXIES; default none: the header is ignored)")
	cfg.NatsToken = env.getenv("FOUNT_NATS_TOKEN")
	caps := addCapFlags(fs, env)
	stderr := env.stderr
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: fount serve [flags]\n\nExample:\n  fount serve --addr 127.0.0.1:8080 --data-dir ./fount-data\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\nEnvironment only:\n"+
			"  FOUNT_BOOTSTRAP_API_KEY\n"+
			"    \tthe owner user's API key on the first start of an empty data dir, at least 32 characters\n"+
			"    \t(default: a random key, printed once and written to <data-dir>/owner.key);\n"+
			"    \tnever a flag, so that it does not show in the process list\n"+
			"  FOUNT_NATS_TOKEN\n"+
			"    \ta token to authenticate to NATS with, with --store nats://...\n"+
			"  FOUNT_S3_ACCESS_KEY_ID, FOUNT_S3_SECRET_ACCESS_KEY\n"+
			"    \tthe keys of --s3-endpoint's bucket\n")
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	limits, err := caps()
	if err != nil {
		return cfg, err
	}
	cfg.Caps = limits
	if cfg.TrustedProxies, err = guess.ParseProxies(*proxies); err != nil {
		return cfg, fmt.Errorf("--trusted-proxies: %w", err)
	}
	cfg.NoStats = cfg.StatsKept == 0
	if err := cfg.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level must be debug, info, warn or error, got %q", *logLevel)
	}
	if cfg.NpmRegistry == "" { // npm's own variable, as npm would read it
		cfg.NpmRegistry = env.or("npm_config_registry", env.getenv("NPM_CONFIG_REGISTRY"))
	}
	return cfg, cfg.Validate()
}

func runServe(ctx context.Context, args []string, env environment) int {
	stdout, stderr := env.stdout, env.stderr
	cfg, err := parseServeFlags(args, env)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fount serve: %v\n", err)
		return exitUsage
	}
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var handler slog.Handler = slog.NewTextHandler(stderr, opts)
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(stderr, opts)
	}
	logger := slog.New(handler)
	if err := server.Serve(ctx, cfg, stdout, logger); err != nil {
		logger.Error("server stopped", "err", err)
		return exitError
	}
	return exitOK
}
