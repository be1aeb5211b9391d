package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/api"
	"github.com/fount-dev/fount/internal/bundle"
	"github.com/fount-dev/fount/internal/cluster"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/confine"
	"github.com/fount-dev/fount/internal/dashboard"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/metrics"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/s3"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// serveConfig is what `fount serve` is started with. Every flag has an
// environment variable; the flag wins when both are set.
type serveConfig struct {
	addr               string
	dataDir            string
	cacheDir           string
	secretKeyFile      string
	endpointAddr       string
	endpointURL        string
	maxConnections     int
	runTimeout         time.Duration
	workers            int
	accountWorkers     int
	publicURL          string
	allowPrivateEgress bool
	quotaInvocations   int64
	quotaComputeMs     int64
	eventsKept         int
	executionsKept     int
	maxPaused          int
	dataStoreKeys      int
	dataStoreBytes     int64
	executionRetryBase time.Duration
	executionTimeout   time.Duration
	channelsPerSource  int
	maxWarm            int // warm sandbox instances of all sources together
	npmRegistry        string
	maxBundle          int
	npmTimeout         time.Duration
	npmCacheBytes      int64
	logFormat          string
	logLevel           slog.Level
	metricsAddr        string
	pprof              bool
	disableFailures    int
	disableAge         time.Duration
	bootstrapKey       string // FOUNT_BOOTSTRAP_API_KEY, env only: never on a command line
	storeURL           string // "bolt", or nats:// URLs (see docs/nats.md)
	natsCreds          string
	natsToken          string // FOUNT_NATS_TOKEN, env only: never on a command line
	natsNamespace      string
	natsReplicas       int
	nodeName           string
	nodeLeaseTTL       time.Duration
	s3                 s3.Config // the bucket of $.send.s3; Endpoint "" for none

	caps store.Limits // per-account limits, from the flags of caps.go

	// Set by tests, never by flags.
	sandbox     *host.Host        // a compiled guest to share instead of compiling one (not closed by serve)
	onListening func(addr string) // called once the listener is open
	limits      *httpLimits       // instead of defaultLimits(maxConnections)
	heartbeat   time.Duration     // of event streams, instead of the default
}

func parseServeFlags(args []string, env environment) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg := serveConfig{bootstrapKey: env.getenv("FOUNT_BOOTSTRAP_API_KEY")}
	fs.StringVar(&cfg.addr, "addr", env.or("FOUNT_ADDR", "127.0.0.1:8080"), "listen address (FOUNT_ADDR)")
	fs.StringVar(&cfg.dataDir, "data-dir", env.or("FOUNT_DATA_DIR", "./fount-data"), "data directory (FOUNT_DATA_DIR)")
	fs.StringVar(&cfg.secretKeyFile, "secret-key-file", env.getenv("FOUNT_SECRET_KEY_FILE"),
		"the key that seals secret prop values, created on first use (FOUNT_SECRET_KEY_FILE; default <data-dir>/secret.key). Keep it out of the data dir to keep it out of the data dir's backups")
	fs.StringVar(&cfg.endpointAddr, "endpoint-addr", env.getenv("FOUNT_ENDPOINT_ADDR"),
		"serve sources' and workflows' HTTP endpoints (/h/) on this address, apart from the API (FOUNT_ENDPOINT_ADDR; default the --addr host and the next port; api: on the API's address); see SECURITY.md")
	fs.StringVar(&cfg.endpointURL, "endpoint-url", env.getenv("FOUNT_ENDPOINT_URL"),
		"external base URL of the endpoints, best on a host name of its own (FOUNT_ENDPOINT_URL; default http://<endpoint-addr>, or the public URL with --endpoint-addr api)")
	fs.IntVar(&cfg.maxConnections, "max-connections", int(env.int("FOUNT_MAX_CONNECTIONS", 0)),
		"open connections per listener at most (FOUNT_MAX_CONNECTIONS; default half the open-file limit)")
	fs.DurationVar(&cfg.runTimeout, "run-timeout", env.duration("FOUNT_RUN_TIMEOUT", host.DefaultTimeout),
		"how long a run, a hook or loading a component may take (FOUNT_RUN_TIMEOUT)")
	fs.IntVar(&cfg.workers, "workers", int(env.int("FOUNT_WORKERS", 0)),
		"how many runs, hooks and loads execute at once (FOUNT_WORKERS; default 4)")
	fs.IntVar(&cfg.accountWorkers, "account-workers", int(env.int("FOUNT_ACCOUNT_WORKERS", 0)),
		"how many of the workers one account may hold (FOUNT_ACCOUNT_WORKERS; default half the workers, and fewer than the CPUs)")
	fs.StringVar(&cfg.cacheDir, "cache-dir", env.getenv("FOUNT_CACHE_DIR"), "where the compiled sandbox is cached, to skip compiling it on the next start (FOUNT_CACHE_DIR; default <data-dir>/cache)")
	fs.StringVar(&cfg.publicURL, "public-url", env.getenv("FOUNT_PUBLIC_URL"), "external base URL for endpoint URLs (FOUNT_PUBLIC_URL; default http://<addr>)")
	fs.BoolVar(&cfg.allowPrivateEgress, "allow-private-egress", env.getenv("FOUNT_ALLOW_PRIVATE_EGRESS") == "1",
		"let webhooks and fetch reach loopback and private addresses (FOUNT_ALLOW_PRIVATE_EGRESS=1)")
	fs.Int64Var(&cfg.quotaInvocations, "quota-invocations", env.int("FOUNT_QUOTA_INVOCATIONS", engine.DefaultQuotaInvocations),
		"daily invocations of a free account (FOUNT_QUOTA_INVOCATIONS)")
	fs.Int64Var(&cfg.quotaComputeMs, "quota-compute-ms", env.int("FOUNT_QUOTA_COMPUTE_MS", engine.DefaultQuotaComputeMs),
		"daily compute milliseconds of a free account (FOUNT_QUOTA_COMPUTE_MS)")
	fs.IntVar(&cfg.eventsKept, "events-kept", int(env.int("FOUNT_EVENTS_KEPT", 100)),
		"events kept per source and channel (FOUNT_EVENTS_KEPT; the spec's figure is 100)")
	fs.IntVar(&cfg.executionsKept, "executions-kept", int(env.int("FOUNT_EXECUTIONS_KEPT", 100)),
		"executions kept per workflow, with each step's values and logs (FOUNT_EXECUTIONS_KEPT)")
	fs.DurationVar(&cfg.executionRetryBase, "execution-retry-base", env.duration("FOUNT_EXECUTION_RETRY_BASE", 30*time.Second),
		"the first wait before a failed execution's step is retried (a workflow's retry); each next wait doubles (FOUNT_EXECUTION_RETRY_BASE)")
	fs.IntVar(&cfg.dataStoreKeys, "data-store-max-keys", int(env.int("FOUNT_DATA_STORE_MAX_KEYS", 10_000)),
		"keys one data store may hold (FOUNT_DATA_STORE_MAX_KEYS)")
	fs.Int64Var(&cfg.dataStoreBytes, "data-store-max-bytes", env.int("FOUNT_DATA_STORE_MAX_BYTES", 2<<20),
		"bytes of keys and values one data store may hold, at most 3 MiB so that entries() fits one message (FOUNT_DATA_STORE_MAX_BYTES)")
	fs.IntVar(&cfg.maxPaused, "max-paused-executions", int(env.int("FOUNT_MAX_PAUSED_EXECUTIONS", 10_000)),
		"executions of one workflow that may wait on $.flow.delay, suspend or rerun at once (FOUNT_MAX_PAUSED_EXECUTIONS)")
	fs.DurationVar(&cfg.executionTimeout, "execution-timeout", env.duration("FOUNT_EXECUTION_TIMEOUT", 5*time.Minute),
		"how long a workflow execution may take, all its steps together; each step also has --run-timeout (FOUNT_EXECUTION_TIMEOUT)")
	fs.IntVar(&cfg.channelsPerSource, "channels-per-source", int(env.int("FOUNT_CHANNELS_PER_SOURCE", engine.DefaultMaxChannels)),
		"channels a source may have besides the default one, $errors and $logs; emits to more are dropped (FOUNT_CHANNELS_PER_SOURCE)")
	fs.IntVar(&cfg.maxWarm, "max-warm-instances", int(env.int("FOUNT_MAX_WARM_INSTANCES", defaultMaxWarm)),
		"warm sandbox instances kept across all sources, each a MiB or more; past it the least recently used are closed and restore from their snapshots when next run (FOUNT_MAX_WARM_INSTANCES)")
	fs.StringVar(&cfg.npmRegistry, "npm-registry", env.getenv("FOUNT_NPM_REGISTRY"),
		"npm registry that components' package imports resolve against at deploy (FOUNT_NPM_REGISTRY; default the registry npm on this machine is configured with)")
	fs.IntVar(&cfg.maxBundle, "max-bundle-size", int(env.int("FOUNT_MAX_BUNDLE_SIZE", bundle.DefaultMaxBundle)),
		"bytes a component's code may have once its npm packages are bundled in (FOUNT_MAX_BUNDLE_SIZE)")
	fs.DurationVar(&cfg.npmTimeout, "npm-timeout", env.duration("FOUNT_NPM_TIMEOUT", bundle.DefaultTimeout),
		"how long resolving and downloading a component's npm packages may take (FOUNT_NPM_TIMEOUT)")
	fs.Int64Var(&cfg.npmCacheBytes, "npm-cache-size", env.int("FOUNT_NPM_CACHE_SIZE", bundle.DefaultCacheBytes),
		"bytes the unpacked npm packages of all tenants may take in <data-dir>/npm; past it the least recently used are removed (FOUNT_NPM_CACHE_SIZE)")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", env.getenv("FOUNT_METRICS_ADDR"),
		"serve Prometheus /metrics on this address only (FOUNT_METRICS_ADDR; default: /metrics on the API's address)")
	fs.IntVar(&cfg.disableFailures, "webhook-disable-failures", int(env.int("FOUNT_WEBHOOK_DISABLE_FAILURES", 20)),
		"deactivate a webhook after this many deliveries in a row failed for good (FOUNT_WEBHOOK_DISABLE_FAILURES; 0: never)")
	fs.DurationVar(&cfg.disableAge, "webhook-disable-age", env.duration("FOUNT_WEBHOOK_DISABLE_AGE", 24*time.Hour),
		"... and only when they span at least this long (FOUNT_WEBHOOK_DISABLE_AGE)")
	fs.BoolVar(&cfg.pprof, "pprof", env.getenv("FOUNT_PPROF") == "1",
		"serve Go's profiler at /debug/pprof/ on the API's address, which must then be loopback (FOUNT_PPROF=1)")
	fs.StringVar(&cfg.logFormat, "log-format", env.or("FOUNT_LOG_FORMAT", "text"), "log lines as text or json (FOUNT_LOG_FORMAT)")
	logLevel := fs.String("log-level", env.or("FOUNT_LOG_LEVEL", "info"), "the least level logged: debug, info, warn or error (FOUNT_LOG_LEVEL)")
	fs.StringVar(&cfg.storeURL, "store", env.or("FOUNT_STORE", "bolt"),
		"where state is kept: bolt (a file in the data dir) or nats://host:4222[,nats://...], a NATS JetStream cluster shared by several fount nodes (FOUNT_STORE; see docs/nats.md)")
	fs.StringVar(&cfg.natsCreds, "nats-creds", env.getenv("FOUNT_NATS_CREDS"), "a NATS credentials file, with --store nats://... (FOUNT_NATS_CREDS)")
	fs.StringVar(&cfg.natsNamespace, "nats-namespace", env.or("FOUNT_NATS_NAMESPACE", "fount"),
		"names this deployment's stream and subjects on the NATS cluster (FOUNT_NATS_NAMESPACE)")
	fs.IntVar(&cfg.natsReplicas, "nats-replicas", int(env.int("FOUNT_NATS_REPLICAS", 1)),
		"how many NATS servers hold fount's stream when this node creates it: 3 on a cluster of three (FOUNT_NATS_REPLICAS)")
	fs.StringVar(&cfg.nodeName, "node-name", env.getenv("FOUNT_NODE_NAME"), "this node's name among several sharing a NATS store (FOUNT_NODE_NAME; default the host name and process id)")
	fs.DurationVar(&cfg.nodeLeaseTTL, "node-lease-ttl", env.duration("FOUNT_NODE_LEASE_TTL", cluster.DefaultLeaseTTL),
		"with --store nats://...: how long a node that stopped answering keeps its share of the work before the others take it over; whole seconds, at least 3s (FOUNT_NODE_LEASE_TTL)")
	fs.StringVar(&cfg.s3.Endpoint, "s3-endpoint", env.getenv("FOUNT_S3_ENDPOINT"),
		"an S3-compatible server (http(s)://host[:port]) that workflows' $.send.s3 writes to, in --s3-bucket, with the keys of FOUNT_S3_ACCESS_KEY_ID and FOUNT_S3_SECRET_ACCESS_KEY (FOUNT_S3_ENDPOINT; default none: $.send.s3 fails the step)")
	fs.StringVar(&cfg.s3.Bucket, "s3-bucket", env.getenv("FOUNT_S3_BUCKET"), "the bucket of --s3-endpoint (FOUNT_S3_BUCKET)")
	fs.StringVar(&cfg.s3.Region, "s3-region", env.or("FOUNT_S3_REGION", "us-east-1"), "the region the bucket's requests are signed for (FOUNT_S3_REGION)")
	cfg.s3.AccessKeyID, cfg.s3.SecretAccessKey = env.getenv("FOUNT_S3_ACCESS_KEY_ID"), env.getenv("FOUNT_S3_SECRET_ACCESS_KEY")
	cfg.natsToken = env.getenv("FOUNT_NATS_TOKEN")
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
	if cfg.s3.Endpoint == "" && (cfg.s3.Bucket != "" || cfg.s3.AccessKeyID != "" || cfg.s3.SecretAccessKey != "") {
		return cfg, errors.New("--s3-bucket and FOUNT_S3_ACCESS_KEY_ID/FOUNT_S3_SECRET_ACCESS_KEY need --s3-endpoint")
	}
	if cfg.s3.Endpoint != "" {
		if _, err := s3.New(cfg.s3); err != nil {
			return cfg, fmt.Errorf("--s3-endpoint: %w", err)
		}
	}
	cfg.caps = limits
	if cfg.quotaInvocations < 1 || cfg.quotaComputeMs < 1 || cfg.eventsKept < 1 || cfg.channelsPerSource < 1 || cfg.maxWarm < 1 {
		return cfg, fmt.Errorf("--quota-invocations, --quota-compute-ms, --events-kept, --channels-per-source and --max-warm-instances must be at least 1")
	}
	if cfg.executionRetryBase < 100*time.Millisecond || cfg.executionRetryBase > time.Hour {
		return cfg, fmt.Errorf("--execution-retry-base must be from 100ms to 1h, got %s", cfg.executionRetryBase)
	}
	if cfg.dataStoreKeys < 1 || cfg.dataStoreKeys > 100_000 {
		return cfg, fmt.Errorf("--data-store-max-keys must be from 1 to 100000, got %d", cfg.dataStoreKeys)
	}
	if cfg.dataStoreBytes < 1<<10 || cfg.dataStoreBytes > 3<<20 {
		return cfg, fmt.Errorf("--data-store-max-bytes must be from 1024 to 3145728, got %d", cfg.dataStoreBytes)
	}
	if cfg.maxPaused < 1 || cfg.maxPaused > 100_000 {
		return cfg, fmt.Errorf("--max-paused-executions must be from 1 to 100000, got %d", cfg.maxPaused)
	}
	if cfg.executionsKept < 1 || cfg.executionsKept > 10_000 {
		return cfg, fmt.Errorf("--executions-kept must be from 1 to 10000, got %d", cfg.executionsKept)
	}
	if cfg.executionTimeout < 100*time.Millisecond || cfg.executionTimeout > time.Hour {
		return cfg, fmt.Errorf("--execution-timeout must be between 100ms and 1h, got %v", cfg.executionTimeout)
	}
	if err := cfg.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level must be debug, info, warn or error, got %q", *logLevel)
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return cfg, fmt.Errorf("--log-format must be text or json, got %q", cfg.logFormat)
	}
	if cfg.npmRegistry == "" { // npm's own variable, as npm would read it
		cfg.npmRegistry = env.or("npm_config_registry", env.getenv("NPM_CONFIG_REGISTRY"))
	}
	if cfg.disableFailures < 0 || cfg.disableAge < 0 {
		return cfg, fmt.Errorf("--webhook-disable-failures and --webhook-disable-age must be 0 or more")
	}
	if cfg.pprof && !isLoopbackAddr(cfg.addr) {
		return cfg, fmt.Errorf("--pprof needs a loopback --addr (127.0.0.1 or [::1]), got %q: the profiler shows the process's memory", cfg.addr)
	}
	if cfg.pprof && cfg.allowPrivateEgress {
		// Loopback is then in reach of every tenant's fetch.
		return cfg, fmt.Errorf("--pprof and --allow-private-egress cannot be used together: tenants' fetch could then read the profiler on loopback, and with it the process's memory")
	}
	if err := checkNpmFlags(cfg); err != nil {
		return cfg, err
	}
	if cfg.maxConnections < 0 || cfg.workers < 0 || cfg.accountWorkers < 0 {
		return cfg, fmt.Errorf("--max-connections, --workers and --account-workers must be 0 (the default) or more")
	}
	if cfg.runTimeout < 100*time.Millisecond || cfg.runTimeout > 15*time.Minute {
		return cfg, fmt.Errorf("--run-timeout must be between 100ms and 15m, got %v", cfg.runTimeout)
	}
	if err := checkStoreFlags(cfg); err != nil {
		return cfg, err
	}
	if cfg.publicURL != "" && cfg.endpointURL == "" && cfg.endpointAddr != endpointsOnAPI {
		return cfg, fmt.Errorf("--public-url names the API's external URL: name the endpoints' with --endpoint-url (they listen apart, on --endpoint-addr), best on a host name of their own; or serve them on the API's address with --endpoint-addr api")
	}
	for flag, value := range map[string]string{"--public-url": cfg.publicURL, "--endpoint-url": cfg.endpointURL} {
		if err := checkBaseURL(value); err != nil {
			return cfg, fmt.Errorf("%s: %w", flag, err)
		}
	}
	return cfg, nil
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
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	var handler slog.Handler = slog.NewTextHandler(stderr, opts)
	if cfg.logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, opts)
	}
	logger := slog.New(handler)
	if err := serve(ctx, cfg, stdout, logger); err != nil {
		logger.Error("server stopped", "err", err)
		return exitError
	}
	return exitOK
}

// serve runs the server until ctx is cancelled, then shuts down: stop
// accepting HTTP, finish background work, stop the engine (timers, runs,
// deliveries), close the sandbox, close the store last.
func serve(ctx context.Context, cfg serveConfig, stdout io.Writer, logger *slog.Logger) error {
	meters := metrics.New()
	start, err := takeStartup(ctx, cfg, store.WithCommitObserver(meters.StoreCommitted))
	if err != nil {
		return err
	}
	st, ln, endpointLn := start.st, start.ln, start.endpointLn
	defer st.Close()
	defer start.closeListeners() // a start that fails later frees the ports; after Serve, closing again does nothing
	if err := bootstrapOwner(ctx, st, cfg, stdout); err != nil {
		return err
	}
	keyFile := cfg.secretKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(cfg.dataDir, "secret.key")
	}
	sealer, err := secret.LoadOrCreateSealer(keyFile)
	if err != nil {
		return err
	}
	// Workers that parse and bundle untrusted code run as this
	// executable, in processes of their own, confined by the kernel to
	// the files they need.
	if confine.Version() == 0 {
		logger.Warn("this kernel has no Landlock: the workers that parse and bundle tenants' code run unconfined (see SECURITY.md, npm resolution)")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this executable, to parse code in a process of its own: %w", err)
	}
	box := cfg.sandbox
	if box == nil {
		cacheDir := cfg.cacheDir
		if cacheDir == "" {
			cacheDir = filepath.Join(cfg.dataDir, "cache")
		}
		// Idle sources' snapshots go to sealed files under the data dir
		// (host.Config.SpillDir), so that thousands of idle sources cost
		// little memory.
		hostCfg := host.Config{CacheDir: cacheDir, Analyzer: processAnalyzer{exe: exe}, Limits: limitsOf(cfg), MaxWarm: cfg.maxWarm,
			SpillDir: filepath.Join(cfg.dataDir, "spill")}
		if box, err = host.New(ctx, hostCfg); err != nil {
			return err
		}
		defer box.Close(context.Background())
	}
	registry, err := loadRegistry(ctx, box)
	if err != nil {
		return err
	}

	limits := defaultLimits(cfg.maxConnections)
	if cfg.limits != nil {
		limits = *cfg.limits
	}
	publicURL := cfg.publicURL
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	endpointURL := cfg.endpointURL
	if endpointLn != nil && endpointURL == "" {
		endpointURL = "http://" + endpointLn.Addr().String()
	}
	if endpointURL == "" {
		endpointURL = publicURL
	}
	// Cookies are kept by host name, whatever the port: endpoints on the
	// API's host name would share the dashboard's.
	shareSite := endpointLn == nil || sameHostName(publicURL, endpointURL)
	policy := egress.New(cfg.allowPrivateEgress, 10*time.Second, 1<<20)
	var backup func(ctx context.Context, w io.Writer) error // none on NATS: JetStream's own tools back up its streams
	if reporter, ok := st.(store.StatsReporter); ok {
		meters.WatchStore(func() (time.Duration, int64, int64) {
			stats := reporter.Stats()
			return stats.WriteTime, stats.Writes, stats.SizeBytes
		})
	}
	if backuper, ok := st.(store.Backuper); ok {
		backup = func(ctx context.Context, w io.Writer) error {
			return writeBackup(ctx, w, backuper, keyFile, time.Now())
		}
	}
	queues := &recentDepths{count: st.QueueDepths, every: queueCountEvery, now: time.Now}
	meters.WatchQueues(func() (int, int, error) { return queues.depths(ctx) })
	meters.WatchSandbox(box.Stats)
	var objects engine.ObjectSink
	if cfg.s3.Endpoint != "" {
		bucket, err := s3.New(cfg.s3)
		if err != nil {
			return err
		}
		objects = bucket
	}
	var nodes engine.Cluster
	if shared, ok := st.(store.Shared); ok {
		c, err := cluster.New(cluster.Config{Store: shared, Node: nodeName(cfg), LeaseTTL: cfg.nodeLeaseTTL, Logger: logger})
		if err != nil {
			return err
		}
		meters.WatchCluster(c.Owned)
		nodes = c
	}
	eng, err := engine.New(engine.Config{
		Cluster: nodes,
		Store:   st, Queues: st, Sandbox: box, Secrets: sealer, Egress: loggedEgress{policy, logger, meters}, Observer: meters, PublicURL: endpointURL, Logger: logger, BodyTimeout: limits.body,
		EndpointsShareSite: shareSite,
		Limits:             limitsOf(cfg), Workers: cfg.workers, AccountWorkers: cfg.accountWorkers,
		QuotaInvocations: cfg.quotaInvocations, QuotaComputeMs: cfg.quotaComputeMs, EventsKept: cfg.eventsKept,
		MaxChannels: cfg.channelsPerSource, ExecutionsKept: cfg.executionsKept, MaxPausedExecutions: cfg.maxPaused, DataStoreMaxKeys: cfg.dataStoreKeys, DataStoreMaxBytes: cfg.dataStoreBytes, ExecutionRetryBase: cfg.executionRetryBase, ExecutionTimeout: cfg.executionTimeout,
		Packages: newNpmPackages(exe, cfg, logger), DisableWebhookAfter: cfg.disableFailures, DisableWebhookAge: cfg.disableAge,
		Objects: objects,
	})
	if err != nil {
		return err
	}
	if err := eng.Start(ctx); err != nil {
		return fmt.Errorf("start engine: %w", err)
	}
	defer eng.Stop()
	server := api.New(api.Config{
		Engine: eng, CodeFetcher: codeFetcher{policy}, PublicURL: endpointURL, Registry: registry, Logger: logger,
		StreamHeartbeat:  cfg.heartbeat,
		OnRequest:        meters.Request,
		Dashboard:        dashboard.Handler(),
		SiteURL:          publicURL,
		CheckDestination: func(ctx context.Context, url string) error { return checkDestination(ctx, policy, url) },
		Backup:           backup,
		Ready: func(ctx context.Context) error {
			if err := st.Ping(ctx); err != nil {
				return fmt.Errorf("the store does not answer: %w", err)
			}
			return eng.Running()
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/", withDeadlines(server.Handler(), limits.request))
	apiServer, apiLn := newHTTPServer(mux, ln, limits, logger, "api")
	servers, listeners := []*http.Server{apiServer}, []net.Listener{apiLn}
	if start.metricsLn != nil {
		metricsMux := http.NewServeMux()
		metricsMux.Handle("/metrics", meters.Handler())
		srv, l := newHTTPServer(metricsMux, start.metricsLn, limits, logger, "metrics")
		servers, listeners = append(servers, srv), append(listeners, l)
		fmt.Fprintf(stdout, "fount serves metrics on http://%s/metrics\n", start.metricsLn.Addr())
	} else {
		mux.Handle("/metrics", meters.Handler())
	}
	if cfg.pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if endpointLn != nil {
		// Tenants' content on an origin of its own: the API's origin
		// serves no endpoint, and the endpoints' serves no API.
		srv, l := newHTTPServer(withEndpointBodyRate(eng.Ingress(), limits.body), endpointLn, limits, logger, "endpoints")
		servers, listeners = append(servers, srv), append(listeners, l)
		fmt.Fprintf(stdout, "fount serves endpoints on http://%s as %s\n", endpointLn.Addr(), endpointURL)
	} else {
		mux.Handle(component.EndpointPath, withEndpointBodyRate(eng.Ingress(), limits.body))
	}
	for _, srv := range servers {
		srv.RegisterOnShutdown(server.CloseStreams) // streams never go idle by themselves
		srv.RegisterOnShutdown(eng.ReleaseWaiters)  // nor do requests waiting up to RespondTimeout for respond()
	}
	fmt.Fprintf(stdout, "fount listening on http://%s (data in %s)\n", ln.Addr(), cfg.dataDir)
	if cfg.onListening != nil {
		cfg.onListening(ln.Addr().String())
	}

	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		for _, srv := range servers {
			_ = srv.Close()
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var shutdownErr error
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil && shutdownErr == nil {
			shutdownErr = fmt.Errorf("shutdown: %w", err)
		}
	}
	if shutdownErr != nil {
		return shutdownErr
	}
	logger.Info("server stopped cleanly")
	return nil
}

// minBootstrapKey is the shortest owner key FOUNT_BOOTSTRAP_API_KEY may
// set: the key is all that stands between the network and every tenant.
const minBootstrapKey = 32

// bootstrapOwner creates the owner user on an empty data dir. Its key is
// FOUNT_BOOTSTRAP_API_KEY when set; otherwise a random key, printed once and
// written to <data-dir>/owner.key (mode 0600).
func bootstrapOwner(ctx context.Context, st store.Store, cfg serveConfig, stdout io.Writer) error {
	n, err := st.CountUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	key := strings.TrimSpace(cfg.bootstrapKey)
	generated := key == ""
	if generated {
		key = api.NewAPIKey()
	} else if len(key) < minBootstrapKey {
		return fmt.Errorf("FOUNT_BOOTSTRAP_API_KEY has %d characters: the owner's key needs at least %d (leave it unset for a random one)", len(key), minBootstrapKey)
	}
	// The owner runs the server: no daily quota holds it back (the paid
	// plan has none); the users it creates get the plan it gives them.
	owner := model.User{ID: ids.New(ids.User), Username: "owner", Email: "owner@localhost", Plan: model.PlanPaid, Owner: true, CreatedAt: time.Now().Unix()}
	err = st.CreateUser(ctx, owner, api.HashKey(key))
	if errors.Is(err, model.ErrConflict) {
		// Another node sharing the store created the owner meanwhile
		// (with FOUNT_BOOTSTRAP_API_KEY, the same key).
		fmt.Fprintln(stdout, "the owner was created by another node sharing the store")
		return nil
	}
	if err != nil {
		return fmt.Errorf("create owner: %w", err)
	}
	if generated {
		path := filepath.Join(cfg.dataDir, "owner.key")
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			return fmt.Errorf("write owner key: %w", err)
		}
		fmt.Fprintf(stdout, "created the owner user; its API key (shown once, also in %s):\n%s\n", path, key)
	}
	return nil
}

// limitsOf are the sandbox limits the flags set; the rest are the host's
// defaults.
// defaultMaxWarm bounds warm instances to a few hundred MiB of linear
// memory; an invocation of a source without one restores it from its
// snapshot in well under a millisecond.
const defaultMaxWarm = 256

func limitsOf(cfg serveConfig) sandbox.Limits {
	return sandbox.Limits{Timeout: cfg.runTimeout}
}

// sameHostName reports whether two base URLs name the same host, ports
// aside.
func sameHostName(a, b string) bool {
	ua, erra := url.Parse(a)
	ub, errb := url.Parse(b)
	return erra != nil || errb != nil || strings.EqualFold(ua.Hostname(), ub.Hostname())
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
