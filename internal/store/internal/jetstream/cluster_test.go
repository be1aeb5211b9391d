package jetstream

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// The tests of this file are JetStream's own: leases and node
// heartbeats serve several nodes sharing one store, which a bbolt file,
// held by one process, never is.

// TestJSLeases: one holder at a time; a lease given up, or whose TTL ran
// out, goes to the next node that asks.
func TestJSLeases(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	steps := []struct {
		holder string
		ttl    time.Duration
		want   string
	}{
		{"a", time.Minute, "a"},
		{"b", time.Minute, "a"}, // held by a
		{"a", time.Minute, "a"}, // renewed
		{"b", 0, "a"},           // b cannot give up a's lease
		{"a", 0, ""},            // given up
		{"b", time.Second, "b"},
	}
	for i, st := range steps {
		if got := must(s.Lease(ctx, "p1", st.holder, st.ttl)); got != st.want {
			t.Fatalf("step %d: %s asks for %v: held by %q, want %q", i, st.holder, st.ttl, got, st.want)
		}
	}
	wait.Until(t, "b's lease of a second to run out", wait.Short, func() bool { return must(s.Lease(ctx, "p1", "c", time.Minute)) == "c" })
	if got := must(s.Lease(ctx, "p2", "a", time.Minute)); got != "a" {
		t.Errorf("another lease: %q", got)
	}
}

func TestJSNodes(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	for _, n := range []string{"a", "b"} {
		wantErr(t, "Heartbeat", s.Heartbeat(ctx, n, time.Minute), nil)
	}
	got := must(s.Nodes(ctx))
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("nodes %v", got)
	}
	wantErr(t, "Leave", s.Leave(ctx, "a"), nil)
	if got := must(s.Nodes(ctx)); !slices.Equal(got, []string{"b"}) {
		t.Errorf("after a left: %v", got)
	}
	if s.BusSubject("kick") == s.key("kick") {
		t.Error("bus subjects fall in the stream")
	}
}

// TestJSNodesWhileTheyBeat: nodes that heartbeat while they are counted
// are each counted once. A scan meets a record written again behind it
// twice; counting one node twice shrank every node's share of the work,
// and the partitions dropped waited a lease's TTL for another node.
func TestJSNodesWhileTheyBeat(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	names := []string{"a", "b", "c"}
	for _, n := range names {
		if err := s.Heartbeat(ctx, n, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.Heartbeat(ctx, n, time.Minute); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for range 200 {
		got, err := s.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Fatalf("Nodes = %v while they beat, want %v", got, names)
		}
	}
}
