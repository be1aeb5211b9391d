package server

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/s3"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/internal/worker"
)

// Config is what a server is started with: `fount serve` fills it from
// its flags and environment (see its --help for each), and tests set it
// directly.
type Config struct {
	Version            string // of this build, written into backups
	Addr               string
	DataDir            string
	CacheDir           string
	SecretKeyFile      string
	EndpointAddr       string
	EndpointURL        string
	MaxConnections     int
	RunTimeout         time.Duration
	Workers            int
	AccountWorkers     int
	PublicURL          string
	AllowPrivateEgress bool
	QuotaInvocations   int64
	QuotaComputeMs     int64
	EventsKept         int
	ExecutionsKept     int
	StatsKept          time.Duration // per-minute statistics of each resource; 0: store.DefaultStatsKept
	NoStats            bool          // count no statistics (benchmarks measure what counting costs)
	MaxPaused          int
	DataStoreKeys      int
	DataStoreBytes     int64
	ExecutionRetryBase time.Duration
	ExecutionTimeout   time.Duration
	ChannelsPerSource  int
	MaxWarm            int // warm sandbox instances of all sources together
	// The sandboxes held at once (engine.Config.Sandboxes): per account
	// by count and by their memory limits, and on the server by memory;
	// 0: engine.DefaultSandboxes.
	AccountSandboxes     int
	AccountSandboxMemory int64
	SandboxMemory        int64
	Engine               string // what runs the guest: host.EngineWazero (default) or host.EngineWasm2go
	NpmRegistry          string
	MaxBundle            int
	NpmTimeout           time.Duration
	NpmCacheBytes        int64
	LogFormat            string     // the binary's, for the logger it gives New
	LogLevel             slog.Level // the binary's, for the logger it gives New
	MetricsAddr          string
	Pprof                bool
	DisableFailures      int
	DisableAge           time.Duration
	BootstrapKey         string // FOUNT_BOOTSTRAP_API_KEY, env only: never on a command line
	StoreURL             string // "bolt", or nats:// URLs (see docs/nats.md)
	NatsCreds            string
	NatsToken            string // FOUNT_NATS_TOKEN, env only: never on a command line
	NatsNamespace        string
	NatsReplicas         int
	NodeName             string
	NodeLeaseTTL         time.Duration
	S3                   s3.Config // the bucket of $.send.s3; Endpoint "" for none
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client that wrong keys and forged resume URLs are counted
	// against; none: the header is ignored.
	TrustedProxies guess.Proxies

	Caps store.Limits // per-account limits, from the flags of caps.go

	// Set by tests, never by flags.
	Sandbox         *host.Host        // a compiled guest to share instead of compiling one (not closed by Run)
	OnListening     func(addr string) // called once the listener is open
	HTTPLimits      *HTTPLimits       // instead of DefaultHTTPLimits(maxConnections)
	StreamHeartbeat time.Duration     // of event streams, instead of the default
	// WorkerExe is the fount executable the workers that parse and
	// bundle tenants' code run as, instead of this one: a test binary
	// built with the race detector names a plain build, whose workers
	// run esbuild several times faster.
	WorkerExe string
}

// NPMCacheDir is where the server keeps npm packages: the one folder the
// bundle worker may read, so no key may live there.
func (c Config) NPMCacheDir() string { return filepath.Join(c.DataDir, "npm") }

// npmConfig is how the server's workers resolve and bundle packages.
func npmConfig(c Config) worker.NPMConfig {
	return worker.NPMConfig{Registry: c.NpmRegistry, Timeout: c.NpmTimeout, MaxBundle: c.MaxBundle,
		CacheDir: c.NPMCacheDir(), CacheBytes: c.NpmCacheBytes, AllowPrivate: c.AllowPrivateEgress}
}
