package engine

import (
	"sync"

	"github.com/fount-dev/fount/internal/model"
)

// broadcaster fans new events out to live subscribers (SSE streams).
type broadcaster struct {
	mu   sync.Mutex
	subs map[string]map[chan model.Event]struct{} // by emitter id
}

func newBroadcaster() *broadcaster {
	return &broadcaster{subs: map[string]map[chan model.Event]struct{}{}}
}

// subscribe returns a channel of the emitter's new events and a cancel
// function. A subscriber that falls behind is dropped: its channel is
// closed, and it resumes from the stored log (Last-Event-ID).
func (b *broadcaster) subscribe(emitterID string) (<-chan model.Event, func()) {
	ch := make(chan model.Event, 4096)
	b.mu.Lock()
	if b.subs[emitterID] == nil {
		b.subs[emitterID] = map[chan model.Event]struct{}{}
	}
	b.subs[emitterID][ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if _, ok := b.subs[emitterID][ch]; ok {
				delete(b.subs[emitterID], ch)
				if len(b.subs[emitterID]) == 0 {
					delete(b.subs, emitterID)
				}
				close(ch)
			}
		})
	}
}

func (b *broadcaster) publish(events ...model.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range events {
		for ch := range b.subs[ev.EmitterID] {
			select {
			case ch <- ev:
			default:
				delete(b.subs[ev.EmitterID], ch)
				close(ch)
				if len(b.subs[ev.EmitterID]) == 0 {
					delete(b.subs, ev.EmitterID)
				}
			}
		}
	}
}
