package jetstream

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
)

// testNATS is the test binary's NATS server; each test has a namespace
// of its own on it (openTest).
var testNATS natsdev.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	testNATS.Shutdown()
	os.Exit(code)
}

var ctx = context.Background()

// openTest opens an engine in a namespace of its own on the test
// binary's NATS server; on cleanup it deletes its stream and closes it.
func openTest(t testing.TB) *Engine {
	t.Helper()
	url, err := testNATS.URL()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Config{URLs: url, Namespace: testNATS.Namespace(), Name: t.Name()}, time.Now)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := Inspect(s).DeleteStream(ctx); err != nil {
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
