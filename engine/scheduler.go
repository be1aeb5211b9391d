package engine

import (
	"context"
	"sync"
)

// scheduler runs each source's queue on a bounded pool of workers, one
// worker per source at a time, so that invocations of a source are
// serialised while different sources run in parallel.
type scheduler struct {
	drain func(ctx context.Context, sourceID string)

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []string        // sources waiting for a worker
	busy    map[string]bool // queued or being drained
	dirty   map[string]bool // kicked again while being drained
	stopped bool
}

func newScheduler(drain func(ctx context.Context, sourceID string)) *scheduler {
	s := &scheduler{drain: drain, busy: map[string]bool{}, dirty: map[string]bool{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *scheduler) start(ctx context.Context, workers int, wg *sync.WaitGroup) {
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
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

// kick tells the scheduler that a source has queued work.
func (s *scheduler) kick(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[id] {
		s.dirty[id] = true
		return
	}
	s.busy[id] = true
	s.queue = append(s.queue, id)
	s.cond.Signal()
}

func (s *scheduler) next() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 && !s.stopped {
		s.cond.Wait()
	}
	if s.stopped {
		return "", false
	}
	id := s.queue[0]
	s.queue = s.queue[1:]
	return id, true
}

func (s *scheduler) done(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty[id] {
		delete(s.dirty, id)
		s.queue = append(s.queue, id)
		s.cond.Signal()
		return
	}
	delete(s.busy, id)
}

func (s *scheduler) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.cond.Broadcast()
}
