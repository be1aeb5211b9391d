package ingress

import (
	"context"
	"testing"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
)

// Each part: Start, Stop, Stop twice, and nothing answers after Stop.

func TestEndpointRegistry(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	r.Set("dc_early", map[component.EndpointToken]Endpoint{"tok0": {Target: model.SourceTarget("dc_early")}})
	if _, ok := r.Lookup("tok0"); ok {
		t.Fatal("an endpoint registered before Start answers")
	}
	r.Start()
	r.Set("dc_a", map[component.EndpointToken]Endpoint{"tok1": {Target: model.SourceTarget("dc_a")}, "tok2": {Target: model.SourceTarget("dc_a"), Prop: "second"}})
	r.Set("dc_b", map[component.EndpointToken]Endpoint{"tok3": {Target: model.SourceTarget("dc_b")}})
	if ep, ok := r.Lookup("tok2"); !ok || ep.Target != model.SourceTarget("dc_a") || ep.Prop != "second" {
		t.Fatalf("lookup tok2 = %+v, %v", ep, ok)
	}
	r.Set("dc_a", map[component.EndpointToken]Endpoint{"tok4": {Target: model.SourceTarget("dc_a")}})
	if _, ok := r.Lookup("tok1"); ok {
		t.Error("a replaced endpoint still answers")
	}
	r.Remove("dc_b")
	if _, ok := r.Lookup("tok3"); ok {
		t.Error("a removed endpoint still answers")
	}
	r.Stop()
	r.Stop()
	if _, ok := r.Lookup("tok4"); ok {
		t.Error("an endpoint answers after Stop")
	}
	r.Set("dc_c", map[component.EndpointToken]Endpoint{"tok5": {Target: model.SourceTarget("dc_c")}})
	if _, ok := r.Lookup("tok5"); ok {
		t.Error("an endpoint registered after Stop answers")
	}
}

func TestWaiters(t *testing.T) {
	t.Parallel()
	s := newWaiters()
	s.Start()
	w := s.register("r1")
	if got := s.Take("r1"); got != w || s.Take("r1") != nil || s.Take("") != nil {
		t.Fatal("take must return a waiter once")
	}
	pending := s.register("r2")
	s.Stop()
	s.Stop()
	select {
	case <-pending.ended:
	default:
		t.Fatal("Stop did not end a waiting request")
	}
	select {
	case <-pending.released:
	default:
		t.Fatal("a request ended by Stop is not marked released (it would answer 500, not 503)")
	}
	if s.register("r3") != nil {
		t.Fatal("a waiter was registered after Stop")
	}
	pending.Finish() // finishing twice is safe
}

// TestWaitersAcrossNodes: a response delivered for a request waiting on
// this node reaches it; a remote waiter forwards its run's response and
// end instead of holding them.
func TestWaitersAcrossNodes(t *testing.T) {
	t.Parallel()
	s := newWaiters()
	w := s.register("k")
	s.Deliver("k", &abi.Response{Status: 202})
	if got := <-w.response; got.Status != 202 {
		t.Errorf("delivered %+v", got)
	}
	s.Deliver("k", nil)
	select {
	case <-w.ended:
	default:
		t.Error("a delivered end did not end the wait")
	}
	s.Deliver("gone", &abi.Response{Status: 200}) // nobody waits: nothing happens
	var forwarded []*abi.Response
	remote := NewRemoteWaiter(func(r *abi.Response) { forwarded = append(forwarded, r) })
	_ = remote.Respond(context.Background(), abi.Response{Status: 201})
	remote.Finish()
	remote.Finish()
	if len(forwarded) != 2 || forwarded[0].Status != 201 || forwarded[1] != nil {
		t.Errorf("forwarded %v, want the response then the end, once", forwarded)
	}
}
