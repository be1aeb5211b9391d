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
	"os"
	"time"
)

// serveConfig is what `fount serve` is started with. Every flag has an
// environment variable; the flag wins when both are set.
type serveConfig struct {
	addr    string
	dataDir string
}

func parseServeFlags(args []string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := serveConfig{}
	fs.StringVar(&cfg.addr, "addr", envOr("FOUNT_ADDR", "127.0.0.1:8080"), "listen address (FOUNT_ADDR)")
	fs.StringVar(&cfg.dataDir, "data-dir", envOr("FOUNT_DATA_DIR", "./fount-data"), "data directory (FOUNT_DATA_DIR)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: fount serve [flags]\n\nExample:\n  fount serve --addr 127.0.0.1:8080 --data-dir ./fount-data\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	return cfg, nil
}

func envOr(name, fallback string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return fallback
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseServeFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fount serve: %v\n", err)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if err := serve(ctx, cfg, stdout, logger); err != nil {
		logger.Error("server stopped", "err", err)
		return exitError
	}
	return exitOK
}

// serve listens until ctx is cancelled, then shuts down gracefully.
func serve(ctx context.Context, cfg serveConfig, stdout io.Writer, logger *slog.Logger) error {
	if err := os.MkdirAll(cfg.dataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "fount listening on http://%s (data in %s)\n", ln.Addr(), cfg.dataDir)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("server stopped cleanly")
	return nil
}
