package server

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/api"
	"github.com/fount-dev/fount/internal/cluster"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/confine"
	"github.com/fount-dev/fount/internal/dashboard"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/engine/admission"
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/metrics"
	"github.com/fount-dev/fount/internal/records"
	"github.com/fount-dev/fount/internal/s3"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/internal/worker"
)

// Server is a fount server: its store, sandbox and engine, and the HTTP
// servers of its API, endpoints and metrics on their listeners. New
// builds and starts it; Run serves until its context ends, then shuts it
// down. It owns everything it opened, and Run closes all of it.
type Server struct {
	log       *slog.Logger
	servers   []*http.Server
	listeners []net.Listener
	addr      string
	// closers run in reverse order once the HTTP servers are down: stop
	// the engine (timers, runs, deliveries), close the sandbox, close
	// the store last.
	closers []func()
	// stopping tells the store, if it waits for a lost server, that the
	// node stops (store.Stopper); nil otherwise.
	stopping func()
}

// Serve builds a server with New and runs it until ctx ends.
func Serve(ctx context.Context, cfg Config, stdout io.Writer, logger *slog.Logger) error {
	s, err := New(ctx, cfg, stdout, logger)
	if err != nil {
		return err
	}
	return s.Run(ctx)
}

// New checks the data dir, takes the listeners and the store, creates
// the owner on a new store, and starts the engine; what it says for the
// operator (the owner's key, the addresses) goes to stdout. When it
// fails it leaves nothing open.
func New(ctx context.Context, cfg Config, stdout io.Writer, logger *slog.Logger) (_ *Server, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("the server's settings: %w", err)
	}
	s := &Server{log: logger}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	meters := metrics.New()
	start, err := takeStartup(ctx, cfg, store.WithCommitObserver(meters.StoreCommitted), store.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	st := start.st
	s.closers = append(s.closers, func() { st.Close() }, start.closeListeners) // after Serve, closing a listener again does nothing
	if stopper, ok := st.(store.Stopper); ok {
		s.stopping = stopper.Stopping
	}
	if err := bootstrapOwner(ctx, st, cfg, stdout); err != nil {
		return nil, err
	}
	keyFile := cmp.Or(cfg.SecretKeyFile, filepath.Join(cfg.DataDir, "secret.key"))
	sealer, err := secret.LoadOrCreateSealer(keyFile)
	if err != nil {
		return nil, err
	}
	exe, box, err := s.openSandbox(ctx, cfg)
	if err != nil {
		return nil, err
	}
	registry, err := loadRegistry(ctx, box)
	if err != nil {
		return nil, err
	}
	limits := DefaultHTTPLimits(cfg.MaxConnections)
	if cfg.HTTPLimits != nil {
		limits = *cfg.HTTPLimits
	}
	urls := siteURLsOf(cfg, start)
	policy := egress.New(cfg.AllowPrivateEgress, 10*time.Second, 1<<20)
	watch(meters, st, box)
	// One service writes data-store entries for the API and for
	// components, within one set of bounds.
	recs := records.New(records.Config{Store: st, Secrets: sealer, DataStoreMaxKeys: cfg.DataStoreKeys, DataStoreMaxBytes: cfg.DataStoreBytes})
	eng, err := s.startEngine(ctx, cfg, engineParts{store: st, records: recs, box: box, sealer: sealer, policy: policy, meters: meters,
		exe: exe, urls: urls, bodyTimeout: limits.Body, log: logger})
	if err != nil {
		return nil, err
	}
	handler := api.New(api.Config{
		Engine: eng, Records: recs, CodeFetcher: codeFetcher{policy}, PublicURL: urls.endpoints, Registry: registry, Logger: logger,
		StreamHeartbeat:  cfg.StreamHeartbeat,
		OnRequest:        meters.Request,
		Dashboard:        dashboard.Handler(),
		SiteURL:          urls.site,
		CheckDestination: func(ctx context.Context, url string) error { return checkDestination(ctx, policy, url) },
		Backup:           backupOf(st, keyFile, cfg.Version),
		TrustedProxies:   cfg.TrustedProxies,
		Ready: func(ctx context.Context) error {
			if err := st.Ping(ctx); err != nil {
				return fmt.Errorf("the store does not answer: %w", err)
			}
			return eng.Running()
		},
	})
	s.listen(cfg, start, handler, eng, meters, limits, urls, stdout)
	return s, nil
}

// openSandbox returns the executable the workers that parse and bundle
// tenants' code run as (this one, unless cfg.WorkerExe), and the
// sandbox: cfg's, or a new one.
func (s *Server) openSandbox(ctx context.Context, cfg Config) (string, *host.Host, error) {
	// The workers run in processes of their own, confined by the kernel
	// to the files they need.
	if confine.Version() == 0 {
		s.log.Warn("this kernel has no Landlock: the workers that parse and bundle tenants' code run unconfined (see SECURITY.md, npm resolution)")
	}
	exe := cfg.WorkerExe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", nil, fmt.Errorf("find this executable, to parse code in a process of its own: %w", err)
		}
	}
	if cfg.Sandbox != nil {
		return exe, cfg.Sandbox, nil
	}
	// Idle sources' snapshots go to sealed files under the data dir
	// (host.Config.SpillDir), so that thousands of idle sources cost
	// little memory.
	box, err := host.New(ctx, host.Config{CacheDir: cmp.Or(cfg.CacheDir, filepath.Join(cfg.DataDir, "cache")),
		Analyzer: worker.Analyzer{Exe: exe}, Limits: limitsOf(cfg), MaxWarm: cfg.MaxWarm, SpillDir: filepath.Join(cfg.DataDir, "spill"), Engine: cfg.Engine})
	if err != nil {
		return "", nil, err
	}
	s.closers = append(s.closers, func() { box.Close(context.Background()) })
	return exe, box, nil
}

// siteURLs are the external base URLs of a server.
type siteURLs struct {
	site      string // the API's and the dashboard's
	endpoints string // the endpoints': the site's unless they have an origin of their own
	// shareSite: the endpoints are on the site's host name, whose
	// cookies (kept by host name, whatever the port) they would share.
	shareSite bool
}

func siteURLsOf(cfg Config, start *startup) siteURLs {
	u := siteURLs{site: cmp.Or(cfg.PublicURL, "http://"+start.ln.Addr().String()), endpoints: cfg.EndpointURL}
	if start.endpointLn != nil && u.endpoints == "" {
		u.endpoints = "http://" + start.endpointLn.Addr().String()
	}
	u.endpoints = cmp.Or(u.endpoints, u.site)
	u.shareSite = start.endpointLn == nil || sameHostName(u.site, u.endpoints)
	return u
}

// watch has meters read the store's and the sandbox's figures.
func watch(meters *metrics.Metrics, st servedStore, box *host.Host) {
	if reporter, ok := st.(store.StatsReporter); ok {
		meters.WatchStore(func() (time.Duration, int64, int64) {
			stats := reporter.Stats()
			return stats.WriteTime, stats.Writes, stats.SizeBytes
		})
	}
	queues := &recentDepths{count: st.QueueDepths, every: queueCountEvery, now: time.Now}
	meters.WatchQueues(func() (int, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), queueCountTimeout)
		defer cancel()
		return queues.depths(ctx)
	})
	meters.WatchSandbox(box.Stats)
}

// backupOf writes backups of st with the key file, or is nil: on NATS,
// JetStream's own tools back up its streams.
func backupOf(st servedStore, keyFile, version string) func(ctx context.Context, w io.Writer) error {
	backuper, ok := st.(store.Backuper)
	if !ok {
		return nil
	}
	return func(ctx context.Context, w io.Writer) error {
		return writeBackup(ctx, w, backuper, keyFile, version, time.Now())
	}
}

// engineParts are what the engine is built on.
type engineParts struct {
	store       servedStore
	records     *records.Service
	box         *host.Host
	sealer      *secret.Sealer
	policy      *egress.Policy
	meters      *metrics.Metrics
	exe         string
	urls        siteURLs
	bodyTimeout time.Duration
	log         *slog.Logger
}

// startEngine builds the engine, with the bucket of $.send.s3 and the
// cluster of a shared store when cfg has them, and starts it.
func (s *Server) startEngine(ctx context.Context, cfg Config, p engineParts) (*engine.Engine, error) {
	var objects delivery.ObjectSink
	if cfg.S3.Endpoint != "" {
		bucket, err := s3.New(cfg.S3)
		if err != nil {
			return nil, err
		}
		objects = bucket
	}
	var nodes engine.Cluster
	if shared, ok := p.store.(store.Shared); ok {
		c, err := cluster.New(cluster.Config{Store: shared, Node: nodeName(cfg), LeaseTTL: cfg.NodeLeaseTTL, Logger: p.log})
		if err != nil {
			return nil, err
		}
		p.meters.WatchCluster(c.Owned)
		nodes = c
	}
	eng, err := engine.New(engine.Config{
		Cluster: nodes, Store: p.store, Queues: p.store, Sandbox: p.box, Secrets: p.sealer, Objects: objects,
		Egress: loggedEgress{p.policy, p.log, p.meters}, Observer: p.meters, Logger: p.log,
		PublicURL: p.urls.endpoints, EndpointsShareSite: p.urls.shareSite, BodyTimeout: p.bodyTimeout,
		Limits: limitsOf(cfg), Workers: cfg.Workers, AccountWorkers: cfg.AccountWorkers,
		QuotaInvocations: cfg.QuotaInvocations, QuotaComputeMs: cfg.QuotaComputeMs, EventsKept: cfg.EventsKept,
		MaxChannels: cfg.ChannelsPerSource, ExecutionsKept: cfg.ExecutionsKept, MaxPausedExecutions: cfg.MaxPaused,
		Records:            p.records,
		ExecutionRetryBase: cfg.ExecutionRetryBase, ExecutionTimeout: cfg.ExecutionTimeout,
		Packages:            worker.NewPackages(p.exe, npmConfig(cfg), p.log),
		DisableWebhookAfter: cfg.DisableFailures, DisableWebhookAge: cfg.DisableAge,
		TrustedProxies: cfg.TrustedProxies,
		Sandboxes:      admission.Config{AccountSandboxes: cfg.AccountSandboxes, AccountBytes: cfg.AccountSandboxMemory, ServerBytes: cfg.SandboxMemory},
		SandboxMemory:  host.DefaultMemory,
	})
	if err != nil {
		return nil, err
	}
	p.meters.WatchAdmission(eng.Sandboxes)
	if err := eng.Start(ctx); err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	s.closers = append(s.closers, eng.Stop)
	return eng, nil
}

// listen readies the HTTP servers on the listeners start took: the API
// (with the dashboard, and the metrics and endpoints unless they have
// listeners of their own), the metrics and the endpoints.
func (s *Server) listen(cfg Config, start *startup, handler *api.Server, eng *engine.Engine, meters *metrics.Metrics, limits HTTPLimits, urls siteURLs, stdout io.Writer) {
	mux := http.NewServeMux()
	mux.Handle("/", withDeadlines(handler.Handler(), limits.Request))
	s.serveOn(start.ln, mux, limits, "api")
	if start.metricsLn != nil {
		metricsMux := http.NewServeMux()
		metricsMux.Handle("/metrics", meters.Handler())
		s.serveOn(start.metricsLn, metricsMux, limits, "metrics")
		fmt.Fprintf(stdout, "fount serves metrics on http://%s/metrics\n", start.metricsLn.Addr())
	} else {
		mux.Handle("/metrics", meters.Handler())
	}
	if cfg.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	endpoints := withEndpointBodyRate(eng.Ingress(), limits.Body)
	if start.endpointLn != nil {
		// Tenants' content on an origin of its own: the API's origin
		// serves no endpoint, and the endpoints' serves no API.
		s.serveOn(start.endpointLn, endpoints, limits, "endpoints")
		fmt.Fprintf(stdout, "fount serves endpoints on http://%s as %s\n", start.endpointLn.Addr(), urls.endpoints)
	} else {
		mux.Handle(component.EndpointPath, endpoints)
	}
	for _, srv := range s.servers {
		srv.RegisterOnShutdown(handler.CloseStreams) // streams never go idle by themselves
		srv.RegisterOnShutdown(eng.ReleaseWaiters)   // nor do requests waiting up to RespondTimeout for respond()
	}
	s.addr = start.ln.Addr().String()
	fmt.Fprintf(stdout, "fount listening on http://%s (data in %s)\n", s.addr, cfg.DataDir)
	if cfg.OnListening != nil {
		cfg.OnListening(s.addr)
	}
}

// serveOn readies an HTTP server of h on ln, which Run starts.
func (s *Server) serveOn(ln net.Listener, h http.Handler, limits HTTPLimits, name string) {
	srv, l := newHTTPServer(h, ln, limits, s.log, name)
	s.servers, s.listeners = append(s.servers, srv), append(s.listeners, l)
}

// Addr is the address the API listens on.
func (s *Server) Addr() string { return s.addr }

// Run serves until ctx ends or a listener fails, then shuts down: stop
// accepting HTTP and let requests finish (10 seconds at most), then close
// what New opened.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	errc := make(chan error, len(s.servers))
	for i, srv := range s.servers {
		go func() { errc <- srv.Serve(s.listeners[i]) }()
	}
	select {
	case err := <-errc:
		s.beginStopping()
		for _, srv := range s.servers {
			_ = srv.Close()
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.beginStopping() // before the requests are waited for: some may wait on the store
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var shutdownErr error
	for _, srv := range s.servers {
		if err := srv.Shutdown(shutdownCtx); err != nil && shutdownErr == nil {
			shutdownErr = fmt.Errorf("shutdown: %w", err)
		}
	}
	if shutdownErr != nil {
		return shutdownErr
	}
	s.log.Info("server stopped cleanly")
	return nil
}

// beginStopping tells the store that the node stops, if it cares.
func (s *Server) beginStopping() {
	if s.stopping != nil {
		s.stopping()
	}
}

// close runs the closers, newest first.
func (s *Server) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// DefaultMaxWarm bounds warm instances to a few hundred MiB of linear
// memory; an invocation of a source without one restores it from its
// snapshot in well under a millisecond.
const DefaultMaxWarm = 256

// limitsOf are the sandbox limits the flags set; the rest are the host's
// defaults.
func limitsOf(cfg Config) sandbox.Limits {
	return sandbox.Limits{Timeout: cfg.RunTimeout}
}

// sameHostName reports whether two base URLs name the same host, ports
// aside.
func sameHostName(a, b string) bool {
	ua, erra := url.Parse(a)
	ub, errb := url.Parse(b)
	return erra != nil || errb != nil || strings.EqualFold(ua.Hostname(), ub.Hostname())
}
