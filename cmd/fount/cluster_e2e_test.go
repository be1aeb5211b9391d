package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// startFountCluster starts a 3-server JetStream cluster and three fount
// nodes on it, sharing one secret key file, as "Running several nodes"
// in the README does.
func startFountCluster(t *testing.T) []*testServer {
	t.Helper()
	nats := startNATS(t, 3)
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	var nodes []*testServer
	for i := range 3 {
		cfg := natsConfig(t, nats.URLs(), keyFile, fmt.Sprintf("node%d", i+1))
		cfg.NatsReplicas = 3
		s := startServer(t, cfg)
		nodes = append(nodes, s)
		t.Cleanup(func() { // registered after the node's stop, so it runs before it
			if t.Failed() {
				t.Logf("node %d logged:\n%s", i+1, problems(s.log.String()))
			}
		})
	}
	return nodes
}

// problems keeps the warning and error lines of a log.
func problems(log string) string {
	var out []string
	for l := range strings.SplitSeq(log, "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return tail(strings.Join(out, "\n"), 6000)
}

// postTo sends body to an endpoint path on a node and returns the answer.
func postTo(t *testing.T, s *testServer, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(s.endpoints+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// postWhenKnown posts to an endpoint path on a node once the node knows
// the endpoint (another node deployed it and told this one).
func postWhenKnown(t *testing.T, s *testServer, path, body string) (int, string) {
	t.Helper()
	type answer struct {
		status int
		body   string
	}
	a := wait.For(t, "the node to know the endpoint "+path, eventsDeadline, func() (answer, bool) {
		st, b := postTo(t, s, path, body)
		return answer{st, b}, st != 404
	})
	return a.status, a.body
}

// TestClusterOfThree: three fount nodes on a three-server JetStream
// cluster act as one server. An endpoint deployed on one node takes
// requests on every node; respond() answers a request on whichever node
// it came to; an event stream on any node sees every event; a timer fires
// each tick once; a webhook gets each event once.
func TestClusterOfThree(t *testing.T) {
	t.Parallel()
	nodes := startFountCluster(t)
	a, b, c := nodes[0], nodes[1], nodes[2]

	src := a.deploySource(`export default { name: "Ingest", version: "1",
		props: { http: { type: "$.interface.http", customResponse: true } },
		run(ev) { this.$emit(ev.body); this.http.respond({ status: 200, body: "n=" + ev.body.n }) } }`, nil)
	id := src["id"].(string)
	path := strings.TrimPrefix(endpointOf(src, "http"), a.endpoints)
	rc := &receiver{}
	hook := b.webhookTo(rc)
	if st, body := b.do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+hook, nil); st != 200 {
		t.Fatalf("subscribe: %d %v", st, body)
	}

	const perNode = 3
	want := perNode * len(nodes)
	streamed := make(chan []sseEvent, len(nodes))
	var opened []chan struct{}
	for _, node := range nodes { // one of them owns the source: the others see its events through NATS
		open := make(chan struct{})
		opened = append(opened, open)
		go func() { streamed <- readSSEOpened(t, node, "/v1/sources/"+id+"/sse", "", want, eventsDeadline, open) }()
	}
	for _, open := range opened { // the streams are open before the first event
		<-open
	}

	for i := range perNode {
		for j, node := range nodes {
			n := i*len(nodes) + j
			st, body := postWhenKnown(t, node, path, fmt.Sprintf(`{"n":%d}`, n))
			if st != 200 || body != fmt.Sprint("n=", n) {
				t.Fatalf("request %d on node %d: %d %q", n, j+1, st, body)
			}
		}
	}
	for i, node := range nodes {
		if got := node.events(id, "", want); len(got) != want {
			t.Errorf("node %d lists %d events, want %d", i+1, len(got), want)
		}
	}
	for range nodes {
		if got := <-streamed; len(got) != want {
			t.Errorf("an event stream saw %d events, want %d", len(got), want)
		}
	}
	delivered := rc.wait(t, want)
	seen := map[string]int{}
	for _, d := range delivered {
		seen[fmt.Sprint(d["id"])]++
	}
	for ev, n := range seen {
		if n != 1 {
			t.Errorf("event %s was delivered %d times", ev, n)
		}
	}
	if len(seen) != want {
		t.Errorf("%d distinct events delivered, want %d", len(seen), want)
	}

	// A timer fires each tick once, whichever nodes arm it.
	tick := c.deploySource(`export default { name: "Tick", version: "1",
		props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
		run(e) { this.$emit(e) } }`, nil)
	tickID := tick["id"].(string)
	start := time.Now()
	evs := a.events(tickID, "", 4)
	elapsed := time.Since(start)
	ticks := map[float64]bool{}
	var stamps []float64
	for _, ev := range evs {
		ts := ev["event"].(map[string]any)["timestamp"].(float64)
		if ticks[ts] {
			t.Errorf("two runs of the tick at %v", ts)
		}
		ticks[ts] = true
		stamps = append(stamps, ts)
	}
	if max := int(elapsed.Seconds()) + 2; len(evs) > max {
		t.Errorf("%d timer runs in %v: a tick fired more than once (timestamps %v)", len(evs), elapsed, stamps)
	}
	slices.Sort(stamps)
}
