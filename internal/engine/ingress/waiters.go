package ingress

import (
	"context"
	"sync"

	"github.com/fount-dev/fount/abi"
)

// Waiter is a customResponse request waiting for its run's respond().
type Waiter struct {
	once      sync.Once
	response  chan abi.Response // buffered 1
	ended     chan struct{}     // closed when the run has finished, or the waiter was released
	released  chan struct{}     // closed, before ended, when the server shuts down
	abandoned sync.Once
	// forward, when set, is where the response and the end go instead:
	// the request waits on another node.
	forward func(r *abi.Response)
}

// Respond is the run's sandbox.RespondSink.
func (w *Waiter) Respond(_ context.Context, r abi.Response) error {
	if w.forward != nil {
		w.forward(&r)
		return nil
	}
	select {
	case w.response <- r:
	default:
	}
	return nil
}

// release ends the wait because the server is shutting down.
func (w *Waiter) release() {
	w.abandoned.Do(func() { close(w.released) })
	w.Finish()
}

// Finish tells the request that its run is over; safe on nil and twice.
func (w *Waiter) Finish() {
	if w != nil {
		w.once.Do(func() {
			close(w.ended)
			if w.forward != nil {
				w.forward(nil)
			}
		})
	}
}

// Waiters holds the requests waiting for a respond(), by the
// invocation's reply address. After Stop, every waiting request is told
// its run ended and no new one is registered.
type Waiters struct {
	mu      sync.Mutex
	waiting map[string]*Waiter
	stopped bool
}

func newWaiters() *Waiters { return &Waiters{waiting: map[string]*Waiter{}} }

// Start is a no-op: the set needs nothing running. It exists so that
// every part of the engine is started and stopped alike.
func (s *Waiters) Start() {}

// Stop ends every wait; it is safe to call twice.
func (s *Waiters) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	for key, w := range s.waiting {
		w.release()
		delete(s.waiting, key)
	}
}

// register adds a waiter for key, or returns nil after Stop.
func (s *Waiters) register(key string) *Waiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	w := &Waiter{response: make(chan abi.Response, 1), ended: make(chan struct{}), released: make(chan struct{})}
	s.waiting[key] = w
	return w
}

// Take removes and returns the waiter of key (nil when none).
func (s *Waiters) Take(key string) *Waiter {
	if key == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.waiting[key]
	delete(s.waiting, key)
	return w
}

// NewRemoteWaiter is a waiter for a request on another node: what the run
// responds, and its end, go to forward.
func NewRemoteWaiter(forward func(r *abi.Response)) *Waiter {
	return &Waiter{response: make(chan abi.Response, 1), ended: make(chan struct{}), released: make(chan struct{}), forward: forward}
}

// Deliver gives the waiter of key, on this node, its run's response (r
// nil: the run ended), as its run would.
func (s *Waiters) Deliver(key string, r *abi.Response) {
	s.mu.Lock()
	w := s.waiting[key]
	s.mu.Unlock()
	if w == nil {
		return // answered, timed out or gone
	}
	if r == nil {
		w.Finish()
		return
	}
	_ = w.Respond(context.Background(), *r)
}

// HeldResponse is a workflow's HTTP response as Pipedream gives it: the
// execution's first $.respond() answers the request when the execution
// ends (flush), or at once when it says immediate; calls of later steps
// are ignored, as a request has one response (within a step, the
// sandbox refuses a second call).
type HeldResponse struct {
	w     *Waiter
	mu    sync.Mutex
	given bool
	held  *abi.Response
}

// NewHeldResponse holds the response of a workflow's execution for w.
func NewHeldResponse(w *Waiter) *HeldResponse { return &HeldResponse{w: w} }

// Respond is the execution's sandbox.RespondSink.
func (h *HeldResponse) Respond(ctx context.Context, r abi.Response) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.given {
		return nil
	}
	h.given = true
	if r.Immediate {
		return h.w.Respond(ctx, r)
	}
	h.held = &r
	return nil
}

// Flush sends the held response, if any: the execution has ended, well
// or not (a response was given either way).
func (h *HeldResponse) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != nil {
		_ = h.w.Respond(context.Background(), *h.held)
		h.held = nil
	}
}
