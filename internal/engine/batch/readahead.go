package batch

import (
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
)

// A deep queue is read ReadAhead invocations at a time and run Size at a
// time: the rest wait here for the source's next turns, so that the
// store is read once per four batches. On JetStream a read past a few
// dozen invocations creates a consumer, whose cost grows with the queue
// (docs/benchmarks.md, "One busy source"). A queue is deep when its last
// Read came back full; a shallow one is read a batch at a time, as what
// it would keep may expire before its next turn.
const (
	ReadAhead = 4 * Size
	// readAheadBytes bounds the events a source's read-ahead holds, and
	// readAheadTotal those of every source's.
	readAheadBytes = 8 << 20
	readAheadTotal = 64 << 20
	// readAheadFor is how long invocations read ahead stay usable. It is
	// under the time another node takes over a partition this node
	// stopped owning (it waits for the lease, at least 3 s, to run out a
	// third of its TTL after this node stopped), so that what is read
	// ahead was never run elsewhere.
	readAheadFor = time.Second
)

// Size is how many queued invocations of a source or workflow run in
// one batch, before their results are committed together.
const Size = 256

// Ahead holds, per source, the invocations read from the queue but not
// yet run: still queued in the store, oldest first.
type Ahead struct {
	clk   clock.Clock
	mu    sync.Mutex
	by    map[string]ahead
	deep  map[string]bool // sources whose last read came back full
	bytes int             // of every source's invocations held
}

type ahead struct {
	invs  []model.Invocation
	at    time.Time // when they were read
	bytes int
}

// NewAhead holds invocations read ahead for as long as clk says.
func NewAhead(clk clock.Clock) *Ahead {
	return &Ahead{clk: clk, by: map[string]ahead{}, deep: map[string]bool{}}
}

// Limit is how many invocations of id the next read of its queue asks
// for, of at most n: ReadAhead when its queue is deep.
func (s *Ahead) Limit(id string, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deep[id] {
		return ReadAhead
	}
	return n
}

// Read notes how a read of id's queue that asked for limit came back.
func (s *Ahead) Read(id string, got, limit int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if got >= limit {
		s.deep[id] = true
	} else {
		delete(s.deep, id)
	}
}

// Take returns up to n invocations of id read ahead and still fresh,
// removing them; none when there are none.
func (s *Ahead) Take(id string, n int) []model.Invocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.by[id]
	if !ok {
		return nil
	}
	if s.clk.Now().Sub(a.at) > readAheadFor {
		s.Forget(id)
		return nil
	}
	n = min(n, len(a.invs))
	out := a.invs[:n:n]
	if len(a.invs) == n {
		s.Forget(id)
		return out
	}
	taken := invocationBytes(out)
	a.invs, a.bytes = a.invs[n:], a.bytes-taken
	s.by[id], s.bytes = a, s.bytes-taken
	return out
}

// Keep holds invs, read at at, for id's next turns: as many of them as
// readAheadBytes allows, and none when every source's read-ahead would
// then pass readAheadTotal.
func (s *Ahead) Keep(id string, invs []model.Invocation, at time.Time) {
	size, n := 0, 0
	for ; n < len(invs); n++ {
		if size+len(invs[n].Event) > readAheadBytes {
			break
		}
		size += len(invs[n].Event)
	}
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Forget(id)
	if s.bytes+size > readAheadTotal {
		return
	}
	s.by[id] = ahead{invs: invs[:n:n], at: at, bytes: size}
	s.bytes += size
}

// Drop forgets what was read ahead of id, and that its queue was deep: a
// batch that failed leaves its invocations queued, to be read again in
// order, and a source this node no longer owns needs neither.
func (s *Ahead) Drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Forget(id)
	delete(s.deep, id)
}

func (s *Ahead) Forget(id string) {
	s.bytes -= s.by[id].bytes
	delete(s.by, id)
}

func invocationBytes(invs []model.Invocation) int {
	n := 0
	for _, inv := range invs {
		n += len(inv.Event)
	}
	return n
}
