package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
	"github.com/fount-dev/fount/internal/server"
)

// busyDuration is how long BenchmarkBusySource loads its one source.
const busyDuration = 10 * time.Second

// BenchmarkBusySource: one source under 32 clients for busyDuration,
// every event kept, on bbolt and on one NATS server, side by side.
// Reported: events stored per second (those acknowledged, over the load
// and the time to store the rest), how long after the load the store held
// every acknowledged event, and how long reading them all back over SSE
// from Last-Event-ID 0-0 took. Figures go in docs/benchmarks.md.
func BenchmarkBusySource(b *testing.B) {
	nats, err := natsdev.Start(b.TempDir(), 1, natsdev.Ports{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nats.Shutdown)
	keyFile := filepath.Join(b.TempDir(), "secret.key")
	backends := []struct {
		name string
		cfg  func() server.Config
	}{
		{"bolt", func() server.Config {
			return server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, EventsKept: 1_000_000}
		}},
		{"nats-1-server", func() server.Config {
			cfg := natsConfig(b, nats.URLs(), keyFile, "node1")
			cfg.NatsNamespace, cfg.EventsKept = fmt.Sprintf("busy%d", time.Now().UnixNano()), 1_000_000
			return cfg
		}},
	}
	for _, backend := range backends {
		b.Run(backend.name, func(b *testing.B) {
			for b.Loop() {
				s := startServer(b, backend.cfg())
				measureBusy(b, s)
				s.stop()
			}
		})
	}
}

// measureBusy loads one new source of s and reports what
// BenchmarkBusySource says.
func measureBusy(b *testing.B, s *testServer) {
	src := s.deploySource(`export default { name: "Busy", version: "1",
		props: { http: { type: "$.interface.http" } }, run(ev) { this.$emit(ev.body) } }`, nil)
	id, url := src["id"].(string), endpointOf(src, "http")
	start := time.Now()
	acked := hammerFor([]string{url}, busyDuration)
	loadEnd := time.Now()
	waitDrained(b, []*testServer{s})
	stored := time.Since(loadEnd)
	elapsed := time.Since(start)
	readStart := time.Now()
	readSSEWithin(b, s, "/v1/sources/"+id+"/sse", "0-0", int(acked), 5*time.Minute)
	readTook := time.Since(readStart)
	b.ReportMetric(float64(acked)/elapsed.Seconds(), "events/s")
	b.ReportMetric(stored.Seconds(), "s-to-stored")
	b.ReportMetric(readTook.Seconds(), "s-to-read-back")
	b.Logf("%d acknowledged in %v; all stored %v after the load; read back over SSE in %v", acked, busyDuration, stored.Round(time.Millisecond), readTook.Round(time.Millisecond))
}
