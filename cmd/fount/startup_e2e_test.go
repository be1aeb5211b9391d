package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
)

// TestStartupChecksBeforeCreating: a start that cannot serve says why and
// creates no owner key: a port in use, a data dir another fount serves
// (named by its process id), a data dir that cannot be written.
func TestStartupChecksBeforeCreating(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	err = server.Serve(context.Background(), server.Config{Addr: busy.Addr().String(), DataDir: dir}, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "listen on "+busy.Addr().String()) || !strings.Contains(err.Error(), "--addr") {
		t.Errorf("port in use: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "owner.key")); !os.IsNotExist(err) {
		t.Errorf("an owner key was created by a start that could not listen: %v", err)
	}

	shared := t.TempDir()
	startServer(t, server.Config{BootstrapKey: ownerKey, DataDir: shared, StoreURL: "bolt"}) // bbolt's lock, whatever FOUNT_TEST_STORE says
	err = server.Serve(context.Background(), server.Config{Addr: "127.0.0.1:0", DataDir: shared}, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "in use by another fount (process ") || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("a second server on one data dir: %v", err)
	}

	// A data dir that cannot be made (a file is in the way); a read-only
	// one is refused the same way, but CI runs as root, who writes anywhere.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	err = server.Serve(context.Background(), server.Config{Addr: "127.0.0.1:0", DataDir: filepath.Join(file, "data")}, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "create the data dir") {
		t.Errorf("a data dir that cannot be made: %v", err)
	}
}
