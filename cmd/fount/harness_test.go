package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
	"github.com/fount-dev/fount/internal/worker"

	"github.com/fount-dev/fount/internal/host"
)

// The tests of this package share one compiled guest: sharedSandbox for
// servers started in-process, and cacheDir, the compilation cache it
// filled, for `fount serve` processes and commands that compile their own.
var (
	cacheDir string
	// binDir holds fount built by the test binary (buildFount).
	binDir      string
	sandboxMade atomic.Bool
	// testEngine runs the in-process servers' guests: wazero unless
	// FOUNT_TEST_ENGINE says wasm2go (with -tags wasm2go; make test-wasm2go).
	testEngine    = os.Getenv("FOUNT_TEST_ENGINE")
	sharedSandbox = sync.OnceValues(func() (*host.Host, error) {
		sandboxMade.Store(true)
		return host.New(context.Background(), host.Config{CacheDir: cacheDir, Engine: testEngine})
	})
)

func TestMain(m *testing.M) {
	if code, ok := worker.Run(); ok { // this test binary, started as a parse worker
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "fount-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cacheDir = dir
	if binDir, err = os.MkdirTemp("", "fount-test-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(binDir)
	if sandboxMade.Load() {
		if h, err := sharedSandbox(); err == nil {
			_ = h.Close(context.Background())
		}
	}
	_ = os.RemoveAll(dir)
	if sharedNATS.c != nil {
		sharedNATS.c.Shutdown()
		_ = os.RemoveAll(sharedNATS.dir)
	}
	os.Exit(code)
}

// workerExe is the executable the tests' workers run as: this test
// binary, unless it is built with the race detector. The workers run
// esbuild, which the detector slows several times over, and it would
// look into the worker's process for nothing of the server's: they run
// a plain build of fount then.
func workerExe(t testing.TB) string {
	t.Helper()
	exe, err := workerExePath()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func workerExePath() (string, error) {
	if raceEnabled {
		return fountBuild()
	}
	return os.Args[0], nil
}

// warmCache compiles the guest into cacheDir once, so that processes
// started by a test read the cache instead of compiling.
func warmCache(t testing.TB) {
	t.Helper()
	if _, err := sharedSandbox(); err != nil {
		t.Fatal(err)
	}
}

// ownerKey is the owner's API key of the tests' servers: a bootstrap key
// has at least 32 characters.
const ownerKey = "fount_test-owner-key-0123456789abcdef"

// startupDeadline bounds how long a server may take to start: generous,
// for a loaded machine and the race detector.
const startupDeadline = 2 * time.Minute

// lockedBuffer lets a test read what a running command has printed so far.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testEnvironment is an environment with exactly vars set, empty stdin,
// and its output in the two buffers.
func testEnvironment(vars map[string]string, stdout, stderr io.Writer) environment {
	env := map[string]string{}
	for k, v := range vars {
		env[k] = v
	}
	return environment{
		stdin: strings.NewReader(""), stdout: stdout, stderr: stderr,
		lookupEnv: func(name string) (string, bool) {
			v, ok := env[name]
			return v, ok
		},
	}
}

// testServer is a real fount testServer running in-process on loopback.
type testServer struct {
	t    testing.TB
	base string
	// endpoints is the endpoints' base URL: their own listener, as a
	// server's by default.
	endpoints string
	key       string
	stdout    *lockedBuffer
	log       *lockedBuffer
	done      chan error
	cancel    context.CancelFunc
	once      sync.Once
}

// startServer starts `fount serve` in-process with cfg, on a free loopback
// port, a temporary data dir unless cfg names one, and the shared guest.
// It is stopped when the test ends.
func startServer(t testing.TB, cfg server.Config) *testServer {
	t.Helper()
	sb, err := sharedSandbox()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.NpmRegistry == "" {
		// Refused at once: no test reaches a real registry, whatever npm
		// on this machine is configured with.
		cfg.NpmRegistry = "http://127.0.0.1:1/"
	}
	if cfg.Sandbox == nil {
		cfg.Sandbox = sb
	}
	if cfg.WorkerExe == "" {
		cfg.WorkerExe = workerExe(t)
	}
	if cfg.StoreURL == "" {
		cfg.StoreURL = "bolt"
		if os.Getenv("FOUNT_TEST_STORE") == "nats" { // the whole suite on a NATS store
			cfg = onSharedNATS(t, cfg)
		}
	}
	listening := make(chan string, 1)
	cfg.OnListening = func(addr string) { listening <- addr }
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{t: t, key: cfg.BootstrapKey, stdout: &lockedBuffer{}, log: &lockedBuffer{}, done: make(chan error, 1), cancel: cancel}
	logger := slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if cfg.LogFormat == "json" {
		logger = slog.New(slog.NewJSONHandler(s.log, &slog.HandlerOptions{Level: cfg.LogLevel}))
	}
	go func() { s.done <- server.Serve(ctx, cfg, s.stdout, logger) }()
	select {
	case addr := <-listening:
		s.base = "http://" + addr
		s.endpoints = s.base
		if m := endpointsLine.FindStringSubmatch(s.stdout.String()); m != nil {
			s.endpoints = "http://" + m[1]
		}
	case err := <-s.done:
		cancel()
		t.Fatalf("serve failed to start: %v\n%s", err, s.log)
	case <-time.After(startupDeadline):
		cancel()
		t.Fatalf("serve did not start in %v", startupDeadline)
	}
	t.Cleanup(s.stop)
	return s
}

// endpointsLine is what serve prints of the endpoints' own listener.
var endpointsLine = regexp.MustCompile(`serves endpoints on http://(\S+) as`)

// stop shuts the server down as SIGINT would; later calls do nothing.
func (s *testServer) stop() {
	s.once.Do(func() {
		s.cancel()
		select {
		case err := <-s.done:
			if err != nil {
				s.t.Errorf("serve stopped with %v", err)
			}
		case <-time.After(startupDeadline):
			s.t.Error("serve did not stop")
		}
	})
}

// startEngineServer is a server with a known key whose components may
// reach loopback (the tests' webhook receivers).
func startEngineServer(t testing.TB) *testServer {
	return startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
}

// do sends an API request with the server's key and decodes the answer.
func (s *testServer) do(method, path string, body any) (int, map[string]any) {
	s.t.Helper()
	return s.doAs(s.key, method, path, body)
}

// doAs sends an API request with key and decodes the answer.
func (s *testServer) doAs(key, method, path string, body any) (int, map[string]any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			s.t.Fatalf("%s %s: not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

func data(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }

// deploySource creates a source from code and returns its data.
func (s *testServer) deploySource(code string, props map[string]any) map[string]any {
	s.t.Helper()
	st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": code, "configured_props": props})
	if st != 200 {
		s.t.Fatalf("deploy: %d %v", st, body)
	}
	return data(body)
}

func endpointOf(src map[string]any, prop string) string {
	return src["configured_props"].(map[string]any)[prop].(map[string]any)["endpoint_url"].(string)
}

// eventsDeadline bounds every wait for events to arrive.
const eventsDeadline = time.Minute

// events polls a source's channel until want events are there.
func (s *testServer) events(id, channel string, want int) []map[string]any {
	s.t.Helper()
	return wait.For(s.t, fmt.Sprintf("source %s channel %q to have %d events", id, channel, want), eventsDeadline, func() ([]map[string]any, bool) {
		_, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=100&expand=event&event_name="+channel, nil)
		var got []map[string]any
		items, _ := body["data"].([]any) // none yet on an answer that is not a list
		for _, it := range items {
			got = append(got, it.(map[string]any))
		}
		return got, len(got) >= want
	})
}

func (s *testServer) run(id string, event any) {
	s.t.Helper()
	if st, body := s.do("POST", "/v1/sources/"+id+"/run", map[string]any{"event": event}); st != 202 {
		s.t.Fatalf("run: %d %v", st, body)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parallel runs f(0..n-1) on 16 goroutines, as 16 clients of a server
// would, and returns when all have run.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
