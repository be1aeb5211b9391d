package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// What one turn of a source's or a workflow's queue does the same way,
// however its invocations run: the throttle that holds back its tail, the
// waiters of its requests, dropping the work of a target that is gone,
// and its finished runs, committed as they pile up and at the end.

// admit trims invs to what throttle t of id lets start now (nil: all of
// them), and returns the error that holds back the rest.
func (e *Engine) admit(id string, t *model.Throttle, invs []model.Invocation) ([]model.Invocation, error) {
	if t == nil {
		return invs, nil
	}
	kept, throttled := e.throttle(id, *t, invs)
	return invs[:kept], throttled
}

// throttle is how many of invs the throttle t of source or workflow id
// lets run now, and the error that holds back the rest. Releases and
// resumes do not count: they carry on what was counted when it started.
func (e *Engine) throttle(id string, t model.Throttle, invs []model.Invocation) (int, error) {
	fresh := 0
	for _, inv := range invs {
		if inv.Kind != kindRelease && inv.Kind != kindResume {
			fresh++
		}
	}
	allowed, wait := e.throttles.Allow(id, t, e.clock.Now(), fresh)
	if allowed == fresh {
		return len(invs), nil
	}
	for i, inv := range invs {
		if inv.Kind != kindRelease && inv.Kind != kindResume {
			if allowed == 0 {
				return i, &batch.ThrottledError{Wait: wait}
			}
			allowed--
		}
	}
	return len(invs), nil
}

// waitersOf takes the waiters of invs' requests (nil for those that have
// none); finishWaiters answers those the runs did not.
func (e *Engine) waitersOf(invs []model.Invocation) []*ingress.Waiter {
	ws := make([]*ingress.Waiter, len(invs))
	for i, inv := range invs {
		ws[i] = e.waiterOf(inv)
	}
	return ws
}

func finishWaiters(ws []*ingress.Waiter) {
	for _, w := range ws {
		w.Finish()
	}
}

// dropQueued completes invs with nothing: their target is gone.
func (e *Engine) dropQueued(ctx context.Context, invs []model.Invocation) error {
	runs := make([]store.CompletedRun, len(invs))
	for i, inv := range invs {
		runs[i] = store.CompletedRun{Invocation: inv}
	}
	_, err := e.queues.CompleteRuns(ctx, runs)
	return err
}

// pendingRuns are a batch's finished runs not yet committed: a batch
// holds at most about maxBatchBytes of them.
type pendingRuns struct {
	e       *Engine
	emitter model.Emitter
	runs    []store.CompletedRun
	held    int
	// live are the events the runs sent to live streams ($.send.sse),
	// published once the runs are committed.
	live []model.Event
}

// add keeps run, of about size bytes, and commits what is held once it
// is large.
func (p *pendingRuns) add(ctx context.Context, run store.CompletedRun, size int) error {
	p.runs = append(p.runs, run)
	if p.held += size; p.held < maxBatchBytes {
		return nil
	}
	return p.commit(ctx)
}

// commit commits what is held.
func (p *pendingRuns) commit(ctx context.Context) error {
	err := p.e.commit(ctx, p.emitter, p.runs)
	if len(p.live) > 0 { // a source's runs send none: no lock of the streams per commit
		p.e.publish(p.live)
	}
	p.runs, p.held, p.live = p.runs[:0], 0, p.live[:0]
	return err
}

// keepAfter commits what is held after the batch stopped on failed:
// what finished has had its side effects (db writes, responses, sends),
// so running it again would repeat them, and the commit outlives a
// cancelled ctx for that. It returns failed, or the commit's error.
func (p *pendingRuns) keepAfter(ctx context.Context, failed error) error {
	if err := p.commit(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	return failed
}
