package engine

import (
	"context"
	"sync"
	"time"
)

// scheduler runs each source's queue on a bounded pool of workers, one
// worker per source at a time, so that invocations of a source are
// serialised while different sources run in parallel. Sources wait for a
// worker in the order they were kicked; a source with more work kicks
// itself again and goes to the back, so one busy source cannot hold every
// worker while others wait.
type scheduler struct {
	drain func(ctx context.Context, sourceID string)
	clock Clock

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []string        // sources waiting for a worker
	busy    map[string]bool // queued or being drained
	dirty   map[string]bool // kicked again while being drained
	retries map[string]Timer
	running bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newScheduler(clock Clock, drain func(ctx context.Context, sourceID string)) *scheduler {
	s := &scheduler{drain: drain, clock: clock, busy: map[string]bool{}, dirty: map[string]bool{}, retries: map[string]Timer{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Start starts the workers.
func (s *scheduler) Start(workers int) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.running, s.cancel = true, cancel
	s.mu.Unlock()
	for range workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for {
				id, ok := s.next()
				if !ok {
					return
				}
				s.drain(ctx, id)
				s.done(id)
			}
		}()
	}
}

// Stop cancels the drains in progress, stops pending retries and waits for
// the workers. It is safe to call twice, and before Start.
func (s *scheduler) Stop() {
	s.mu.Lock()
	s.running = false
	for id, t := range s.retries {
		t.Stop()
		delete(s.retries, id)
	}
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.cond.Broadcast()
	s.wg.Wait()
}

// kick tells the scheduler that a source has queued work.
func (s *scheduler) kick(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kickLocked(id)
}

func (s *scheduler) kickLocked(id string) {
	if !s.running {
		return
	}
	if s.busy[id] {
		s.dirty[id] = true
		return
	}
	s.busy[id] = true
	s.queue = append(s.queue, id)
	s.cond.Signal()
}

// kickAfter kicks a source after d, unless Stop comes first: the retry of
// a drain that failed.
func (s *scheduler) kickAfter(id string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running || s.retries[id] != nil {
		return
	}
	var t Timer
	t = s.clock.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.retries[id] == t {
			delete(s.retries, id)
			s.kickLocked(id)
		}
	})
	s.retries[id] = t
}

func (s *scheduler) next() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 && s.running {
		s.cond.Wait()
	}
	if !s.running {
		return "", false
	}
	id := s.queue[0]
	s.queue = s.queue[1:]
	return id, true
}

func (s *scheduler) done(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty[id] && s.running {
		delete(s.dirty, id)
		s.queue = append(s.queue, id)
		s.cond.Signal()
		return
	}
	delete(s.dirty, id)
	delete(s.busy, id)
}

// idle reports whether no source is queued or being drained.
func (s *scheduler) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.busy) == 0
}
