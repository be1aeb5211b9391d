package engine

import (
	"context"
	"errors"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
)

// A runner readies one kind of target, a source or a workflow, to run a
// batch of its queued invocations. runBatch is the one batch loop: the
// throttle, the waiters of requests, dropping the work of a target that
// is gone, the quota, and the commits of finished runs are written once
// there; how an invocation runs is the loaded target's.
type runner interface {
	// load returns target id ready to run a batch, or an error wrapping
	// model.ErrNotFound when the target is gone.
	load(ctx context.Context, id string) (loaded, error)
	// loadFailed is what a batch of a target that is stored but cannot
	// be loaded comes to: an error leaves the batch queued.
	loadFailed(ctx context.Context, id string, invs []model.Invocation, err error) error
	// gone forgets what the engine holds of a deleted target.
	gone(id string)
}

// A loaded target runs the invocations of one batch.
type loaded interface {
	emitter() model.Emitter
	controls() model.Controls
	// run runs b's invocations in order, adding each finished run to
	// b.pending; an error stops the batch, and what finished before it
	// is committed.
	run(ctx context.Context, b *turn) error
	// release frees what the batch held, once it is committed.
	release()
}

// turn is the batch a loaded target runs: invocations admitted by its
// throttle, the waiters of their requests, whether its account is over
// its quota today, and the runs finished but not yet committed.
type turn struct {
	invs    []model.Invocation
	waiters []*ingress.Waiter
	today   string
	over    bool
	pending *pendingRuns
}

// runnerOf is the runner of t.
func (e *Engine) runnerOf(t model.Target) runner {
	if t.IsWorkflow() {
		return workflowRunner{e}
	}
	return sourceRunner{e}
}

// runBatch runs queued invocations of target id in order with r and
// commits their results, in one commit unless they grow large.
func (e *Engine) runBatch(ctx context.Context, r runner, id string, invs []model.Invocation) error {
	t, err := r.load(ctx, id)
	// A throttle holds back the rest of the batch, and the waiters of its
	// requests with it: they are answered when their invocations run.
	var throttled error
	if err == nil {
		defer t.release()
		if invs, throttled = e.admit(id, t.controls().Throttle, invs); len(invs) == 0 {
			return throttled
		}
	}
	waiters := e.waitersOf(invs)
	defer finishWaiters(waiters)
	switch {
	case errors.Is(err, model.ErrNotFound):
		r.gone(id)
		return e.dropQueued(ctx, invs)
	case err != nil:
		return r.loadFailed(ctx, id, invs, err)
	}
	em := t.emitter()
	today := batch.Day(e.clock.Now())
	over, err := e.quotas.Over(ctx, em.UserID, today)
	if err != nil {
		return err
	}
	b := &turn{invs: invs, waiters: waiters, today: today, over: over, pending: &pendingRuns{e: e, emitter: em}}
	if err := t.run(ctx, b); err != nil {
		return b.pending.keepAfter(ctx, err)
	}
	if err := b.pending.commit(ctx); err != nil {
		return err
	}
	return throttled
}
