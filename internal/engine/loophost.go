package engine

import (
	"time"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// loopHost is the engine as the batch loop (package batch) sees it: the
// cluster's owner of each queue, the workers that give targets turns,
// the waiters of requests, what follows a commit, and a runner per kind
// of target.
type loopHost struct{ e *Engine }

func (h loopHost) Owns(id string) bool { return h.e.owns(id) }

func (h loopHost) Kick(t model.Target, wait time.Duration) {
	if wait > 0 {
		h.e.workers.KickAfter(t, wait)
		return
	}
	h.e.workers.Kick(t)
}

func (h loopHost) Waiter(inv model.Invocation) *ingress.Waiter { return h.e.waiterOf(inv) }

func (h loopHost) Committed(em model.Emitter, runs []store.CompletedRun, ok bool) {
	h.e.flows.Committed(em, runs, ok)
}

func (h loopHost) Wake(t model.Target) { h.e.kick(t) }

func (h loopHost) Deliver() { h.e.deliverer.Poke() }

func (h loopHost) Publish(events []model.Event) { h.e.publish(events) }

func (h loopHost) Runner(t model.Target) batch.Runner {
	if t.IsWorkflow() {
		return h.e.flows
	}
	return h.e.sources
}
