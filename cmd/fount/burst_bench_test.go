package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/server"
)

// burstSources is the fleet of BenchmarkSourceBurstMemory, as in issue
// 25's measure: 3,000 sources, each called once.
const burstSources = 3000

// BenchmarkSourceBurstMemory deploys a fresh fleet of HTTP sources on a
// real server (the default bound of warm instances, idle snapshots spilled
// as fount serve does), calls each once, and reports the resident memory
// each source holds over the idle server's right after the burst and a
// minute later, when what left the warm set should have been packed away
// and its memory handed back. It reports PSS too, which counts a page that
// instances share (the base image they map) once, not once per mapping as
// RSS does. FOUNT_BURST_SOURCES changes the fleet's size.
func BenchmarkSourceBurstMemory(b *testing.B) {
	n := burstSources
	if v, err := strconv.Atoi(os.Getenv("FOUNT_BURST_SOURCES")); err == nil && v > 0 {
		n = v
	}
	code, err := os.ReadFile("../../testdata/components/hello-http.mjs")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// A sandbox of its own, bounded and spilling as serve's is (the
		// tests' shared one keeps every instance warm).
		box, err := host.New(context.Background(), host.Config{CacheDir: cacheDir, MaxWarm: server.DefaultMaxWarm, SpillDir: b.TempDir(), Engine: testEngine})
		if err != nil {
			b.Fatal(err)
		}
		s := startServer(b, server.Config{BootstrapKey: ownerKey, Sandbox: box})
		idle, _ := memoryNow()
		idlePSS := proportionalMemory()
		urls := make([]string, n)
		parallel(n, func(i int) {
			st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": string(code), "name": "burst-" + strconv.Itoa(i)})
			if st != 200 {
				b.Errorf("deploy: %d %v", st, body)
				return
			}
			urls[i] = endpointOf(data(body), "http")
		})
		if b.Failed() {
			return
		}
		deployed, _ := memoryNow()
		parallel(n, func(i int) {
			resp, err := http.Post(urls[i], "application/json", bytes.NewReader([]byte(`{"n":1}`)))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
		})
		after, _ := memoryNow()
		time.Sleep(time.Minute) // the measure is what a minute of idleness gives back
		later, _ := memoryNow()
		laterPSS := proportionalMemory()
		perSource := func(rss, idle int64) float64 { return float64(rss-idle) / float64(n) / 1024 }
		b.Logf("%d sources: RSS over idle %.0f KiB/source deployed, %.0f after the calls, %.0f a minute later (PSS %.0f)",
			n, perSource(deployed, idle), perSource(after, idle), perSource(later, idle), perSource(laterPSS, idlePSS))
		b.ReportMetric(perSource(after, idle), "KiB/source-after")
		b.ReportMetric(perSource(later, idle), "KiB/source-60s")
		b.ReportMetric(perSource(laterPSS, idlePSS), "KiB/source-60s-pss")
		s.stop()
		_ = box.Close(context.Background())
	}
}
