package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/store"
)

// servedStore is what serve needs of a store, whichever backend.
type servedStore interface {
	store.Store
	store.Queues
	Ping(ctx context.Context) error
	QueueDepths(ctx context.Context) (invocations, deliveries int, err error)
}

// natsStore reports whether cfg keeps state on NATS JetStream.
func natsStore(cfg serveConfig) bool { return cfg.storeURL != "" && cfg.storeURL != "bolt" }

// checkStoreFlags refuses a --store that is neither bolt nor nats://
// URLs, and a NATS store without the secret key file that every node
// must share: each node opens the secrets the others sealed.
func checkStoreFlags(cfg serveConfig) error {
	if !natsStore(cfg) {
		return nil
	}
	for u := range strings.SplitSeq(cfg.storeURL, ",") {
		parsed, err := url.Parse(strings.TrimSpace(u))
		if err != nil || (parsed.Scheme != "nats" && parsed.Scheme != "tls") || parsed.Host == "" {
			return fmt.Errorf("--store must be bolt or nats://host:port URLs separated by commas, got %q", cfg.storeURL)
		}
		if parsed.User != nil {
			return fmt.Errorf("--store: put NATS credentials in --nats-creds or FOUNT_NATS_TOKEN, not in the URL, where the process list shows them")
		}
	}
	if cfg.secretKeyFile == "" {
		return errors.New("--store nats://... needs --secret-key-file (FOUNT_SECRET_KEY_FILE): every node sharing the store must open the secrets the others sealed, so they share one key file")
	}
	if cfg.nodeLeaseTTL < 3*time.Second || cfg.nodeLeaseTTL%time.Second != 0 {
		return fmt.Errorf("--node-lease-ttl must be whole seconds, at least 3s, got %v", cfg.nodeLeaseTTL)
	}
	if cfg.natsReplicas < 1 || cfg.natsReplicas > 5 {
		return fmt.Errorf("--nats-replicas must be from 1 to 5, got %d", cfg.natsReplicas)
	}
	return nil
}

// openStore opens the store cfg names.
func openStore(ctx context.Context, cfg serveConfig, opts []store.Option) (servedStore, error) {
	if !natsStore(cfg) {
		st, err := store.OpenBolt(filepath.Join(cfg.dataDir, "fount.db"), opts...)
		if errors.Is(err, store.ErrLocked) {
			return nil, fmt.Errorf("the data dir %s is in use by another fount%s; stop it, or serve another --data-dir", cfg.dataDir, otherServer(cfg.dataDir))
		}
		return st, err
	}
	st, err := store.OpenJetStream(ctx, store.JetStreamConfig{
		URLs: cfg.storeURL, CredsFile: cfg.natsCreds, Token: cfg.natsToken,
		Namespace: cfg.natsNamespace, Replicas: cfg.natsReplicas, Name: "fount " + nodeName(cfg),
	}, opts...)
	if err != nil {
		return nil, fmt.Errorf("open the NATS store at %s: %w", cfg.storeURL, err)
	}
	return st, nil
}

// nodeName is this node's name among those sharing a NATS store:
// --node-name, or the host's name and the process id.
func nodeName(cfg serveConfig) string {
	if cfg.nodeName != "" {
		return cfg.nodeName
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}
