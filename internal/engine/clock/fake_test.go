package clock

import (
	"strings"
	"testing"
	"time"
)

// TestFakeFiresTimersInTimeOrder: Advance fires each AfterFunc due by
// then in time order, with Now at its time, and leaves later and stopped
// ones.
func TestFakeFiresTimersInTimeOrder(t *testing.T) {
	t.Parallel()
	c := NewFake()
	start := c.Now()
	var fired []string
	at := func(name string) func() {
		return func() { fired = append(fired, name+"@"+c.Now().Sub(start).String()) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(time.Minute, at("later"))
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop of a waiting timer is not true once, then false")
	}
	c.Advance(5 * time.Second)
	if got := strings.Join(fired, " "); got != "a@1s c@3s" {
		t.Errorf("fired %q, want a@1s c@3s", got)
	}
	if c.Now().Sub(start) != 5*time.Second || c.PendingTimers() != 1 {
		t.Errorf("now +%s, %d pending; want +5s and the later one", c.Now().Sub(start), c.PendingTimers())
	}
}

// TestFakeTimerSetByATimer: a timer that an AfterFunc sets while Advance
// runs fires in the same Advance when it is due by then.
func TestFakeTimerSetByATimer(t *testing.T) {
	t.Parallel()
	c := NewFake()
	n := 0
	var again func()
	again = func() {
		if n++; n < 3 {
			c.AfterFunc(time.Second, again)
		}
	}
	c.AfterFunc(time.Second, again)
	c.Advance(10 * time.Second)
	if n != 3 || c.PendingTimers() != 0 {
		t.Errorf("fired %d times, %d pending; want 3 and none", n, c.PendingTimers())
	}
}

// TestFakeTicker: a ticker ticks once its period passed, drops the ticks
// a slow reader misses, and stops.
func TestFakeTicker(t *testing.T) {
	t.Parallel()
	c := NewFake()
	tk := c.NewTicker(time.Second)
	select {
	case <-tk.C():
		t.Fatal("ticked before its period")
	default:
	}
	c.Advance(3500 * time.Millisecond)
	select {
	case at := <-tk.C():
		if !at.Equal(c.Now()) {
			t.Errorf("ticked at %v, want %v", at, c.Now())
		}
	default:
		t.Fatal("no tick after its period")
	}
	select {
	case <-tk.C():
		t.Fatal("missed ticks were kept")
	default:
	}
	tk.Stop()
	c.Advance(time.Minute)
	select {
	case <-tk.C():
		t.Fatal("a stopped ticker ticked")
	default:
	}
}

// TestSystemClock: the system clock's timers and tickers are the time
// package's.
func TestSystemClock(t *testing.T) {
	t.Parallel()
	c := System()
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Errorf("Now is %s from time.Now", d)
	}
	done := make(chan struct{})
	c.AfterFunc(time.Millisecond, func() { close(done) })
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("AfterFunc never fired")
	}
	tk := c.NewTicker(time.Millisecond)
	defer tk.Stop()
	select {
	case <-tk.C():
	case <-time.After(time.Minute):
		t.Fatal("the ticker never ticked")
	}
	if c.AfterFunc(time.Hour, func() {}).Stop() != true {
		t.Error("Stop of a waiting timer is false")
	}
}
