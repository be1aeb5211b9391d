package source

import (
	"context"
	"errors"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// sourceBatch is a loaded source running a batch.
type sourceBatch struct {
	r *Runner
	l *Live
}

func (s sourceBatch) Emitter() model.Emitter   { return s.l.Source.Emitter() }
func (s sourceBatch) Controls() model.Controls { return s.l.Source.Controls }

// Release keeps the source live: its next batch runs on the same sandbox.
func (sourceBatch) Release() {}

func (s sourceBatch) Run(ctx context.Context, b *batch.Turn) error {
	r, l := s.r, s.l
	dedupe, err := r.cfg.Queues.GetDedupe(ctx, l.Source.ID)
	if err != nil {
		return err
	}
	channels := r.host.Channels(l.Source.ID)
	for i, inv := range b.Invs {
		c, err := r.runOne(ctx, l, inv, b.Waiters[i], &dedupe, channels, b.Today, b.Over)
		if err != nil {
			return err
		}
		if err := b.Pending.Add(ctx, store.CompletedRun{Invocation: inv, Commit: c}, batch.CommitBytes(c)); err != nil {
			return err
		}
	}
	return nil
}

// runOne runs an invocation and returns what to commit for it. The quota
// was checked once for the batch (over); usage is counted per run.
func (r *Runner) runOne(ctx context.Context, l *Live, inv model.Invocation, w *ingress.Waiter, dedupe *model.DedupeState, channels *emit.Budget, today string, over bool) (store.RunCommit, error) {
	keep := r.cfg.EventsKept
	if inv.Kind == model.InvocationRelease {
		return r.releaseCommit(ctx, l.Source.ID)
	}
	if !l.Source.Active && inv.Kind != model.InvocationManual {
		return store.RunCommit{}, nil // queued before the source was deactivated
	}
	if over {
		return store.RunCommit{Events: []model.Event{emit.ErrorEvent(ingress.ErrQuota, inv)}, Keep: keep}, nil
	}
	c := emit.NewCollector(channels)
	caps, explain := r.host.Capabilities(l, c)
	if w != nil {
		caps.Respond = w
	}
	start := r.cfg.Clock.Now()
	_, runErr := r.host.Invoke(ctx, l.Source.UserID, l.Source.ID, l.Box, sandbox.Request{Op: abi.OpRun, Event: inv.Event, Limits: r.cfg.Limits}, caps)
	runErr = r.host.MapStack(explain(runErr), l)
	elapsed := r.cfg.Clock.Now().Sub(start)
	if ctx.Err() != nil {
		return store.RunCommit{}, ctx.Err() // stopping: the invocation stays queued and runs again
	}
	if errors.Is(runErr, sandbox.ErrLost) {
		// Its snapshot is gone: load the source anew from the store, and
		// run the invocation again on that.
		r.live.forgetIf(l)
		return store.RunCommit{}, batch.ErrSwapped
	}
	if errors.Is(runErr, sandbox.ErrClosed) {
		return store.RunCommit{}, batch.ErrSwapped
	}
	outcome := emit.Outcome(runErr)
	if runErr != nil {
		// The class only: a message may carry the component's data.
		r.log.Warn("run failed", "source", l.Source.ID, "kind", inv.Kind, "duration", elapsed, "error", outcome)
	}
	r.cfg.Observer.RunFinished(string(inv.Kind), outcome, elapsed)
	out := emit.Pipeline(l.Meta().Dedupe, inv, c, runErr, *dedupe, r.cfg.Clock.Now())
	if out.Dedupe != nil {
		*dedupe = *out.Dedupe
	}
	return store.RunCommit{
		Events: out.Events, Keep: keep, Dedupe: out.Dedupe, DedupeAfter: out.DedupeAfter,
		UsageAccount: l.Source.UserID, UsageDay: today, Invocations: 1, ComputeMs: max(1, elapsed.Milliseconds()),
		Outcome: &model.RunOutcome{Failed: runErr != nil, Duration: elapsed},
	}, nil
}
