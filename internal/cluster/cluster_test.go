package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/natsdev"
	"github.com/fount-dev/fount/internal/store"
)

// node is one Cluster on the test's store, recording what it was told.
type node struct {
	*Cluster
	mu      sync.Mutex
	kicked  []model.Target
	replies map[string]*abi.Response
}

func startNode(t *testing.T, urls, ns, name string) *node {
	t.Helper()
	st, err := store.OpenJetStream(context.Background(), store.JetStreamConfig{URLs: urls, Namespace: ns, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c, err := New(Config{Store: st, Node: name, LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{Cluster: c, replies: map[string]*abi.Response{}}
	err = c.Start(engine.ClusterHandlers{
		Kick:    func(t model.Target) { n.mu.Lock(); n.kicked = append(n.kicked, t); n.mu.Unlock() },
		Changed: func(model.Target) {},
		Events:  func([]model.Event) {},
		Reply:   func(address string, r *abi.Response) { n.mu.Lock(); n.replies[address] = r; n.mu.Unlock() },
		Resume:  func(bool) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return n
}

// waitFor polls cond until it holds, for a generous while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, wait.Long, cond)
}

// owners counts, for ids, how many of nodes own each, and how many each
// node owns.
func owners(ids []string, nodes ...*node) (each []int, overlaps, orphans int) {
	each = make([]int, len(nodes))
	for _, id := range ids {
		n := 0
		for i, nd := range nodes {
			if nd.Owns(id) {
				n++
				each[i]++
			}
		}
		switch {
		case n > 1:
			overlaps++
		case n == 0:
			orphans++
		}
	}
	return each, overlaps, orphans
}

// TestPartitionsMoveBetweenNodes: a lone node owns everything; a second
// node takes about half; when the first stops, the second owns all
// again. An id is never owned by two nodes at once.
func TestPartitionsMoveBetweenNodes(t *testing.T) {
	t.Parallel()
	nats, err := natsdev.Start(t.TempDir(), 1, natsdev.Ports{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nats.Shutdown)
	var ids []string
	for i := range 200 {
		ids = append(ids, fmt.Sprintf("dc_%d", i))
	}
	a := startNode(t, nats.URLs(), "t1", "a")
	if each, _, orphans := owners(ids, a); orphans != 0 || each[0] != len(ids) {
		t.Fatalf("a lone node owns %d of %d ids", each[0], len(ids))
	}
	b := startNode(t, nats.URLs(), "t1", "b")
	waitFor(t, "the second node taking its share", func() bool {
		each, overlaps, orphans := owners(ids, a, b)
		if overlaps > 0 {
			t.Fatalf("%d ids owned by both nodes", overlaps)
		}
		return orphans == 0 && each[0] > 0 && each[1] > 0
	})

	a.Kick(model.WorkflowTarget("p_7"))
	// A node of an older fount names the target by its id alone.
	if err := a.nc.Publish(a.st.BusSubject("kick"), []byte("dc_8")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the kicks reaching the other node", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return slices.Equal(b.kicked, []model.Target{model.WorkflowTarget("p_7"), model.SourceTarget("dc_8")})
	})
	address := b.ReplyAddress("k1")
	if a.Reply(a.ReplyAddress("k0"), nil) {
		t.Error("a reply to this node's own address went out")
	}
	if !a.Reply(address, &abi.Response{Status: 201, Body: "made"}) {
		t.Fatal("a reply to the other node was not sent")
	}
	waitFor(t, "the reply reaching its node", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		r := b.replies[address]
		return r != nil && r.Status == 201 && r.Body == "made"
	})

	a.Stop()
	waitFor(t, "the remaining node taking everything", func() bool {
		each, _, orphans := owners(ids, b)
		return orphans == 0 && each[0] == len(ids)
	})
}
