package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// The load benchmark: POSTs to one HTTP source whose run() emits one event,
// measuring sustained events/s and time-to-stored, and, in the same run, a
// bare chi handler that appends the same payload to bbolt, as the ceiling.
// Run it with `make bench`; figures go in docs/benchmarks.md.

const (
	loadClients  = 32
	loadDuration = 5 * time.Second
)

// loadResult is what one side of the benchmark measured.
type loadResult struct {
	stored    int
	perSecond float64
	p50, p99  time.Duration
}

func (r loadResult) report(b *testing.B) {
	b.ReportMetric(r.perSecond, "events/s")
	b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)*50/100], ds[min(len(ds)-1, len(ds)*99/100)]
}

// hammer posts {"sent": <unix ns>} from loadClients clients for
// loadDuration and returns how many were acknowledged.
func hammer(url string) int64 {
	return hammerAll([]string{url})
}

// postSent posts {"sent": <unix ns>} and reports whether it was
// acknowledged.
func postSent(client *http.Client, url string) bool {
	body := fmt.Sprintf(`{"sent":%d}`, time.Now().UnixNano())
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200
}

// offeredRate is the open-loop rate at which time-to-stored is measured:
// the throughput target.
const offeredRate = 5000

func BenchmarkLoad(b *testing.B) {
	b.Run("fount-max", func(b *testing.B) { // closed loop: as fast as it goes
		for b.Loop() {
			loadFount(b, hammer).report(b)
		}
	})
	b.Run("fount-at-5000", func(b *testing.B) { // open loop: 5,000 requests/s
		for b.Loop() {
			loadFount(b, func(url string) int64 { return paced(url, offeredRate) }).report(b)
		}
	})
	b.Run("fount-at-2500", func(b *testing.B) { // open loop, half the target rate
		for b.Loop() {
			loadFount(b, func(url string) int64 { return paced(url, offeredRate/2) }).report(b)
		}
	})
	b.Run("fount-max-no-stats", func(b *testing.B) { // what counting statistics costs: compare with fount-max, side by side
		for b.Loop() {
			loadFountOn(b, []string{"--stats-kept", "0"}, hammer).report(b)
		}
	})
	b.Run("fount-1-client", func(b *testing.B) { // one connection: the target is one fsync + 1 ms per request
		for b.Loop() {
			var acks []time.Duration
			r := loadFount(b, func(url string) int64 { return oneClient(url, &acks) })
			r.report(b)
			ack50, _ := percentiles(acks)
			b.ReportMetric(float64(ack50.Microseconds())/1000, "ack-p50-ms")
			b.ReportMetric(float64(fsyncP50(b).Microseconds())/1000, "fsync-p50-ms")
		}
	})
	b.Run("fount-100-sources", func(b *testing.B) { // closed loop over 100 sources: the target is 80% of one source's
		for b.Loop() {
			loadFountSources(b, 100).report(b)
		}
	})
	b.Run("node-vm", func(b *testing.B) { // the peer: bench/node-vm/host.js, same load, same machine
		for b.Loop() {
			loadNode(b).report(b)
		}
	})
	b.Run("bare-chi-bbolt", func(b *testing.B) {
		for b.Loop() {
			loadBare(b).report(b)
		}
	})
}

// paced posts at a fixed rate for loadDuration, whatever the answers'
// latency (an open loop), and returns how many were acknowledged.
func paced(url string, perSecond int) int64 {
	var acked atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	start := time.Now()
	total := int(loadDuration.Seconds() * float64(perSecond))
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(perSecond))); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if postSent(client, url) {
				acked.Add(1)
			}
		}()
	}
	wg.Wait()
	return acked.Load()
}

// loadFount measures a real fount serve: time-to-stored is from the
// client's send to the event's arrival on the source's SSE stream, which
// publishes an event once it is committed.
func loadFount(b *testing.B, drive func(url string) int64) loadResult {
	return loadFountOn(b, nil, drive)
}

// loadFountOn is loadFount on a server started with flags.
func loadFountOn(b *testing.B, flags []string, drive func(url string) int64) loadResult {
	return loadTargetsOn(b, flags, func(urls []string) int64 { return drive(urls[0]) }, func(s *testServer) ([]string, []string) {
		src := s.deploySource(`export default { name: "Load", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ sent: e.body.sent }) } }`, nil)
		return []string{endpointOf(src, "http")}, []string{"/v1/sources/" + src["id"].(string) + "/sse"}
	})
}

// loadFountSources is loadFount over n sources at once, each request to
// the next source in turn.
func loadFountSources(b *testing.B, n int) loadResult {
	return loadTargets(b, hammerAll, func(s *testServer) ([]string, []string) {
		var urls, streams []string
		for i := range n {
			src := s.deploySource(fmt.Sprintf(`export default { name: "Load %d", version: "1", props: { http: "$.interface.http" },
			run(e) { this.$emit({ sent: e.body.sent }) } }`, i), nil)
			urls = append(urls, endpointOf(src, "http"))
			streams = append(streams, "/v1/sources/"+src["id"].(string)+"/sse")
		}
		return urls, streams
	})
}

// hammerAll is hammer over several endpoints, each client taking them in
// turn from its own starting point.
func hammerAll(urls []string) int64 {
	return hammerFor(urls, loadDuration)
}

// hammerFor is hammerAll for d.
func hammerFor(urls []string, d time.Duration) int64 {
	var acked atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range loadClients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i++ {
				if postSent(client, urls[i%len(urls)]) {
					acked.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return acked.Load()
}

// loadTarget measures a real fount serve with what deploy creates: the
// URL to post to and the SSE stream on which each request's event, with
// the request's "sent", arrives once committed.
func loadTarget(b *testing.B, drive func(url string) int64, deploy func(s *testServer) (url, stream string)) loadResult {
	return loadTargets(b, func(urls []string) int64 { return drive(urls[0]) }, func(s *testServer) ([]string, []string) {
		url, stream := deploy(s)
		return []string{url}, []string{stream}
	})
}

// loadTargets is loadTarget over several endpoints, with a stream each.
func loadTargets(b *testing.B, drive func(urls []string) int64, deploy func(s *testServer) (urls, streams []string)) loadResult {
	return loadTargetsOn(b, nil, drive, deploy)
}

// loadTargetsOn is loadTargets on a server started with flags.
func loadTargetsOn(b *testing.B, flags []string, drive func(urls []string) int64, deploy func(s *testServer) (urls, streams []string)) loadResult {
	s, ctx, stopServer := startLoadServer(b, flags...)
	urls, streams := deploy(s)

	var mu sync.Mutex
	var lat []time.Duration
	streamCtx, stopStream := context.WithCancel(ctx)
	var streaming sync.WaitGroup
	var opened []chan struct{}
	for _, stream := range streams {
		open := make(chan struct{})
		opened = append(opened, open)
		streaming.Go(func() { readStream(streamCtx, s, stream, &mu, &lat, open) })
	}
	for _, open := range opened {
		<-open
	}
	start := time.Now()
	acked := drive(urls)
	// Wait for the backlog to drain: every acknowledged event stored; the
	// count below says when it did not.
	wait.Poll(time.Until(start.Add(loadDuration+60*time.Second)), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return int64(len(lat)) >= acked
	})
	elapsed := time.Since(start)
	stopStream()
	streaming.Wait()
	stopServer()
	mu.Lock()
	defer mu.Unlock()
	b.Logf("fount: %d acknowledged, %d seen stored, in %v", acked, len(lat), elapsed)
	if int64(len(lat)) < acked {
		b.Errorf("fount: %d acknowledged but only %d seen stored on the sources' streams", acked, len(lat))
	}
	p50, p99 := percentiles(lat)
	return loadResult{stored: len(lat), perSecond: float64(len(lat)) / elapsed.Seconds(), p50: p50, p99: p99}
}

// startLoadServer starts `fount serve` in this process with extra flags,
// and a paid user (the free plan's daily quota would stop a run) as the
// server's key. stop ends the server and waits for it; ctx ends with it.
func startLoadServer(b *testing.B, flags ...string) (s *testServer, ctx context.Context, stop func()) {
	s = &testServer{t: &testing.T{}}
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lockedBuffer{}
	done := make(chan int, 1)
	stderr := &lockedBuffer{}
	env := testEnvironment(map[string]string{"FOUNT_BOOTSTRAP_API_KEY": ownerKey}, stdout, stderr)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", b.TempDir()}, flags...), env)
	}()
	wait.Poll(time.Minute, func() bool { return strings.Contains(stdout.String(), "listening on") })
	m := listeningLine.FindStringSubmatch(stdout.String())
	if m == nil {
		cancel()
		b.Fatalf("serve did not say where it listens:\n%s%s", stdout, stderr)
	}
	s.base = "http://" + m[1]
	s.key = ownerKey
	_, user := s.do("POST", "/v1/users", map[string]any{"username": "loader", "email": "load@example.com", "plan": "paid"})
	s.key = data(user)["api_key"].(string)
	return s, ctx, func() { cancel(); <-done }
}

// readStream adds to lat, until ctx ends, the time-to-stored of each event
// on an SSE stream: from its "sent" to its arrival. It closes opened once
// the stream is open (the server subscribes before it answers), or could
// not be.
func readStream(ctx context.Context, s *testServer, stream string, mu *sync.Mutex, lat *[]time.Duration, opened chan<- struct{}) {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+stream, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := http.DefaultClient.Do(req)
	close(opened)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Event struct {
				Sent int64 `json:"sent"`
			} `json:"event"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event.Sent > 0 {
			d := time.Since(time.Unix(0, ev.Event.Sent))
			mu.Lock()
			*lat = append(*lat, d)
			mu.Unlock()
		}
	}
}

// loadBare is the ceiling: chi plus one bbolt append per request, answered
// after the commit, so time-to-stored is the request's latency.
func loadBare(b *testing.B) loadResult {
	st, err := store.OpenBolt(filepath.Join(b.TempDir(), "bare.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var lat []time.Duration
	r := chi.NewRouter()
	r.Post("/h/{token}", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Sent int64 `json:"sent"`
		}
		_ = json.Unmarshal(body, &in)
		if _, err := st.AppendEvents(r.Context(), "dc_bare", []model.Event{{Data: body}}, 100); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		mu.Lock()
		lat = append(lat, time.Since(time.Unix(0, in.Sent)))
		mu.Unlock()
		io.WriteString(w, `{"success":true}`)
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	start := time.Now()
	hammer(srv.URL + "/h/bare")
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	p50, p99 := percentiles(lat)
	return loadResult{stored: len(lat), perSecond: float64(len(lat)) / elapsed.Seconds(), p50: p50, p99: p99}
}

// loadNode measures bench/node-vm/host.js, the Node baseline: a fresh vm
// context per request and grouped fsync, answering after the fsync, so
// time-to-stored is the request's latency, as in loadBare.
func loadNode(b *testing.B) loadResult {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatal("the node-vm baseline needs Node.js 20 or later on PATH (Debian: apt install nodejs)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "bench", "node-vm", "host.js"), b.TempDir())
	stdout := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	wait.Until(b, "the node host to start", time.Minute, func() bool { return strings.Contains(stdout.String(), "listening on") })
	base := "http://" + listeningLine.FindStringSubmatch(stdout.String())[1]
	start := time.Now()
	acked := hammer(base + "/h/node")
	elapsed := time.Since(start)
	resp, err := http.Get(base + "/stats")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var stats struct {
		Stored      int     `json:"stored"`
		LatenciesUS []int64 `json:"latencies_us"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		b.Fatal(err)
	}
	if int64(stats.Stored) < acked {
		b.Fatalf("node: %d acknowledged but %d stored", acked, stats.Stored)
	}
	b.Logf("node: %d acknowledged, %d stored, in %v", acked, stats.Stored, elapsed)
	lat := make([]time.Duration, len(stats.LatenciesUS))
	for i, us := range stats.LatenciesUS {
		lat[i] = time.Duration(us) * time.Microsecond
	}
	p50, p99 := percentiles(lat)
	return loadResult{stored: stats.Stored, perSecond: float64(stats.Stored) / elapsed.Seconds(), p50: p50, p99: p99}
}

// oneClient posts from a single connection for loadDuration, recording
// each request's latency to its acknowledgement.
func oneClient(url string, acks *[]time.Duration) int64 {
	client := &http.Client{}
	var acked int64
	for deadline := time.Now().Add(loadDuration); time.Now().Before(deadline); {
		start := time.Now()
		if postSent(client, url) {
			acked++
			*acks = append(*acks, time.Since(start))
		}
	}
	return acked
}

// fsyncP50 is the median time of writing 4 KiB to a file and syncing it,
// on the disk the benchmark's data directories are on: the floor of a
// durable acknowledgement.
func fsyncP50(b *testing.B) time.Duration {
	f, err := os.Create(filepath.Join(b.TempDir(), "fsync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	var ds []time.Duration
	for range 200 {
		start := time.Now()
		if _, err := f.Write(page); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	p50, _ := percentiles(ds)
	return p50
}
