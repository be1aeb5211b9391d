package server

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/store"
)

// pidFile names, in the data dir, the process that serves it: a second
// server on the same data dir names it when the store is locked.
const pidFile = "fount.pid"

// startup is what serve checks and takes before it creates anything: a
// writable data dir, the listeners, and the store's lock. Only then is
// the owner key created, so a start that cannot serve leaves nothing.
type startup struct {
	ln, endpointLn, metricsLn net.Listener
	st                        servedStore
}

func (s *startup) close() {
	s.closeListeners()
	if s.st != nil {
		s.st.Close()
	}
}

func (s *startup) closeListeners() {
	if s.ln != nil {
		s.ln.Close()
	}
	if s.endpointLn != nil {
		s.endpointLn.Close()
	}
	if s.metricsLn != nil {
		s.metricsLn.Close()
	}
}

// takeStartup checks the data dir, listens, and opens the store, in that
// order; on failure it releases what it took and says what is wrong.
func takeStartup(ctx context.Context, cfg Config, storeOpts ...store.Option) (*startup, error) {
	s := &startup{}
	if err := checkDataDir(cfg.DataDir); err != nil {
		return nil, err
	}
	var err error
	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another server using that address? choose one with --addr)", cfg.Addr, err)
	}
	endpointAddr, err := endpointListenAddr(cfg)
	if err != nil {
		s.close()
		return nil, err
	}
	if endpointAddr != "" {
		if s.endpointLn, err = net.Listen("tcp", endpointAddr); err != nil {
			s.close()
			return nil, fmt.Errorf("listen for endpoints on %s: %w (choose another --endpoint-addr, or --endpoint-addr api to serve them on the API's address)", endpointAddr, err)
		}
	}
	if cfg.MetricsAddr != "" {
		if s.metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			s.close()
			return nil, fmt.Errorf("listen for metrics on %s: %w (choose another --metrics-addr)", cfg.MetricsAddr, err)
		}
	}
	if s.st, err = openStore(ctx, cfg, append(storeOpts, store.WithLimits(cfg.Caps), store.WithStatsKept(statsKept(cfg)))); err != nil {
		s.close()
		return nil, err
	}
	// Best effort: only a message of a later start depends on it.
	_ = os.WriteFile(filepath.Join(cfg.DataDir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return s, nil
}

// EndpointsOnAPI is the EndpointAddr (--endpoint-addr) that serves
// endpoints on the API's listener.
const EndpointsOnAPI = "api"

// endpointListenAddr is where endpoints listen apart from the API: by
// default the API's host and the next port (a port of its own when the
// API's is 0); "" when they are served on the API's listener.
func endpointListenAddr(cfg Config) (string, error) {
	switch cfg.EndpointAddr {
	case EndpointsOnAPI:
		return "", nil
	case "":
	default:
		return cfg.EndpointAddr, nil
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", cfg.Addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p >= 65535 {
		return "", fmt.Errorf("--addr %q: endpoints listen on the next port by default, and there is none; set --endpoint-addr", cfg.Addr)
	}
	if p > 0 {
		p++
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// otherServer names the process in the data dir's pid file, if any.
func otherServer(dataDir string) string {
	raw, err := os.ReadFile(filepath.Join(dataDir, pidFile))
	if err != nil {
		return ""
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" (process %d)", pid)
}

// checkDataDir makes the data dir and checks that it can be written.
func checkDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the data dir: %w", err)
	}
	f, err := os.CreateTemp(dir, ".write-check-")
	if err != nil {
		return fmt.Errorf("the data dir %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// statsKept is how long the store keeps statistics: none when the
// config says so, else its figure or the default.
func statsKept(cfg Config) time.Duration {
	switch {
	case cfg.NoStats:
		return 0
	case cfg.StatsKept > 0:
		return cfg.StatsKept
	}
	return store.DefaultStatsKept
}
