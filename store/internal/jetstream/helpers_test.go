package jetstream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
)

// testNATS is one embedded JetStream server per test binary, started by
// the first test that needs it; each test has a namespace of its own on
// it (openTest).
var testNATS struct {
	once    sync.Once
	cluster *natsdev.Cluster
	dir     string
	err     error
	n       atomic.Int64 // namespaces handed out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testNATS.cluster != nil {
		testNATS.cluster.Shutdown()
		_ = os.RemoveAll(testNATS.dir)
	}
	os.Exit(code)
}

var ctx = context.Background()

// openTest opens an engine in a namespace of its own on the test
// binary's NATS server; on cleanup it deletes its stream and closes it.
func openTest(t testing.TB) *Engine {
	t.Helper()
	testNATS.once.Do(func() {
		if testNATS.dir, testNATS.err = os.MkdirTemp("", "fount-jetstream-"); testNATS.err == nil {
			testNATS.cluster, testNATS.err = natsdev.Start(testNATS.dir, 1, natsdev.Ports{})
		}
	})
	if testNATS.err != nil {
		t.Fatalf("embedded NATS: %v", testNATS.err)
	}
	ns := fmt.Sprintf("t%d", testNATS.n.Add(1))
	s, err := Open(ctx, Config{URLs: testNATS.cluster.URLs(), Namespace: ns, Name: t.Name()}, time.Now)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.DeleteStream(ctx); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// wantErr fails t unless err matches want (nil: no error).
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// must returns v, or panics with err: for values a test cannot go on
// without.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
