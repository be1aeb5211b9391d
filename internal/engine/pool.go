package engine

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/model"
)

// ErrQuota is an operation refused because the account's daily quota of
// invocations or compute time is used up: the operation would run the
// account's code.
var ErrQuota = ingress.ErrQuota

// accountOf is the account a target's work is scheduled and counted
// under: the user who deployed it (its runs count against this user's
// quota). A target that cannot be found is scheduled under "", and its
// drain finds it gone.
func (e *Engine) accountOf(t model.Target) string {
	sourceID := t.ID
	if t.IsWorkflow() {
		if user, ok := e.flows.Account(t.ID); ok {
			return user // every request to a workflow kicks it: no store read then
		}
		wf, err := e.store.GetWorkflow(context.Background(), t.ID)
		if err != nil {
			return ""
		}
		return wf.UserID
	}
	if l := e.sources.Loaded(sourceID); l != nil {
		return l.Source.UserID
	}
	src, err := e.store.GetSource(context.Background(), sourceID)
	if err != nil {
		return ""
	}
	return src.UserID
}

// inPool runs fn, which runs account's component code outside a source's
// run (loading it, its hooks, introspecting it), on the scheduler's
// workers in account's turn, and counts its time (and invocations) against
// account's daily quota as a run would be. A free account whose quota is
// used up gets ErrQuota and fn does not run. fn's context ends with ctx or
// when the engine stops. fn must not call inPool: it already holds a
// worker.
func (e *Engine) inPool(ctx context.Context, account string, invocations int64, fn func(ctx context.Context) error) error {
	over, err := e.quotas.OverCached(ctx, account)
	if err != nil {
		return err
	}
	if over {
		return ErrQuota
	}
	var elapsed time.Duration
	waitCtx := ctx
	if ctx.Value(begunKey{}) == nil {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, e.cfg.LifecycleWait)
		defer cancel()
	}
	if rerr := e.workers.Run(waitCtx, account, func(wctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(wctx, cancel)
		defer stop()
		start := e.clock.Now()
		err = fn(ctx)
		elapsed = e.clock.Now().Sub(start)
	}); rerr != nil {
		if errors.Is(rerr, context.DeadlineExceeded) && ctx.Err() == nil {
			full, share := e.workers.AccountFull(account)
			// A worker frees within a run's time limit at most.
			return &BusyError{Account: full, Share: share, RetryAfter: cmp.Or(e.cfg.Limits.Timeout, 30*time.Second)}
		}
		return rerr
	}
	today := batch.Day(e.clock.Now())
	if uerr := e.queues.AddUsage(context.WithoutCancel(ctx), account, today, invocations, max(1, elapsed.Milliseconds())); uerr != nil {
		e.log.Error("count the usage of a lifecycle operation", "account", account, "err", uerr)
	}
	return err
}

// begunKey marks the context of an operation that has begun to act (a
// hook has run): its later work waits for a worker as long as it takes,
// since giving up then would leave it half done.
type begunKey struct{}

// begun is ctx, for the rest of an operation that has begun to act: not
// cancelled with its caller, and not given up for want of a worker.
func begun(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), begunKey{}, true)
}

// buildInPool is build as account's work in the pool: loading a component
// evaluates its top-level code.
func (e *Engine) buildInPool(ctx context.Context, src model.Source, comp model.Component) (*source.Live, error) {
	var l *source.Live
	err := e.inPool(ctx, src.UserID, 0, func(ctx context.Context) error {
		var err error
		l, err = e.sources.Build(ctx, src, comp)
		return err
	})
	return l, err
}

// loadInPool is load as the source's account's work in the pool, for a
// lifecycle operation (a drain, already on a worker, calls load).
func (e *Engine) loadInPool(ctx context.Context, id string) (*source.Live, error) {
	if l := e.sources.Loaded(id); l != nil {
		return l, nil
	}
	var l *source.Live
	err := e.inPool(ctx, e.accountOf(model.SourceTarget(id)), 0, func(ctx context.Context) error {
		var err error
		l, err = e.sources.Live(ctx, id)
		return err
	})
	return l, err
}
