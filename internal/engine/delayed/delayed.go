// Package delayed is the clock of delayed emits and paused workflow
// executions: it keeps, per source or workflow, the earliest due time the
// engine noted, and queues a release when it comes. What waits, and how
// it is released, is the engine's (records on the $in channel).
package delayed

import (
	"log/slog"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
)

// Scheduler queues the release of delayed emits when they come due.
// Its loop ticks every Tick; Stop ends it and waits.
//
// K names what has emits or executions waiting (the engine's targets).
type Scheduler[K comparable] struct {
	clock   clock.Clock
	log     *slog.Logger
	release func(target K) error // queues a release invocation

	mu   sync.Mutex
	due  map[K]int64 // earliest due time per target, epoch ms
	stop chan struct{}
	wg   sync.WaitGroup
}

// Tick is how often due emits are looked for: their precision.
const Tick = 100 * time.Millisecond

// New returns a stopped Scheduler; release queues the release of an
// id's due emits.
func New[K comparable](clk clock.Clock, log *slog.Logger, release func(K) error) *Scheduler[K] {
	return &Scheduler[K]{clock: clk, log: log, release: release, due: map[K]int64{}}
}

// Start starts the loop.
func (d *Scheduler[K]) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		return
	}
	d.stop = make(chan struct{})
	tick := d.clock.NewTicker(Tick)
	d.wg.Add(1)
	go func(stop chan struct{}) {
		defer d.wg.Done()
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C():
				d.ReleaseDue(now)
			}
		}
	}(d.stop)
}

// Stop ends the loop and waits for it; it is safe to call twice.
func (d *Scheduler[K]) Stop() {
	d.mu.Lock()
	stop := d.stop
	d.stop = nil
	d.mu.Unlock()
	if stop != nil {
		close(stop)
	}
	d.wg.Wait()
}

// Note records that a target has an event or execution due at dueMs.
func (d *Scheduler[K]) Note(target K, dueMs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cur, ok := d.due[target]; !ok || dueMs < cur {
		d.due[target] = dueMs
	}
}

// Forget drops a target (deleted).
func (d *Scheduler[K]) Forget(target K) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.due, target)
}

// ReleaseDue queues the release of every target with something due by now.
// A release that cannot be queued is tried again on the next tick.
func (d *Scheduler[K]) ReleaseDue(now time.Time) {
	var due []K
	d.mu.Lock()
	for id, at := range d.due {
		if at <= now.UnixMilli() {
			due = append(due, id)
			delete(d.due, id)
		}
	}
	d.mu.Unlock()
	for _, id := range due {
		if err := d.release(id); err != nil {
			d.log.Error("queue the release of delayed events", "target", id, "err", err)
			d.Note(id, now.UnixMilli())
		}
	}
}

// Due is the earliest due time noted for an id, in Unix milliseconds; 0
// for none.
func (d *Scheduler[K]) Due(id K) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.due[id]
}
