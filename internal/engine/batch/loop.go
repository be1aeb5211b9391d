package batch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// RetryDelay is how long a target whose invocations failed to run (the
// store or the sandbox failing, not the component) waits to try again.
const RetryDelay = time.Second

// ErrSwapped ends a batch whose sandbox was replaced by an update or
// delete while it ran: the rest of the batch runs again with what is now
// stored.
var ErrSwapped = errors.New("engine: the source was updated or deleted during the batch")

// A Runner readies one kind of target, a source or a workflow, to run a
// batch of its queued invocations. Loop.Drain is the one batch loop: the
// throttle, the waiters of requests, dropping the work of a target that
// is gone, the quota, and the commits of finished runs are written once
// there; how an invocation runs is the loaded target's.
type Runner interface {
	// Load returns target id ready to run a batch, or an error wrapping
	// model.ErrNotFound when the target is gone.
	Load(ctx context.Context, id string) (Loaded, error)
	// LoadFailed is what a batch of a target that is stored but cannot
	// be loaded comes to: an error leaves the batch queued.
	LoadFailed(ctx context.Context, id string, invs []model.Invocation, err error) error
	// Gone forgets what the engine holds of a deleted target.
	Gone(id string)
}

// A Loaded target runs the invocations of one batch.
type Loaded interface {
	Emitter() model.Emitter
	Controls() model.Controls
	// Run runs t's invocations in order, adding each finished run to
	// t.Pending; an error stops the batch, and what finished before it
	// is committed.
	Run(ctx context.Context, t *Turn) error
	// Release frees what the batch held, once it is committed.
	Release()
}

// Turn is the batch a loaded target runs: invocations admitted by its
// throttle, the waiters of their requests (nil for those without), the
// day its usage counts on and whether its account is over its quota
// then, and the runs finished but not yet committed.
type Turn struct {
	Invs    []model.Invocation
	Waiters []*ingress.Waiter
	Today   string
	Over    bool
	Pending *Pending
}

// Host is what the loop asks of the engine around it.
type Host interface {
	// Owns reports whether this node runs target id's queue.
	Owns(id string) bool
	// Kick asks for another turn of t, after wait (0: at once, at the
	// back of the queue).
	Kick(t model.Target, wait time.Duration)
	// Waiter takes the waiter of inv's request, or nil.
	Waiter(inv model.Invocation) *ingress.Waiter
	// Committed: runs of em were committed (ok) or may have been.
	Committed(em model.Emitter, runs []store.CompletedRun, ok bool)
	// Wake gives t's queued work to its owner, this node or another.
	Wake(t model.Target)
	// Deliver wakes the deliverer: a commit queued deliveries.
	Deliver()
	// Publish sends events to live streams.
	Publish(events []model.Event)
	// Runner is the runner of t's kind.
	Runner(t model.Target) Runner
}

// Loop runs the turns of sources' and workflows' queues, and commits
// what they ran.
type Loop struct {
	Clock     clock.Clock
	Store     store.Store // where commits find the listeners of events
	Queues    store.Queues
	Delayed   *delayed.Scheduler[model.Target] // told of delayed emits committed
	Ahead     *Ahead
	Throttles *Throttles
	Quotas    *Quotas
	Host      Host
	Log       *slog.Logger
	// MaxHops bounds chains of source-to-source deliveries; EventsKept
	// is what each channel keeps.
	MaxHops    int
	EventsKept int
}

// Drain runs one batch of target's queued invocations, oldest first,
// with its runner, and commits it (in one transaction unless it grows
// large). When more may be queued it asks for another turn at the back
// of the queue. A failure leaves the invocations queued and tries the
// target again after RetryDelay.
func (l *Loop) Drain(ctx context.Context, target model.Target) {
	id := target.ID
	if !l.Host.Owns(id) {
		l.Ahead.Drop(id)
		return // another node owns it now: it drains it
	}
	invs, err := l.next(ctx, id)
	if err == nil && len(invs) > 0 {
		err = l.run(ctx, l.Host.Runner(target), id, invs)
	}
	if err != nil || ctx.Err() != nil {
		l.Ahead.Drop(id) // its invocations are read again, in order
	}
	var throttled *ThrottledError
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, ErrSwapped):
		l.Host.Kick(target, 0)
	case errors.As(err, &throttled):
		l.Host.Kick(target, throttled.Wait)
	case err != nil:
		l.Log.Error("invocations failed; retrying", "target", id, "err", err)
		l.Host.Kick(target, RetryDelay)
	case len(invs) > 0:
		l.Host.Kick(target, 0) // there may be more
	}
}

// next returns the target's next Size queued invocations, oldest first:
// those read ahead by an earlier turn, or a read of the queue, which for
// a deep queue reads more and keeps the rest for the next turns.
func (l *Loop) next(ctx context.Context, id string) ([]model.Invocation, error) {
	if invs := l.Ahead.Take(id, Size); len(invs) > 0 {
		return invs, nil
	}
	at := l.Clock.Now()
	limit := l.Ahead.Limit(id, Size)
	invs, err := l.Queues.PendingInvocations(ctx, id, limit)
	if err != nil {
		return nil, err
	}
	l.Ahead.Read(id, len(invs), limit)
	if len(invs) <= Size {
		return invs, nil
	}
	l.Ahead.Keep(id, invs[Size:], at)
	return invs[:Size:Size], nil
}

// run runs queued invocations of target id in order with r and commits
// their results, in one commit unless they grow large.
func (l *Loop) run(ctx context.Context, r Runner, id string, invs []model.Invocation) error {
	t, err := r.Load(ctx, id)
	// A throttle holds back the rest of the batch, and the waiters of its
	// requests with it: they are answered when their invocations run.
	var throttled error
	if err == nil {
		defer t.Release()
		if invs, throttled = l.admit(id, t.Controls().Throttle, invs); len(invs) == 0 {
			return throttled
		}
	}
	waiters := l.waiters(invs)
	defer finish(waiters)
	switch {
	case errors.Is(err, model.ErrNotFound):
		r.Gone(id)
		return l.drop(ctx, invs)
	case err != nil:
		return r.LoadFailed(ctx, id, invs, err)
	}
	em := t.Emitter()
	today := Day(l.Clock.Now())
	over, err := l.Quotas.Over(ctx, em.UserID, today)
	if err != nil {
		return err
	}
	turn := &Turn{Invs: invs, Waiters: waiters, Today: today, Over: over, Pending: NewPending(l, em)}
	if err := t.Run(ctx, turn); err != nil {
		return turn.Pending.KeepAfter(ctx, err)
	}
	if err := turn.Pending.Commit(ctx); err != nil {
		return err
	}
	return throttled
}

// admit trims invs to what throttle t of id lets start now (nil: all of
// them), and returns the error that holds back the rest. Releases and
// resumes do not count: they carry on what was counted when it started.
func (l *Loop) admit(id string, t *model.Throttle, invs []model.Invocation) ([]model.Invocation, error) {
	if t == nil {
		return invs, nil
	}
	fresh := 0
	for _, inv := range invs {
		if StartsWork(inv.Kind) {
			fresh++
		}
	}
	allowed, wait := l.Throttles.Allow(id, *t, l.Clock.Now(), fresh)
	if allowed == fresh {
		return invs, nil
	}
	for i, inv := range invs {
		if StartsWork(inv.Kind) {
			if allowed == 0 {
				return invs[:i], &ThrottledError{Wait: wait}
			}
			allowed--
		}
	}
	return invs, nil
}

// StartsWork reports whether an invocation of kind k starts new work,
// which a throttle counts: not a release or a resume, which carry on
// what was counted when it started.
func StartsWork(k model.InvocationKind) bool {
	return k != model.InvocationRelease && k != model.InvocationResume
}

// waiters takes the waiters of invs' requests (nil for those that have
// none); finish answers those the runs did not.
func (l *Loop) waiters(invs []model.Invocation) []*ingress.Waiter {
	ws := make([]*ingress.Waiter, len(invs))
	for i, inv := range invs {
		ws[i] = l.Host.Waiter(inv)
	}
	return ws
}

func finish(ws []*ingress.Waiter) {
	for _, w := range ws {
		w.Finish()
	}
}

// drop completes invs with nothing: their target is gone.
func (l *Loop) drop(ctx context.Context, invs []model.Invocation) error {
	runs := make([]store.CompletedRun, len(invs))
	for i, inv := range invs {
		runs[i] = store.CompletedRun{Invocation: inv}
	}
	_, err := l.Queues.CompleteRuns(ctx, runs)
	return err
}
