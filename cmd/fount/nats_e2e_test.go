package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/natsdev"
	"github.com/fount-dev/fount/internal/server"
)

// startNATS starts a cluster of n embedded JetStream servers for one
// test, shut down on cleanup.
func startNATS(t *testing.T, n int) *natsdev.Cluster {
	t.Helper()
	c, err := natsdev.Start(t.TempDir(), n, natsdev.Ports{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// startNATSB is startNATS for a benchmark: three servers.
func startNATSB(b *testing.B) *natsdev.Cluster {
	b.Helper()
	c, err := natsdev.Start(b.TempDir(), 3, natsdev.Ports{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Shutdown)
	return c
}

// natsConfig is a node's configuration on the NATS store at urls, with
// the secret key file every node of the test shares.
func natsConfig(_ testing.TB, urls, keyFile, node string) server.Config {
	return server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, StoreURL: urls, SecretKeyFile: keyFile,
		NatsNamespace: "fount", NatsReplicas: 1, NodeName: node}
}

// TestServeOnNATS: one node on a NATS store runs a source and keeps what
// it emits, secrets included, across a restart on a new data dir.
func TestServeOnNATS(t *testing.T) {
	t.Parallel()
	nats := startNATS(t, 1)
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	s := startServer(t, natsConfig(t, nats.URLs(), keyFile, "a"))
	src := s.deploySource(`export default { name: "counter", version: "1", props: { token: { type: "string", secret: true } },
		run(ev) { this.$emit({ n: ev.n, token: this.token }) } }`, map[string]any{"token": "s3cret"})
	id := src["id"].(string)
	for i := range 3 {
		s.run(id, map[string]any{"n": i})
	}
	got := s.events(id, "", 3)
	if ev := got[0]["event"].(map[string]any); ev["token"] != "s3cret" || ev["n"] != float64(2) {
		t.Errorf("newest event %v", ev)
	}
	s.stop()

	again := startServer(t, natsConfig(t, nats.URLs(), keyFile, "b"))
	if n := len(again.events(id, "", 3)); n != 3 {
		t.Errorf("after a restart on another data dir: %d events", n)
	}
	again.run(id, map[string]any{"n": 3})
	if ev := again.events(id, "", 4)[0]["event"].(map[string]any); ev["token"] != "s3cret" || ev["n"] != float64(3) {
		t.Errorf("after a restart: newest event %v", ev)
	}
}

// sharedNATS is one embedded JetStream server for the servers of every
// test that runs on NATS without asking for a cluster of its own.
var sharedNATS struct {
	once sync.Once
	c    *natsdev.Cluster
	dir  string
	err  error
}

// onSharedNATS puts a server's state in a namespace of its own on the
// shared server, named after its data dir (so that a restart on the data
// dir finds its state), with a key file in the data dir.
func onSharedNATS(t testing.TB, cfg server.Config) server.Config {
	t.Helper()
	sharedNATS.once.Do(func() {
		if sharedNATS.dir, sharedNATS.err = os.MkdirTemp("", "fount-nats-"); sharedNATS.err == nil {
			sharedNATS.c, sharedNATS.err = natsdev.Start(sharedNATS.dir, 1, natsdev.Ports{})
		}
	})
	if sharedNATS.err != nil {
		t.Fatal(sharedNATS.err)
	}
	cfg.StoreURL = sharedNATS.c.URLs()
	sum := sha256.Sum256([]byte(cfg.DataDir))
	cfg.NatsNamespace = fmt.Sprintf("t%x", sum[:8])
	cfg.NatsReplicas = 1
	if cfg.SecretKeyFile == "" {
		cfg.SecretKeyFile = filepath.Join(cfg.DataDir, "secret.key")
	}
	return cfg
}
