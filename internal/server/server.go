package server

import (
	"context"
	"errors"
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
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/metrics"
	"github.com/fount-dev/fount/internal/model"
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
	s := &Server{log: logger}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	meters := metrics.New()
	start, err := takeStartup(ctx, cfg, store.WithCommitObserver(meters.StoreCommitted))
	if err != nil {
		return nil, err
	}
	st, ln, endpointLn := start.st, start.ln, start.endpointLn
	s.closers = append(s.closers, func() { st.Close() }, start.closeListeners) // after Serve, closing a listener again does nothing
	if err := bootstrapOwner(ctx, st, cfg, stdout); err != nil {
		return nil, err
	}
	keyFile := cfg.SecretKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(cfg.DataDir, "secret.key")
	}
	sealer, err := secret.LoadOrCreateSealer(keyFile)
	if err != nil {
		return nil, err
	}
	// Workers that parse and bundle untrusted code run as this
	// executable, in processes of their own, confined by the kernel to
	// the files they need.
	if confine.Version() == 0 {
		logger.Warn("this kernel has no Landlock: the workers that parse and bundle tenants' code run unconfined (see SECURITY.md, npm resolution)")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable, to parse code in a process of its own: %w", err)
	}
	box := cfg.Sandbox
	if box == nil {
		cacheDir := cfg.CacheDir
		if cacheDir == "" {
			cacheDir = filepath.Join(cfg.DataDir, "cache")
		}
		// Idle sources' snapshots go to sealed files under the data dir
		// (host.Config.SpillDir), so that thousands of idle sources cost
		// little memory.
		hostCfg := host.Config{CacheDir: cacheDir, Analyzer: worker.Analyzer{Exe: exe}, Limits: limitsOf(cfg), MaxWarm: cfg.MaxWarm,
			SpillDir: filepath.Join(cfg.DataDir, "spill")}
		if box, err = host.New(ctx, hostCfg); err != nil {
			return nil, err
		}
		s.closers = append(s.closers, func() { box.Close(context.Background()) })
	}
	registry, err := loadRegistry(ctx, box)
	if err != nil {
		return nil, err
	}

	limits := DefaultHTTPLimits(cfg.MaxConnections)
	if cfg.HTTPLimits != nil {
		limits = *cfg.HTTPLimits
	}
	publicURL := cfg.PublicURL
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	endpointURL := cfg.EndpointURL
	if endpointLn != nil && endpointURL == "" {
		endpointURL = "http://" + endpointLn.Addr().String()
	}
	if endpointURL == "" {
		endpointURL = publicURL
	}
	// Cookies are kept by host name, whatever the port: endpoints on the
	// API's host name would share the dashboard's.
	shareSite := endpointLn == nil || sameHostName(publicURL, endpointURL)
	policy := egress.New(cfg.AllowPrivateEgress, 10*time.Second, 1<<20)
	var backup func(ctx context.Context, w io.Writer) error // none on NATS: JetStream's own tools back up its streams
	if reporter, ok := st.(store.StatsReporter); ok {
		meters.WatchStore(func() (time.Duration, int64, int64) {
			stats := reporter.Stats()
			return stats.WriteTime, stats.Writes, stats.SizeBytes
		})
	}
	if backuper, ok := st.(store.Backuper); ok {
		backup = func(ctx context.Context, w io.Writer) error {
			return writeBackup(ctx, w, backuper, keyFile, cfg.Version, time.Now())
		}
	}
	queues := &recentDepths{count: st.QueueDepths, every: queueCountEvery, now: time.Now}
	meters.WatchQueues(func() (int, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), queueCountTimeout)
		defer cancel()
		return queues.depths(ctx)
	})
	meters.WatchSandbox(box.Stats)
	var objects delivery.ObjectSink
	if cfg.S3.Endpoint != "" {
		bucket, err := s3.New(cfg.S3)
		if err != nil {
			return nil, err
		}
		objects = bucket
	}
	var nodes engine.Cluster
	if shared, ok := st.(store.Shared); ok {
		c, err := cluster.New(cluster.Config{Store: shared, Node: nodeName(cfg), LeaseTTL: cfg.NodeLeaseTTL, Logger: logger})
		if err != nil {
			return nil, err
		}
		meters.WatchCluster(c.Owned)
		nodes = c
	}
	eng, err := engine.New(engine.Config{
		Cluster: nodes,
		Store:   st, Queues: st, Sandbox: box, Secrets: sealer, Egress: loggedEgress{policy, logger, meters}, Observer: meters, PublicURL: endpointURL, Logger: logger, BodyTimeout: limits.Body,
		EndpointsShareSite: shareSite,
		Limits:             limitsOf(cfg), Workers: cfg.Workers, AccountWorkers: cfg.AccountWorkers,
		QuotaInvocations: cfg.QuotaInvocations, QuotaComputeMs: cfg.QuotaComputeMs, EventsKept: cfg.EventsKept,
		MaxChannels: cfg.ChannelsPerSource, ExecutionsKept: cfg.ExecutionsKept, MaxPausedExecutions: cfg.MaxPaused, DataStoreMaxKeys: cfg.DataStoreKeys, DataStoreMaxBytes: cfg.DataStoreBytes, ExecutionRetryBase: cfg.ExecutionRetryBase, ExecutionTimeout: cfg.ExecutionTimeout,
		Packages: worker.NewPackages(exe, npmConfig(cfg), logger), DisableWebhookAfter: cfg.DisableFailures, DisableWebhookAge: cfg.DisableAge,
		Objects: objects,
	})
	if err != nil {
		return nil, err
	}
	if err := eng.Start(ctx); err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	s.closers = append(s.closers, eng.Stop)
	server := api.New(api.Config{
		Engine: eng, CodeFetcher: codeFetcher{policy}, PublicURL: endpointURL, Registry: registry, Logger: logger,
		StreamHeartbeat:  cfg.StreamHeartbeat,
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
	mux.Handle("/", withDeadlines(server.Handler(), limits.Request))
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
	if cfg.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if endpointLn != nil {
		// Tenants' content on an origin of its own: the API's origin
		// serves no endpoint, and the endpoints' serves no API.
		srv, l := newHTTPServer(withEndpointBodyRate(eng.Ingress(), limits.Body), endpointLn, limits, logger, "endpoints")
		servers, listeners = append(servers, srv), append(listeners, l)
		fmt.Fprintf(stdout, "fount serves endpoints on http://%s as %s\n", endpointLn.Addr(), endpointURL)
	} else {
		mux.Handle(component.EndpointPath, withEndpointBodyRate(eng.Ingress(), limits.Body))
	}
	for _, srv := range servers {
		srv.RegisterOnShutdown(server.CloseStreams) // streams never go idle by themselves
		srv.RegisterOnShutdown(eng.ReleaseWaiters)  // nor do requests waiting up to RespondTimeout for respond()
	}
	fmt.Fprintf(stdout, "fount listening on http://%s (data in %s)\n", ln.Addr(), cfg.DataDir)
	if cfg.OnListening != nil {
		cfg.OnListening(ln.Addr().String())
	}

	s.servers, s.listeners, s.addr = servers, listeners, ln.Addr().String()
	return s, nil
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
		for _, srv := range s.servers {
			_ = srv.Close()
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
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

// close runs the closers, newest first.
func (s *Server) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// minBootstrapKey is the shortest owner key FOUNT_BOOTSTRAP_API_KEY may
// set: the key is all that stands between the network and every tenant.
const minBootstrapKey = 32

// bootstrapOwner creates the owner user on an empty data dir. Its key is
// FOUNT_BOOTSTRAP_API_KEY when set; otherwise a random key, printed once and
// written to <data-dir>/owner.key (mode 0600).
func bootstrapOwner(ctx context.Context, st store.Store, cfg Config, stdout io.Writer) error {
	n, err := st.CountUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	key := strings.TrimSpace(cfg.BootstrapKey)
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
		path := filepath.Join(cfg.DataDir, "owner.key")
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			return fmt.Errorf("write owner key: %w", err)
		}
		fmt.Fprintf(stdout, "created the owner user; its API key (shown once, also in %s):\n%s\n", path, key)
	}
	return nil
}

// limitsOf are the sandbox limits the flags set; the rest are the host's
// defaults.
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
