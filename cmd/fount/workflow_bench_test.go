package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// BenchmarkWorkflowLoad is BenchmarkLoad for a 3-step workflow triggered
// over HTTP: a code step that parses the body, an action whose prop is
// templated from it, and a step that calls $.send.emit. An execution
// counts once its emit arrives on the workflow's SSE stream, which
// publishes it after the execution's commit. max and max-concurrency-8
// are the same workflow at concurrency 1 and 8. Figures in
// docs/benchmarks.md.
func BenchmarkWorkflowLoad(b *testing.B) {
	deployAt := func(concurrency int) func(s *testServer) (string, string) {
		return func(s *testServer) (string, string) {
			st, body := s.do("POST", "/v1/workflows", map[string]any{
				"name": "load", "trigger": map[string]any{"type": "http"}, "concurrency": concurrency,
				"steps": []any{
					step("parse", readFixture(b, "parse.mjs"), nil),
					action("check", readFixture(b, "check.mjs"), map[string]any{"sent": "{{steps.parse.$return_value.sent}}"}),
					step("emit", readFixture(b, "emit.mjs"), nil),
				},
			})
			if st != 200 {
				b.Fatalf("deploy workflow: %d %v", st, body)
			}
			wf := data(body)
			return wf["trigger"].(map[string]any)["endpoint_url"].(string), "/v1/workflows/" + wf["id"].(string) + "/sse"
		}
	}
	b.Run("max", func(b *testing.B) { // closed loop: as fast as it goes
		for b.Loop() {
			loadTarget(b, hammer, deployAt(1)).report(b)
		}
	})
	b.Run("max-concurrency-8", func(b *testing.B) {
		for b.Loop() {
			loadTarget(b, hammer, deployAt(8)).report(b)
		}
	})
	b.Run("at-2000", func(b *testing.B) { // open loop at the target rate
		for b.Loop() {
			loadTarget(b, func(url string) int64 { return paced(url, 2000) }, deployAt(1)).report(b)
		}
	})
}

// pausedDue is how many of BenchmarkPausedExecutions' paused executions
// come due while it measures, over pausedSpread: the same number
// whatever else waits, so that the lateness compares.
const (
	pausedDue    = 100
	pausedSpread = 10 * time.Second
)

// BenchmarkPausedExecutions pauses 100 or 10,000 executions of one
// workflow on $.flow.delay, on bbolt and on a NATS JetStream store, of
// which 100 come due within 10 s of each other some seconds later and
// the others an hour later; it reports the memory they hold while they
// wait (the Go heap after a GC, server and client together, over what an
// idle server holds, per paused execution) and how late each of the 100
// goes on: from its due time to its next step's emit arriving on the
// workflow's SSE stream. With paused executions read from a table by
// their due times, the lateness at 10,000 waiting is that at 100.
// Figures in docs/benchmarks.md.
func BenchmarkPausedExecutions(b *testing.B) {
	nats := startNATSB(b)
	keyFile := filepath.Join(b.TempDir(), "secret.key")
	for _, store := range []string{"bolt", "nats"} {
		for _, waiting := range []int{100, 10_000} {
			b.Run(fmt.Sprintf("%s-%d", store, waiting), func(b *testing.B) {
				for b.Loop() {
					cfg := server.Config{BootstrapKey: ownerKey, MaxPaused: 2 * waiting, StoreURL: "bolt"}
					if store == "nats" {
						cfg = natsConfig(b, nats.URLs(), keyFile, "node1")
						cfg.NatsNamespace, cfg.NatsReplicas, cfg.MaxPaused = fmt.Sprintf("paused%d", time.Now().UnixNano()), 3, 2*waiting
					}
					runPausedExecutions(b, startServer(b, cfg), waiting)
				}
			})
		}
	}
}

func runPausedExecutions(b *testing.B, s *testServer, waiting int) {
	defer s.stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, user := s.do("POST", "/v1/users", map[string]any{"username": "pauser", "email": "pause@example.com", "plan": "paid"})
	s.key = data(user)["api_key"].(string)
	st, body := s.do("POST", "/v1/workflows", map[string]any{
		"name": "delays", "trigger": map[string]any{"type": "manual"},
		"steps": []any{
			step("wait", `export default defineComponent({ run({ steps, $ }) {
				$.flow.delay(Math.max(0, steps.trigger.event.due - Date.now()));
			} })`, nil),
			step("after", `export default defineComponent({ run({ steps, $ }) {
				$.send.emit({ raw_event: { sent: steps.trigger.event.due * 1e6 } });
			} })`, nil),
		},
	})
	if st != 200 {
		b.Fatalf("deploy: %d %v", st, body)
	}
	id := data(body)["id"].(string)
	_, idleHeap := memoryNow()

	var mu sync.Mutex
	var lat []time.Duration
	var streaming sync.WaitGroup
	defer streaming.Wait()
	defer cancel()
	open := make(chan struct{})
	streaming.Go(func() { readStream(ctx, s, "/v1/workflows/"+id+"/sse", &mu, &lat, open) })
	<-open

	start := time.Now()
	first := start.Add(pausingTime(waiting)).UnixMilli() // room to queue and pause them all first
	parallel(waiting, func(i int) {
		due := first + int64(i)*pausedSpread.Milliseconds()/pausedDue // the first pausedDue within pausedSpread
		if i >= pausedDue {
			due = first + time.Hour.Milliseconds()
		}
		if st, body := s.do("POST", "/v1/workflows/"+id+"/run", map[string]any{"event": map[string]any{"due": due}}); st != 202 {
			b.Errorf("run %d: %d %v", i, st, body)
		}
	})
	queued := time.Since(start)
	paused := 0
	wait.Poll(time.Until(time.UnixMilli(first-1000)), func() bool {
		_, body := s.do("GET", "/v1/workflows/"+id, nil)
		if n, ok := data(body)["paused_executions"].(float64); ok {
			paused = int(n)
		}
		return paused == waiting
	})
	if paused != waiting {
		b.Fatalf("%d executions paused before the first was due, want %d", paused, waiting)
	}
	allPaused := time.Since(start)
	_, heap := memoryNow()
	wait.Poll(time.Until(time.UnixMilli(first).Add(pausedSpread+60*time.Second)), func() bool { // the count below says when they did not
		mu.Lock()
		defer mu.Unlock()
		return len(lat) >= pausedDue
	})
	mu.Lock()
	defer mu.Unlock()
	if len(lat) < pausedDue {
		b.Errorf("%d of %d due executions went on", len(lat), pausedDue)
	}
	p50, p99 := percentiles(lat)
	b.Logf("queued %d in %v, all paused by %v; heap %d MiB over idle; lateness of the %d due p50 %v p99 %v",
		waiting, queued, allPaused, (heap-idleHeap)>>20, pausedDue, p50, p99)
	b.ReportMetric(float64(heap-idleHeap)/float64(waiting), "heap-B/paused")
	b.ReportMetric(float64(p50.Milliseconds()), "late-p50-ms")
	b.ReportMetric(float64(p99.Milliseconds()), "late-p99-ms")
}

// pausingTime is how long BenchmarkPausedExecutions leaves to queue and
// pause its executions before the first is due.
func pausingTime(waiting int) time.Duration {
	return 15*time.Second + time.Duration(waiting)*4*time.Millisecond
}

// memoryNow is the process's resident set and its Go heap in use after a
// collection, in bytes.
func memoryNow() (rss, heap int64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procBytes("/proc/self/status", "VmRSS:"), int64(ms.HeapInuse)
}

// proportionalMemory is the process's PSS: its resident pages, a page
// shared with others (an instance's copy-on-write mapping of the
// sandbox's base image, say) counted in proportion.
func proportionalMemory() int64 { return procBytes("/proc/self/smaps_rollup", "Pss:") }

// procBytes reads the figure in kB after key in a /proc file, in bytes; 0
// where the kernel does not say.
func procBytes(file, key string) int64 {
	raw, _ := os.ReadFile(file)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}

// readFixture reads a step of testdata/workflows/bench.
func readFixture(b *testing.B, name string) string {
	code, err := os.ReadFile("../../testdata/workflows/bench/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(code)
}
