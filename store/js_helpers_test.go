package store

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// testNATS is one embedded JetStream server per test binary, started by
// the first test that needs it; each test has a namespace of its own on
// it (openTestJetStream).
var testNATS struct {
	once sync.Once
	srv  *natsserver.Server
	dir  string
	err  error
	n    atomic.Int64 // namespaces handed out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testNATS.srv != nil {
		testNATS.srv.Shutdown()
		testNATS.srv.WaitForShutdown()
		_ = os.RemoveAll(testNATS.dir)
	}
	os.Exit(code)
}

// natsURL starts the test binary's NATS server unless it runs, and
// returns its URL.
func natsURL(t testing.TB) string {
	t.Helper()
	testNATS.once.Do(func() {
		testNATS.dir, testNATS.err = os.MkdirTemp("", "fount-store-nats-")
		if testNATS.err != nil {
			return
		}
		testNATS.srv, testNATS.err = natsserver.NewServer(&natsserver.Options{
			Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: testNATS.dir,
			MaxPayload: 8 << 20, NoLog: true, NoSigs: true,
		})
		if testNATS.err != nil {
			return
		}
		testNATS.srv.Start()
		if !testNATS.srv.ReadyForConnections(30 * time.Second) {
			testNATS.err = fmt.Errorf("the embedded NATS server did not start")
		}
	})
	if testNATS.err != nil {
		t.Fatalf("embedded NATS: %v", testNATS.err)
	}
	return testNATS.srv.ClientURL()
}

// openTestJetStream opens a JetStream store in a namespace of its own on
// the test binary's NATS server; on cleanup it closes it and deletes its
// stream.
func openTestJetStream(t testing.TB, opts ...Option) *JetStream {
	t.Helper()
	ns := fmt.Sprintf("t%d", testNATS.n.Add(1))
	s, err := OpenJetStream(ctx, JetStreamConfig{URLs: natsURL(t), Namespace: ns, Name: t.Name()}, opts...)
	if err != nil {
		t.Fatalf("OpenJetStream: %v", err)
	}
	mustFixtureComponent(t, s)
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
