package engine

import (
	"slices"
	"testing"
)

// Every part of the engine: Start, Stop, Stop twice, and nothing fires
// after Stop.

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
