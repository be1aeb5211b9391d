package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
)

// respondingSource answers its request from run(), so that a request's
// latency includes loading the source (cold) and running it.
const respondingSource = `export default { name: "Cold", version: "1",
  props: { http: { type: "$.interface.http", customResponse: true } },
  run(e) { this.http.respond({ status: 200, body: "ok" }) } }`

// BenchmarkRestart deploys 1,000 sources, stops the server and starts it
// again on the same data dir, as an operator's restart does (the guest's
// compilation cached). Reported: the time to listen again, and the
// latency of a request to a source not loaded since the restart (cold:
// its component loads in the sandbox first) and of a second one (warm).
func BenchmarkRestart(b *testing.B) {
	const sources = 1000
	for b.Loop() {
		cfg := server.Config{BootstrapKey: ownerKey, DataDir: b.TempDir()}
		s := startProductionServerWith(b, cfg)
		var endpoints []string
		for range sources {
			endpoints = append(endpoints, endpointOf(s.deploySource(respondingSource, nil), "http"))
		}
		s.stop()

		start := time.Now()
		again := startProductionServerWith(b, cfg)
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "restart-ms")
		post := func(url string) time.Duration {
			start := time.Now()
			resp, err := http.Post(url, "text/plain", strings.NewReader("x"))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("POST %s: %d", url, resp.StatusCode)
			}
			return time.Since(start)
		}
		var cold, warm []time.Duration
		for _, url := range endpoints[:50] {
			url = again.base + strings.TrimPrefix(url, s.base) // the new server listens on another port
			cold = append(cold, post(url))
			warm = append(warm, post(url))
		}
		slices.Sort(cold)
		slices.Sort(warm)
		b.ReportMetric(float64(cold[len(cold)/2].Microseconds())/1000, "cold-p50-ms")
		b.ReportMetric(float64(warm[len(warm)/2].Microseconds())/1000, "warm-p50-ms")
		again.stop()
	}
}
