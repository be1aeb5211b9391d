package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/cluster"
)

// BenchmarkCluster: ingest across 1, 2 and 3 fount nodes on one
// three-server JetStream cluster (all in this process), with many
// sources, beside one node on bbolt, in the same run. 32 clients post
// round robin over every node's endpoint of every source for
// loadDuration; the figure is events stored per second, until the queues
// are empty, and the process's CPU time per event (fount and the NATS
// servers together). Figures go in docs/benchmarks.md.
func BenchmarkCluster(b *testing.B) {
	const sources = 30
	nats := startNATSB(b)
	keyFile := filepath.Join(b.TempDir(), "secret.key")
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("nats-%d-nodes", n), func(b *testing.B) {
			for b.Loop() {
				ns := fmt.Sprintf("bench%d%d", n, time.Now().UnixNano())
				var nodes []*testServer
				for i := range n {
					cfg := natsConfig(nil, nats.URLs(), keyFile, fmt.Sprintf("node%d", i+1))
					cfg.NatsNamespace, cfg.NatsReplicas = ns, 3
					nodes = append(nodes, startServer(b, cfg))
				}
				waitBalanced(b, nodes)
				measureIngest(b, nodes, sources)
				for _, s := range nodes {
					s.stop()
				}
			}
		})
	}
	b.Run("nats-1-node-no-stats", func(b *testing.B) { // what statistics cost on JetStream: compare with nats-1-nodes
		for b.Loop() {
			cfg := natsConfig(nil, nats.URLs(), keyFile, "node1")
			cfg.NatsNamespace, cfg.NatsReplicas, cfg.NoStats = fmt.Sprintf("benchns%d", time.Now().UnixNano()), 3, true
			s := startServer(b, cfg)
			waitBalanced(b, []*testServer{s})
			measureIngest(b, []*testServer{s}, sources)
			s.stop()
		}
	})
	b.Run("bolt-1-node", func(b *testing.B) {
		for b.Loop() {
			s := startServer(b, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
			measureIngest(b, []*testServer{s}, sources)
			s.stop()
		}
	})
}

// measureIngest deploys sources (through the first node), drives load over
// every node's endpoints and reports events/s and CPU per event.
func measureIngest(b *testing.B, nodes []*testServer, sources int) {
	first := nodes[0]
	_, user := first.do("POST", "/v1/users", map[string]any{"username": "loader", "email": "load@example.com", "plan": "paid"})
	key := data(user)["api_key"].(string)
	for _, s := range nodes {
		s.key = key
	}
	var urls []string
	for i := range sources {
		src := first.deploySource(fmt.Sprintf(`export default { name: "Load %d", version: "1",
			props: { http: { type: "$.interface.http" } }, run(ev) { this.$emit(ev.body) } }`, i), nil)
		path := strings.TrimPrefix(endpointOf(src, "http"), first.endpoints)
		for _, s := range nodes {
			urls = append(urls, s.endpoints+path)
		}
	}
	for _, u := range urls { // every node knows every endpoint before the load
		wait.Until(b, u+" to answer", time.Minute, func() bool {
			resp, err := http.Post(u, "application/json", strings.NewReader(`{"warm":1}`))
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 200
		})
	}
	waitDrained(b, nodes)
	cpu0 := cpuTime()
	start := time.Now()
	acked := hammerAll(urls)
	waitDrained(b, nodes)
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(acked)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(max(acked, 1)), "cpu-ms/event")
	b.ReportMetric(float64(acked)/elapsed.Seconds()/float64(len(nodes)), "events/s/node")
	b.Logf("%d nodes: %d acknowledged in %v, %v of CPU", len(nodes), acked, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond))
}

// waitDrained waits until no node's metrics count a queued invocation.
func waitDrained(b *testing.B, nodes []*testServer) {
	wait.For(b, "no invocation queued", 5*time.Minute, func() (int, bool) {
		queued := 0
		for _, s := range nodes {
			queued += queuedInvocations(b, s)
		}
		return queued, queued == 0
	})
}

// queuedInvocations reads fount_queued_invocations from a node's metrics.
func queuedInvocations(b *testing.B, s *testServer) int {
	return int(metricOf(b, s, "fount_queued_invocations"))
}

// metricOf reads the value of an unlabelled gauge from a node's metrics.
func metricOf(b *testing.B, s *testServer, name string) float64 {
	families, _ := scrape(b, s.base+"/metrics")
	v, ok := gauge(families, name)
	if !ok {
		b.Fatalf("no %s in the metrics", name)
	}
	return v
}

// waitBalanced waits until the nodes own every partition between them,
// each its share: a node that joins takes partitions only as the others'
// leases run out, and a load before that measures the hand-over.
func waitBalanced(b *testing.B, nodes []*testServer) {
	share := (cluster.DefaultPartitions + len(nodes) - 1) / len(nodes)
	wait.For(b, "the nodes to share the partitions", 2*time.Minute, func() (string, bool) {
		total, least := 0, cluster.DefaultPartitions
		for _, s := range nodes {
			n := int(metricOf(b, s, "fount_cluster_partitions_owned"))
			total, least = total+n, min(least, n)
		}
		return fmt.Sprintf("%d owned, the least %d", total, least),
			total == cluster.DefaultPartitions && least >= cluster.DefaultPartitions/len(nodes) && least <= share
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
