package jetstream

import (
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
)

// TestStoppingEndsTheWaitForALostServer: a commit waits up to 20 s for a
// lost server to come back, but not once the node stops: whether the
// node was told before the commit began or while it waited, the commit
// fails within seconds, and Close returns at once.
func TestStoppingEndsTheWaitForALostServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		stoppingBefore bool
	}{
		{"told while the commit waits", false},
		{"told before the commit", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cluster, err := natsdev.Start(t.TempDir(), 1, natsdev.Ports{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cluster.Shutdown)
			s, err := Open(ctx, Config{URLs: cluster.URLs(), Namespace: "stopping", Name: t.Name()}, time.Now)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			cluster.Stop(0)
			if tc.stoppingBefore {
				s.Stopping()
			}
			start := time.Now()
			committed := make(chan error, 1)
			go func() {
				committed <- s.update(ctx, func(tx *jsTx) error { tx.put(s.key("t", "a"), []byte("1")); return nil })
			}()
			if !tc.stoppingBefore {
				s.Stopping()
			}
			select {
			case err := <-committed:
				if err == nil {
					t.Error("a commit without a server succeeded")
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the commit still waits for its server 15 s after the node began to stop")
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the commit took %v to fail once the node stops, want 5 s at most", took)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
