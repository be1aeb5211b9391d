package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fount-dev/fount/internal/store"
)

// servedStore is what serve needs of a store, whichever backend.
type servedStore interface {
	store.Store
	store.Queues
	Ping(ctx context.Context) error
	QueueDepths(ctx context.Context) (invocations, deliveries int, err error)
}

// UsesNATS reports whether the server keeps its state on NATS JetStream.
func (c Config) UsesNATS() bool { return c.StoreURL != "" && c.StoreURL != "bolt" }

// openStore opens the store cfg names.
func openStore(ctx context.Context, cfg Config, opts []store.Option) (servedStore, error) {
	if !cfg.UsesNATS() {
		st, err := store.OpenBolt(filepath.Join(cfg.DataDir, "fount.db"), opts...)
		if errors.Is(err, store.ErrLocked) {
			return nil, fmt.Errorf("the data dir %s is in use by another fount%s; stop it, or serve another --data-dir", cfg.DataDir, otherServer(cfg.DataDir))
		}
		return st, err
	}
	st, err := store.OpenJetStream(ctx, store.JetStreamConfig{
		URLs: cfg.StoreURL, CredsFile: cfg.NatsCreds, Token: cfg.NatsToken,
		Namespace: cfg.NatsNamespace, Replicas: cfg.NatsReplicas, Name: "fount " + nodeName(cfg),
	}, opts...)
	if err != nil {
		return nil, fmt.Errorf("open the NATS store at %s: %w", cfg.StoreURL, err)
	}
	return st, nil
}

// nodeName is this node's name among those sharing a NATS store:
// --node-name, or the host's name and the process id.
func nodeName(cfg Config) string {
	if cfg.NodeName != "" {
		return cfg.NodeName
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}
