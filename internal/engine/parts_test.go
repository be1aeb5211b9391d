package engine

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
)

// Every part of the engine: Start, Stop, Stop twice, and nothing fires
// after Stop.

func TestEndpointRegistry(t *testing.T) {
	t.Parallel()
	r := newEndpointRegistry()
	r.set("dc_early", map[component.EndpointToken]endpoint{"tok0": {target: model.SourceTarget("dc_early")}})
	if _, ok := r.lookup("tok0"); ok {
		t.Fatal("an endpoint registered before Start answers")
	}
	r.Start()
	r.set("dc_a", map[component.EndpointToken]endpoint{"tok1": {target: model.SourceTarget("dc_a")}, "tok2": {target: model.SourceTarget("dc_a"), prop: "second"}})
	r.set("dc_b", map[component.EndpointToken]endpoint{"tok3": {target: model.SourceTarget("dc_b")}})
	if ep, ok := r.lookup("tok2"); !ok || ep.target != model.SourceTarget("dc_a") || ep.prop != "second" {
		t.Fatalf("lookup tok2 = %+v, %v", ep, ok)
	}
	r.set("dc_a", map[component.EndpointToken]endpoint{"tok4": {target: model.SourceTarget("dc_a")}})
	if _, ok := r.lookup("tok1"); ok {
		t.Error("a replaced endpoint still answers")
	}
	r.remove("dc_b")
	if _, ok := r.lookup("tok3"); ok {
		t.Error("a removed endpoint still answers")
	}
	r.Stop()
	r.Stop()
	if _, ok := r.lookup("tok4"); ok {
		t.Error("an endpoint answers after Stop")
	}
	r.set("dc_c", map[component.EndpointToken]endpoint{"tok5": {target: model.SourceTarget("dc_c")}})
	if _, ok := r.lookup("tok5"); ok {
		t.Error("an endpoint registered after Stop answers")
	}
}

func TestWaiterSet(t *testing.T) {
	t.Parallel()
	s := newWaiterSet()
	s.Start()
	w := s.register("r1")
	if got := s.take("r1"); got != w || s.take("r1") != nil || s.take("") != nil {
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
	pending.finish() // finishing twice is safe
}

func TestBroadcaster(t *testing.T) {
	t.Parallel()
	b := newBroadcaster()
	ch, cancel := b.subscribe("dc_a")
	other, cancelOther := b.subscribe("dc_b")
	defer cancelOther()
	b.publish(evOf("dc_a", "1"), evOf("dc_b", "2"))
	if ev := <-ch; string(ev.Data) != "1" {
		t.Fatalf("dc_a got %s", ev.Data)
	}
	if ev := <-other; string(ev.Data) != "2" {
		t.Fatalf("dc_b got %s", ev.Data)
	}
	cancel()
	cancel()
	if _, ok := <-ch; ok {
		t.Fatal("a cancelled subscription is open")
	}
	slow, _ := b.subscribe("dc_c")
	for range cap(slow) + 1 {
		b.publish(evOf("dc_c", "x"))
	}
	n := 0
	for range slow {
		n++
	}
	if n != cap(slow) {
		t.Errorf("a subscriber that fell behind got %d events before being dropped, want %d", n, cap(slow))
	}
	if keys := mapKeys(b.subs); !slices.Equal(keys, []string{"dc_b"}) {
		t.Errorf("subscriptions left: %v", mapKeys(b.subs))
	}
}
