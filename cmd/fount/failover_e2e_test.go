package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// startNode starts a fount node process on the NATS store at urls, so
// that it can be killed -9.
func startNode(t *testing.T, bin, urls, keyFile, name string) *process {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--allow-private-egress",
		"--store", urls, "--nats-replicas", "3", "--secret-key-file", keyFile, "--node-name", name, "--events-kept", "100000",
		"--node-lease-ttl", "3s")
	cmd.Env = append(os.Environ(), "FOUNT_BOOTSTRAP_API_KEY="+ownerKey, "FOUNT_CACHE_DIR="+cacheDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() { // what the node logged tells why
			raw, _ := os.ReadFile(logs.Name())
			t.Logf("%s logged:\n%s", name, tail(string(raw), 4000))
		}
		logs.Close()
	})
	api, endpoints := awaitListening(t, stdout, "node "+name)
	return &process{cmd: cmd, base: "http://" + api, endpoints: "http://" + endpoints}
}

// allEvents pages through every kept event of a source's default channel.
func allEvents(t *testing.T, s *testServer, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	after := ""
	for {
		_, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=100&expand=event&after="+url.QueryEscape(after), nil)
		items, _ := body["data"].([]any)
		if len(items) == 0 {
			return out
		}
		for _, it := range items {
			out = append(out, it.(map[string]any))
		}
		info, _ := body["page_info"].(map[string]any)
		after, _ = info["end_cursor"].(string)
		if after == "" {
			return out
		}
	}
}

// TestFailoverLosesNothing: three fount node processes on a three-server
// JetStream cluster take steady load on every node. One node is killed
// with SIGKILL, then one NATS server is stopped. Every request that was
// acknowledged is stored once and delivered to the webhook under one
// webhook-id, and the timer does not fire a tick twice. The figures are
// logged: requests acknowledged, refused while a node was down, and
// deliveries sent again after the kill (same webhook-id, which receivers
// deduplicate by).
func TestFailoverLosesNothing(t *testing.T) {
	t.Parallel()
	warmCache(t)
	bin := buildFount(t)
	nats := startNATS(t, 3)
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	var procs []*process
	for i := range 3 {
		procs = append(procs, startNode(t, bin, nats.URLs(), keyFile, fmt.Sprintf("node%d", i+1)))
	}
	api := func(i int) *testServer { return &testServer{t: t, base: procs[i].base, key: ownerKey} }

	const sources = 6
	var ids, paths []string
	for i := range sources {
		src := api(i%3).deploySource(fmt.Sprintf(`export default { name: "Ingest %d", version: "1",
			props: { http: { type: "$.interface.http" } }, run(ev) { this.$emit(ev.body) } }`, i), nil)
		ids = append(ids, src["id"].(string))
		paths = append(paths, strings.TrimPrefix(endpointOf(src, "http"), procs[i%3].endpoints))
	}
	rr := &recordingReceiver{receiver: &receiver{}, held: make(chan string, 1)}
	hook := api(0).webhookServing(rr, rr.receiver)
	for _, id := range ids {
		if st, body := api(1).do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+hook, nil); st != 200 {
			t.Fatalf("subscribe: %d %v", st, body)
		}
	}
	tick := api(2).deploySource(`export default { name: "Tick", version: "1",
		props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } }, run(e) { this.$emit(e) } }`, nil)
	tickStart := time.Now()

	// Steady load on every live node, round robin.
	var alive sync.Map // node index → true
	for i := range procs {
		alive.Store(i, true)
	}
	var mu sync.Mutex
	acked := map[int]int{} // request n → source index
	var refused, next atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for w := range 4 {
		wg.Go(func() {
			pace := time.NewTicker(40 * time.Millisecond) // 25 requests a second from each client at most
			defer pace.Stop()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				case <-pace.C:
				}
				node := i % len(procs)
				if _, ok := alive.Load(node); !ok {
					continue
				}
				n := int(next.Add(1))
				src := n % sources
				resp, err := client.Post(procs[node].endpoints+paths[src], "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
				if err != nil {
					refused.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					refused.Add(1)
					continue
				}
				mu.Lock()
				acked[n] = src
				mu.Unlock()
			}
		})
	}
	ackedNow := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	// Each phase lasts d and acknowledges at least a hundred requests.
	phase := func(d time.Duration) {
		t.Helper()
		target, end := ackedNow()+100, time.Now().Add(d)
		wait.For(t, fmt.Sprintf("a phase of %v with %d requests acknowledged", d, target), eventsDeadline, func() (int, bool) {
			n := ackedNow()
			return n, n >= target && time.Now().After(end)
		})
	}
	phase(2 * time.Second)
	alive.Delete(1)
	if err := procs[1].cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	killedAt := ackedNow()
	phase(6 * time.Second) // past the lease TTL: the others take node 2's partitions over under load
	nats.Stop(0)
	stoppedAt := ackedNow()
	phase(5 * time.Second)
	close(stop)
	wg.Wait()
	survivor := api(0)

	// Every acknowledged request is stored once.
	lost, duplicated := 0, 0
	deadline := time.Now().Add(2 * eventsDeadline)
	for s, id := range ids {
		want := map[int]bool{}
		for n, src := range acked {
			if src == s {
				want[n] = true
			}
		}
		var got map[int]int
		wait.Poll(time.Until(deadline), func() bool {
			got = map[int]int{}
			for _, ev := range allEvents(t, survivor, id) {
				body, _ := ev["event"].(map[string]any)
				got[int(body["n"].(float64))]++
			}
			for n := range want {
				if got[n] == 0 {
					return false
				}
			}
			return true
		})
		for n := range want {
			if got[n] == 0 {
				lost++
			}
		}
		for _, c := range got {
			if c > 1 {
				duplicated += c - 1
			}
		}
	}

	// Every stored event reaches the webhook under one webhook-id
	// (checkRedeliveries fails the test otherwise).
	delivered := rr.receiver.wait(t, len(acked))
	redelivered := rr.checkRedeliveries(t)

	// The timer fired each tick once.
	tickElapsed := time.Since(tickStart)
	ticks := allEvents(t, survivor, tick["id"].(string))
	stamps := map[float64]int{}
	doubled := 0
	for _, ev := range ticks {
		ts := ev["event"].(map[string]any)["timestamp"].(float64)
		if stamps[ts]++; stamps[ts] == 2 {
			doubled++
		}
	}

	t.Logf("acknowledged %d requests (%d before the kill, %d before the NATS server stopped), %d refused or failed while a node was down; "+
		"lost %d, stored twice %d; %d deliveries, %d webhook-ids sent again; %d timer runs in %v, %d ticks run twice",
		len(acked), killedAt, stoppedAt, refused.Load(), lost, duplicated, len(delivered), redelivered, len(ticks), tickElapsed.Round(time.Second), doubled)
	if lost > 0 || duplicated > 0 {
		t.Errorf("of %d acknowledged requests, %d were lost and %d stored twice", len(acked), lost, duplicated)
	}
	if doubled > 0 || len(ticks) > int(tickElapsed.Seconds())+2 {
		t.Errorf("the timer ran %d times in %v, %d ticks twice", len(ticks), tickElapsed, doubled)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
