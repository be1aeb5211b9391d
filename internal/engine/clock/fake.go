package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told, for tests. Advance fires due
// AfterFuncs in time order, each in the caller's goroutine, and ticks
// tickers whose period passed.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	tickers []*fakeTicker
}

// NewFake returns a Fake at a fixed time.
func NewFake() *Fake {
	return &Fake{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
}

type fakeTimer struct {
	c       *Fake
	at      time.Time
	f       func()
	stopped bool
}

type fakeTicker struct {
	c      *Fake
	period time.Duration
	next   time.Time
	ch     chan time.Time
	done   bool
}

func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped && slices.Contains(t.c.timers, t)
	t.stopped = true
	t.c.timers = slices.DeleteFunc(t.c.timers, func(x *fakeTimer) bool { return x == t })
	return was
}

func (c *Fake) NewTicker(d time.Duration) Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTicker{c: c, period: d, next: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.tickers = append(c.tickers, t)
	return t
}

func (t *fakeTicker) C() <-chan time.Time { return t.ch }

func (t *fakeTicker) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.done = true
}

// Advance moves the clock by d, firing what came due on the way.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.at.After(target) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = target
			c.tick()
			c.mu.Unlock()
			return
		}
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.timers = slices.DeleteFunc(c.timers, func(x *fakeTimer) bool { return x == next })
		c.tick()
		c.mu.Unlock()
		next.f()
	}
}

// tick sends on the tickers whose time came; c.mu is held.
func (c *Fake) tick() {
	for _, t := range c.tickers {
		if t.done || t.next.After(c.now) {
			continue
		}
		for !t.next.After(c.now) {
			t.next = t.next.Add(t.period)
		}
		select {
		case t.ch <- c.now:
		default: // like time.Ticker, drop ticks a slow reader misses
		}
	}
}

// PendingTimers reports how many AfterFuncs are waiting.
func (c *Fake) PendingTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
