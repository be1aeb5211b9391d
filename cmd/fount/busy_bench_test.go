package main

import (
	"bufio"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
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
		cfg  func() serveConfig
	}{
		{"bolt", func() serveConfig {
			return serveConfig{bootstrapKey: ownerKey, allowPrivateEgress: true, eventsKept: 1_000_000}
		}},
		{"nats-1-server", func() serveConfig {
			cfg := natsConfig(b, nats.URLs(), keyFile, "node1")
			cfg.natsNamespace, cfg.eventsKept = fmt.Sprintf("busy%d", time.Now().UnixNano()), 1_000_000
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
func measureBusy(b *testing.B, s *server) {
	src := s.deploySource(`export default { name: "Busy", version: "1",
		props: { http: { type: "$.interface.http" } }, run(ev) { this.$emit(ev.body) } }`, nil)
	id, url := src["id"].(string), endpointOf(src, "http")
	start := time.Now()
	acked := hammerFor(url, busyDuration)
	loadEnd := time.Now()
	waitDrained(b, []*server{s})
	stored := time.Since(loadEnd)
	elapsed := time.Since(start)
	readStart := time.Now()
	read := countSSE(b, s, "/v1/sources/"+id+"/sse", "0-0", int(acked), 5*time.Minute)
	readTook := time.Since(readStart)
	if read < int(acked) {
		b.Fatalf("read back %d events over SSE of %d acknowledged, in %v", read, acked, readTook)
	}
	b.ReportMetric(float64(acked)/elapsed.Seconds(), "events/s")
	b.ReportMetric(stored.Seconds(), "s-to-stored")
	b.ReportMetric(readTook.Seconds(), "s-to-read-back")
	b.Logf("%d acknowledged in %v; all stored %v after the load; read back over SSE in %v", acked, busyDuration, stored.Round(time.Millisecond), readTook.Round(time.Millisecond))
}

// hammerFor is hammerAll on one URL for d.
func hammerFor(url string, d time.Duration) int64 {
	var acked atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range loadClients {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if postSent(client, url) {
					acked.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return acked.Load()
}

// countSSE reads an event stream from Last-Event-ID lastID until it has
// want events or within is over, and returns how many it read.
func countSSE(b *testing.B, s *server, path, lastID string, want int, within time.Duration) int {
	req, err := http.NewRequest("GET", s.base+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Last-Event-ID", lastID)
	client := &http.Client{Timeout: within}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %s", path, resp.Status)
	}
	n := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for n < want && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "id:") {
			n++
		}
	}
	return n
}
