package host

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// testEngine is the engine the tests run the guest on: wazero unless
// FOUNT_TEST_ENGINE names another (wasm2go needs a build with -tags
// wasm2go, after make guest-go).
var testEngine = os.Getenv("FOUNT_TEST_ENGINE")

// testCacheDir is wazero's compilation cache for the package's tests
// (TestMain): the tests that need a host of their own (its bounds, its
// close, its spill dir) load the compiled guest from it rather than
// compile it again, ~10 s each under the race detector.
var testCacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fount-host-test-cache")
	if err != nil {
		panic(err)
	}
	testCacheDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// testConfig is cfg on the tests' engine and compilation cache.
func testConfig(cfg Config) Config {
	if cfg.Engine == "" {
		cfg.Engine = testEngine
	}
	cfg.CacheDir = testCacheDir
	return cfg
}

// testHost compiles the guest once for the whole package's tests.
var testHost = sync.OnceValues(func() (*Host, error) {
	return New(context.Background(), testConfig(Config{}))
})

func newTestHost(t testing.TB) *Host {
	t.Helper()
	h, err := testHost()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

// recorder is a full set of capabilities that records what the guest did.
type recorder struct {
	mu        sync.Mutex
	emits     []abi.Emit
	logs      []sandbox.LogEntry
	responses []abi.Response
	db        map[string][]byte
	auth      map[string]json.RawMessage
	stores    []abi.StoreRequest
}

func newRecorder() *recorder {
	return &recorder{db: map[string][]byte{}, auth: map[string]json.RawMessage{}}
}

func (r *recorder) caps() sandbox.Capabilities {
	return sandbox.Capabilities{Emit: r, DB: r, Auth: r, Respond: r, Log: r, Stores: r}
}

// Do records a data store request and answers a get of "k" with 1.
func (r *recorder) Do(_ context.Context, req abi.StoreRequest) (abi.StoreReply, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stores = append(r.stores, req)
	if req.Op == abi.StoreGet && req.Key == "k" {
		return abi.StoreReply{Found: true, Value: json.RawMessage("1")}, nil
	}
	return abi.StoreReply{}, nil
}

func (r *recorder) Emit(_ context.Context, e abi.Emit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emits = append(r.emits, e)
	return nil
}

func (r *recorder) Log(_ context.Context, e sandbox.LogEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, e)
	return nil
}

func (r *recorder) Respond(_ context.Context, resp abi.Response) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.responses = append(r.responses, resp)
	return nil
}

func (r *recorder) Get(_ context.Context, key string) ([]byte, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.db[key]
	return v, ok, nil
}

func (r *recorder) Set(_ context.Context, key string, value []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.db[key] = value
	return nil
}

func (r *recorder) Auth(_ context.Context, prop string) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.auth[prop]; ok {
		return v, nil
	}
	return json.RawMessage(`{}`), nil
}

// deploy loads code as a source, failing the test on error.
func deploy(t testing.TB, h *Host, code string, props string) *Source {
	t.Helper()
	s, err := h.NewSource(context.Background(), sandbox.Spec{ID: "dc_test", Code: code, Props: json.RawMessage(props)})
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}
