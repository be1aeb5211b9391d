package engine

import (
	"sync"
	"time"

	"github.com/fount-dev/fount/model"
)

// A source's queue is read readAhead invocations at a time and run
// batchSize at a time: the rest wait here for the source's next turns,
// so that a deep queue costs the store one read per four batches. On
// JetStream a read past a few dozen invocations creates a consumer, whose
// cost grows with the queue (docs/benchmarks.md, "One busy source").
const (
	readAhead = 4 * batchSize
	// readAheadBytes bounds the events a source's read-ahead holds.
	readAheadBytes = 8 << 20
	// readAheadFor is how long invocations read ahead stay usable. It is
	// well under the time another node takes over a partition this node
	// stopped owning (it waits for the lease to run out), so that what is
	// read ahead was never run elsewhere.
	readAheadFor = time.Second
)

// aheadSet holds, per source, the invocations read from the queue but not
// yet run: still queued in the store, oldest first.
type aheadSet struct {
	clock Clock
	mu    sync.Mutex
	by    map[string]ahead
}

type ahead struct {
	invs []model.Invocation
	at   time.Time // when they were read
}

func newAheadSet(clock Clock) *aheadSet {
	return &aheadSet{clock: clock, by: map[string]ahead{}}
}

// take returns up to n invocations of id read ahead and still fresh,
// removing them; none when there are none.
func (s *aheadSet) take(id string, n int) []model.Invocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.by[id]
	if !ok {
		return nil
	}
	if s.clock.Now().Sub(a.at) > readAheadFor {
		delete(s.by, id)
		return nil
	}
	n = min(n, len(a.invs))
	out := a.invs[:n:n]
	if a.invs = a.invs[n:]; len(a.invs) == 0 {
		delete(s.by, id)
	} else {
		s.by[id] = a
	}
	return out
}

// keep holds invs, read at at, for id's next turns, as many of them as
// readAheadBytes allows.
func (s *aheadSet) keep(id string, invs []model.Invocation, at time.Time) {
	size, n := 0, 0
	for ; n < len(invs); n++ {
		if size += len(invs[n].Event); size > readAheadBytes {
			break
		}
	}
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.by[id] = ahead{invs: invs[:n:n], at: at}
}

// drop forgets what was read ahead of id: a batch that failed leaves its
// invocations queued, to be read again in order.
func (s *aheadSet) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.by, id)
}
