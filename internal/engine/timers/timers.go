// Package timers fires the timer props of active sources and the timer
// triggers of workflows, on the engine's clock.
package timers

import (
	"log/slog"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/clock"
)

// Set fires the timer props of active sources (and the timer triggers
// of workflows). Each fire calls fire, which queues the run; the set then
// arms the next one. A tick is named by its due time, which every node
// computes alike from the schedule and the timer's anchor, so that the
// store queues each tick once however many nodes fire it. After a restart,
// a tick that came due while the server was down runs once at once
// (missed ticks are not replayed one by one) and the schedule continues;
// lastFire tells when the source's timer last fired.
//
// Stop stops every timer and waits for a fire in progress, so that nothing
// fires, and nothing touches the store, after it returns.
type Set[K comparable] struct {
	clock    clock.Clock
	log      *slog.Logger
	fire     func(target K, prop string, spec component.TimerSpec, due time.Time)
	lastFire func(target K) (int64, error)

	mu      sync.Mutex
	timers  map[K]map[string]*armed // by target, then prop
	running bool
	firing  sync.WaitGroup
}

// armed is one timer prop's schedule and its pending fire.
type armed struct {
	spec  component.TimerSpec
	sched component.Schedule
	next  clock.Timer
}

// New returns a stopped Set: fire queues a run, and lastFire tells when
// an id's timer last fired (Unix milliseconds; 0: never).
func New[K comparable](clk clock.Clock, log *slog.Logger, fire func(K, string, component.TimerSpec, time.Time), lastFire func(K) (int64, error)) *Set[K] {
	return &Set[K]{clock: clk, log: log, fire: fire, lastFire: lastFire, timers: map[K]map[string]*armed{}}
}

// Start lets the set arm timers.
func (s *Set[K]) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = true
}

// Stop stops every timer and waits for fires in progress. It is safe to
// call twice.
func (s *Set[K]) Stop() {
	s.mu.Lock()
	s.running = false
	for id := range s.timers {
		s.removeLocked(id)
	}
	s.mu.Unlock()
	s.firing.Wait()
}

// Arm replaces the timers of a source or workflow with one per entry of specs (by
// prop name), their intervals counted from anchor (see
// component.TimerSpec.Schedule). A spec without a valid schedule is
// logged and skipped.
func (s *Set[K]) Arm(target K, anchor time.Time, specs map[string]component.TimerSpec) {
	s.Remove(target)
	if len(specs) == 0 {
		return
	}
	last, err := s.lastFire(target)
	if err != nil {
		s.log.Error("read the last timer fire", "target", target, "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return
	}
	for prop, spec := range specs {
		sched, err := spec.Schedule(anchor)
		if err != nil {
			s.log.Warn("timer prop has no valid schedule", "target", target, "prop", prop, "err", err)
			continue
		}
		a := &armed{spec: spec, sched: sched}
		if s.timers[target] == nil {
			s.timers[target] = map[string]*armed{}
		}
		s.timers[target][prop] = a
		s.arm(target, prop, a, firstFire(sched, anchor, last))
	}
}

// firstFire is the tick a timer anchored at anchor first fires for,
// given when its source's timer last fired (epoch ms, 0 for never): the
// first tick after both. A tick missed while down is in the past: it fires
// at once, one catch-up fire, and every node that arms the timer names it
// alike, so that the store enqueues it once.
func firstFire(sched component.Schedule, anchor time.Time, lastMs int64) time.Time {
	from := anchor
	if last := time.UnixMilli(lastMs); lastMs > 0 && last.After(from) {
		from = last
	}
	return sched.Next(from)
}

// arm schedules a's fire of the tick due at due (at once when past);
// s.mu is held.
func (s *Set[K]) arm(target K, prop string, a *armed, due time.Time) {
	a.next = s.clock.AfterFunc(max(0, due.Sub(s.clock.Now())), func() {
		s.mu.Lock()
		if !s.running || s.timers[target][prop] != a {
			s.mu.Unlock()
			return // stopped, or removed or replaced meanwhile
		}
		s.firing.Add(1)
		s.mu.Unlock()
		defer s.firing.Done()

		s.fire(target, prop, a.spec, due)
		fired := s.clock.Now()

		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running && s.timers[target][prop] == a {
			// The tick after the one due, as every node names it, unless
			// that is past already (a catch-up fire): then from now, so
			// that missed ticks do not fire in a burst.
			next := a.sched.Next(due)
			if !next.After(fired) {
				next = a.sched.Next(fired)
			}
			s.arm(target, prop, a, next)
		}
	})
}

// Remove stops every timer of a source or workflow.
func (s *Set[K]) Remove(target K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(target)
}

func (s *Set[K]) removeLocked(target K) {
	for _, a := range s.timers[target] {
		a.next.Stop()
	}
	delete(s.timers, target)
}

// Count reports how many timers are armed.
func (s *Set[K]) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, props := range s.timers {
		n += len(props)
	}
	return n
}
