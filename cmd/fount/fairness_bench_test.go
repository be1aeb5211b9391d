package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// The fairness benchmark: one account's request latency on a real `fount
// serve` with its defaults, idle and then while another account attacks
// it with code that never ends (sources looping in run(), and deploys
// whose hook loops), side by side in one run. The target is the
// attacked p99 within 3x of the idle p99. Figures go in
// docs/benchmarks.md.

const fairnessSamples = 200

func BenchmarkFairness(b *testing.B) {
	for range b.N {
		s, stop := startBenchServer(b)
		victim := s.newUser("victim", "paid")
		answer := victim.deploySource(`export default { name: "Answer", version: "1",
			props: { http: { type: "$.interface.http", customResponse: true } },
			run() { this.http.respond({ status: 200, body: "ok" }) } }`, nil)
		url := endpointOf(answer, "http")
		idle, idleFailed := sampleLatency(b, url)

		attacker := s.newUser("attacker", "paid")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		attack(ctx, &wg, attacker)
		attacked, attackedFailed := sampleLatency(b, url)
		cancel()
		wg.Wait()
		stop()

		idle50, idle99 := percentiles(idle)
		att50, att99 := percentiles(attacked)
		b.Logf("idle p50 %v p99 %v (%d failed); attacked p50 %v p99 %v (%d failed)", idle50, idle99, idleFailed, att50, att99, attackedFailed)
		b.ReportMetric(ms(idle50), "idle-p50-ms")
		b.ReportMetric(ms(idle99), "idle-p99-ms")
		b.ReportMetric(ms(att50), "attacked-p50-ms")
		b.ReportMetric(ms(att99), "attacked-p99-ms")
		b.ReportMetric(float64(att99)/float64(idle99), "p99-ratio")
		b.ReportMetric(float64(attackedFailed), "attacked-failed")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// attack starts the attacking account's load: six sources whose run()
// loops until its time limit, kept busy, and two clients deploying
// components whose deploy hook loops.
func attack(ctx context.Context, wg *sync.WaitGroup, attacker *testServer) {
	spin := `export default { name: "Spin", version: "1", props: { http: "$.interface.http" }, run() { for (;;) {} } }`
	var urls []string
	for range 6 {
		urls = append(urls, endpointOf(attacker.deploySource(spin, nil), "http"))
	}
	wg.Add(1)
	go func() { // keeps every spinning source's queue from running dry
		defer wg.Done()
		for ctx.Err() == nil {
			for _, u := range urls {
				if resp, err := http.Post(u, "application/json", strings.NewReader("{}")); err == nil {
					resp.Body.Close()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	hook := `{"component_code": "export default { name: \"Hook\", version: \"1\", hooks: { deploy() { for (;;) {} } }, run() {} }"}`
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "POST", attacker.base+"/v1/sources", strings.NewReader(hook))
				req.Header.Set("Authorization", "Bearer "+attacker.key)
				req.Header.Set("Content-Type", "application/json")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // let the attack take the workers it can
}

// sampleLatency times fairnessSamples requests to url, one at a time, 20
// ms apart, and counts those not answered 200 (a run that waited past the
// respond timeout is answered 500): their time counts as latency too.
func sampleLatency(b *testing.B, url string) (lat []time.Duration, failed int) {
	for range fairnessSamples {
		start := time.Now()
		resp, err := http.Post(url, "text/plain", nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			failed++
		}
		lat = append(lat, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	return lat, failed
}

// startBenchServer starts `fount serve` with its defaults (as a user
// would, the parser in a worker process) and returns it as its owner.
func startBenchServer(b *testing.B) (*testServer, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lockedBuffer{}
	done := make(chan int, 1)
	env := testEnvironment(map[string]string{"FOUNT_BOOTSTRAP_API_KEY": "bench-key", "FOUNT_CACHE_DIR": cacheDir}, stdout, io.Discard)
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", b.TempDir()}, env) }()
	wait.Until(b, "serve to start", time.Minute, func() bool { return strings.Contains(stdout.String(), "listening on") })
	s := &testServer{t: &testing.T{}, base: "http://" + listeningLine.FindStringSubmatch(stdout.String())[1], key: "bench-key"}
	return s, func() { cancel(); <-done }
}
