package store

import (
	"os"
	"testing"

	jsengine "github.com/fount-dev/fount/internal/store/internal/jetstream"

	"github.com/fount-dev/fount/internal/natsdev"
)

// testNATS is the test binary's NATS server; each test has a namespace
// of its own on it (openTestJetStream).
var testNATS natsdev.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	testNATS.Shutdown()
	os.Exit(code)
}

// natsURL starts the test binary's NATS server unless it runs, and
// returns its URL.
func natsURL(t testing.TB) string {
	t.Helper()
	url, err := testNATS.URL()
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// openTestJetStream opens a JetStream store in a namespace of its own on
// the test binary's NATS server; on cleanup it closes it and deletes its
// stream.
func openTestJetStream(t testing.TB, opts ...Option) *JetStream {
	t.Helper()
	ns := testNATS.Namespace()
	s, err := OpenJetStream(ctx, JetStreamConfig{URLs: natsURL(t), Namespace: ns, Name: t.Name()}, opts...)
	if err != nil {
		t.Fatalf("OpenJetStream: %v", err)
	}
	mustFixtureComponent(t, s)
	t.Cleanup(func() {
		if err := jsengine.Inspect(s.Engine).DeleteStream(ctx); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}
