package source

import (
	"context"
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Live is a loaded source: its record, its component and its sandbox.
type Live struct {
	Source    model.Source
	Component model.Component
	Box       sandbox.Source
}

// Meta is the loaded component's description.
func (l *Live) Meta() *component.Metadata { return &l.Component.Metadata }

// liveSet holds the loaded sources. Loading is slow (a sandbox is built),
// so it happens outside the lock, under a ticket: a lifecycle change of
// the source while it loads (install or forget) makes the ticket stale,
// and the loader closes what it built instead of installing it. So a run
// that loads a source while it is deleted keeps no sandbox of it.
type liveSet struct {
	mu      sync.Mutex
	loaded  map[string]*Live
	loading map[string][]*loadTicket
}

// loadTicket is one load in progress.
type loadTicket struct{ stale bool }

func newLiveSet() *liveSet {
	return &liveSet{loaded: map[string]*Live{}, loading: map[string][]*loadTicket{}}
}

// get returns the loaded source, or nil.
func (s *liveSet) get(id string) *Live {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loaded[id]
}

// begin starts a load of id.
func (s *liveSet) begin(id string) *loadTicket {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &loadTicket{}
	s.loading[id] = append(s.loading[id], t)
	return t
}

// finish ends a load: it installs l unless the ticket went stale or
// another load got there first. It returns the source now loaded, or nil
// when the ticket is stale; l is closed unless it was installed.
func (s *liveSet) finish(id string, t *loadTicket, l *Live) *Live {
	s.mu.Lock()
	s.dropTicket(id, t)
	cur := s.loaded[id]
	switch {
	case t.stale:
		cur = nil
	case cur == nil && l != nil:
		s.loaded[id] = l
		s.mu.Unlock()
		return l
	}
	s.mu.Unlock()
	if l != nil {
		l.Box.Close(context.Background())
	}
	return cur
}

func (s *liveSet) dropTicket(id string, t *loadTicket) {
	ts := s.loading[id]
	for i := range ts {
		if ts[i] == t {
			ts = append(ts[:i], ts[i+1:]...)
			break
		}
	}
	if len(ts) == 0 {
		delete(s.loading, id)
	} else {
		s.loading[id] = ts
	}
}

// staleLocked makes every load of id in progress stale.
func (s *liveSet) staleLocked(id string) {
	for _, t := range s.loading[id] {
		t.stale = true
	}
}

// install makes l the loaded version of its source, closing the one it
// replaces.
func (s *liveSet) install(l *Live) {
	s.mu.Lock()
	prev := s.loaded[l.Source.ID]
	s.loaded[l.Source.ID] = l
	s.staleLocked(l.Source.ID)
	s.mu.Unlock()
	if prev != nil && prev != l {
		prev.Box.Close(context.Background())
	}
}

// forget drops and closes a source's sandbox (deleted, or to be reloaded).
func (s *liveSet) forget(id string) {
	s.mu.Lock()
	prev := s.loaded[id]
	delete(s.loaded, id)
	s.staleLocked(id)
	s.mu.Unlock()
	if prev != nil {
		prev.Box.Close(context.Background())
	}
}

// forgetIf is forget when l is still the loaded version of its source,
// so that a newer one installed meanwhile stays.
func (s *liveSet) forgetIf(l *Live) {
	s.mu.Lock()
	if s.loaded[l.Source.ID] != l {
		s.mu.Unlock()
		return
	}
	delete(s.loaded, l.Source.ID)
	s.staleLocked(l.Source.ID)
	s.mu.Unlock()
	l.Box.Close(context.Background())
}

// closeAll closes every loaded sandbox.
func (s *liveSet) closeAll() {
	s.mu.Lock()
	all := s.loaded
	s.loaded = map[string]*Live{}
	for id := range s.loading {
		s.staleLocked(id)
	}
	s.mu.Unlock()
	for _, l := range all {
		l.Box.Close(context.Background())
	}
}

// count reports how many sources are loaded.
func (s *liveSet) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.loaded)
}
