package flow

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Load reads workflow id, whose batch loads its steps when it runs.
func (r *Runner) Load(ctx context.Context, id string) (batch.Loaded, error) {
	wf, err := r.cfg.Store.GetWorkflow(ctx, id)
	if err != nil {
		return nil, err
	}
	return &flowBatch{r: r, wf: wf}, nil
}

// LoadFailed leaves the batch queued, to try again: a workflow's load
// fails only when the store does. Steps that do not load are no load
// failure: each execution fails with their error (flowBatch.Run).
func (*Runner) LoadFailed(_ context.Context, _ string, _ []model.Invocation, err error) error {
	return err
}

// Gone forgets a deleted workflow's steps, throttle and paused
// executions.
func (r *Runner) Gone(id string) { r.Forget(id) }

// flowBatch is a workflow running a batch: its steps, loaded when the
// batch runs (loadErr when they do not load: each execution fails with
// it), and the batch.
type flowBatch struct {
	r       *Runner
	wf      model.Workflow
	lf      *liveFlow
	loadErr error
	unload  func() // releases lf
	*batch.Turn
}

func (b *flowBatch) Emitter() model.Emitter   { return b.wf.Emitter() }
func (b *flowBatch) Controls() model.Controls { return b.wf.Controls }

func (b *flowBatch) Release() {
	if b.unload != nil {
		b.unload()
	}
}

// Run loads the workflow's steps and runs the batch on them.
func (b *flowBatch) Run(ctx context.Context, bt *batch.Turn) error {
	b.Turn = bt
	lf, release, err := b.r.loadFlow(ctx, b.wf)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		b.lf, b.unload = lf, release
	}
	b.loadErr = err
	return b.runAll(ctx, bt.Invs, bt.Waiters)
}

// runAll runs invs in order; with a concurrency above one, the new
// executions in a row run up to that many at once (each next one starts
// when one ends), each on an instance of its own, and are committed in
// their order. A group holds 4n executions at most, so that the results
// held before their commit stay bounded.
func (b *flowBatch) runAll(ctx context.Context, invs []model.Invocation, waiters []*ingress.Waiter) error {
	n := max(1, b.wf.Concurrency)
	for i := 0; i < len(invs); {
		j := i
		for j < len(invs) && n > 1 && j-i < 4*n && b.startsNew(invs[j]) {
			j++
		}
		if j-i <= 1 {
			if err := b.runInvocation(ctx, invs[i], waiters[i]); err != nil {
				return err
			}
			i++
			continue
		}
		xs := make([]execution, j-i)
		errs := make([]error, j-i)
		slots := make(chan struct{}, n)
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				xs[k-i], errs[k-i] = b.r.execute(ctx, b.lf, invs[k], waiters[k])
			}()
		}
		wg.Wait()
		for k := i; k < j; k++ {
			if err := errs[k-i]; err != nil {
				return err
			}
			if err := b.add(ctx, store.CompletedRun{Invocation: invs[k], Commit: xs[k-i].commit}, xs[k-i].sse); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// startsNew reports whether inv runs a new execution's steps.
func (b *flowBatch) startsNew(inv model.Invocation) bool {
	return batch.StartsWork(inv.Kind) && (b.wf.Active || inv.Kind == model.InvocationManual) && !b.Over && b.loadErr == nil
}

// runInvocation runs one invocation: a new execution, or paused ones
// going on.
func (b *flowBatch) runInvocation(ctx context.Context, inv model.Invocation, w *ingress.Waiter) error {
	r, wf := b.r, b.wf
	switch {
	case inv.Kind == model.InvocationRelease:
		return b.release(ctx, inv)
	case inv.Kind == model.InvocationResume:
		return b.resume(ctx, inv)
	case !wf.Active && inv.Kind != model.InvocationManual:
		return b.add(ctx, store.CompletedRun{Invocation: inv}, nil) // queued before it was switched off
	}
	var x execution
	switch {
	case b.Over:
		x = r.failedExecution(wf, inv, "", ingress.ErrQuota)
	case b.loadErr != nil:
		r.log.Warn("workflow failed to load", "workflow", wf.ID, "err", b.loadErr)
		x = r.failedExecution(wf, inv, "", b.loadErr)
	default:
		var err error
		if x, err = r.execute(ctx, b.lf, inv, w); err != nil {
			return err
		}
	}
	return b.add(ctx, store.CompletedRun{Invocation: inv, Commit: x.commit}, x.sse)
}

// release runs on every paused execution whose time has come (a release
// invocation, queued by the delayed scheduler).
func (b *flowBatch) release(ctx context.Context, inv model.Invocation) error {
	acts, paused, err := b.r.dueFlows(ctx, b.wf.ID)
	if err != nil {
		return err
	}
	for i, act := range acts { // each commits with its record's removal: no invocation of its own
		if err := b.goOn(ctx, model.Invocation{TargetID: b.wf.ID, TargetKind: model.TargetWorkflow}, paused[i], act); err != nil {
			return err
		}
	}
	return b.add(ctx, store.CompletedRun{Invocation: inv}, nil)
}

// resume runs on the paused execution a call of its resume or cancel URL
// names (a resume invocation); one that went on meanwhile, or whose
// resume or state does not read, is dropped.
func (b *flowBatch) resume(ctx context.Context, inv model.Invocation) error {
	r, wf := b.r, b.wf
	drop := func() error { return b.add(ctx, store.CompletedRun{Invocation: inv}, nil) }
	var act flowAction
	if json.Unmarshal(inv.Event, &act) != nil {
		r.log.Warn("a resume of a paused execution cannot be read; it is dropped", "workflow", wf.ID, "invocation", inv.ID)
		return drop()
	}
	if act.ExecutionID == "" {
		if act.ExecutionID = oldExecutionID(act); act.ExecutionID == "" {
			r.log.Warn("a resume queued before the upgrade names no execution; it is dropped, and its execution stays paused", "workflow", wf.ID, "invocation", inv.ID)
			return drop()
		}
	}
	p, err := r.pausedState(ctx, wf.ID, act.ExecutionID)
	switch {
	case errors.Is(err, model.ErrNotFound):
		return drop() // it went on meanwhile
	case errors.Is(err, errUnreadablePause):
		r.log.Warn("a paused execution cannot be read; its resume is dropped", "workflow", wf.ID, "invocation", inv.ID, "err", err)
		return drop()
	case err != nil:
		return err
	}
	return b.goOn(ctx, inv, p, act)
}

// goOn runs a paused execution on, or fails it when the workflow cannot
// run (over its quota, or not loaded).
func (b *flowBatch) goOn(ctx context.Context, inv model.Invocation, p *pausedExecution, act flowAction) error {
	var x execution
	switch failure := cmp.Or(b.loadErr, quotaErr(b.Over)); {
	case failure != nil && act.Action != flowCancel:
		rec := p.Execution
		rec.Status, rec.Pause = model.ExecutionError, nil
		x.commit = store.RunCommit{Execution: rec, ExecutionsKept: b.r.cfg.ExecutionsKept, Keep: b.r.cfg.EventsKept,
			Events: []model.Event{flowErrorEvent(failure, b.wf.ID, "", p.Event, p.Context, b.r.cfg.Clock.Now())}}
	default:
		var err error
		if x, err = b.r.resumeFlow(ctx, b.lf, p, act); err != nil {
			return err
		}
	}
	x.commit.Resume = act.ExecutionID
	return b.add(ctx, store.CompletedRun{Invocation: inv, Commit: x.commit}, x.sse)
}

// quotaErr is ingress.ErrQuota when over.
func quotaErr(over bool) error {
	if over {
		return ingress.ErrQuota
	}
	return nil
}

// add queues run for the batch's commit, committing what is held once it
// is large.
func (b *flowBatch) add(ctx context.Context, run store.CompletedRun, sse []model.Event) error {
	if run.Commit.Execution != nil || len(run.Commit.Events) > 0 {
		run.Commit.UsageAccount, run.Commit.UsageDay = b.wf.UserID, b.Today
	}
	return b.Pending.Add(ctx, run, batch.CommitBytes(run.Commit)+recordSize(run.Commit.Execution), sse...)
}

// oldExecutionID is the id of the execution a resume queued before
// paused executions had a table of their own names: read from the event
// that kept it, when the resume carries it; "" otherwise (a resume that
// named only the event: it finds nothing, and the execution stays
// paused, for its URL to be called again).
func oldExecutionID(act flowAction) string {
	if p, ok := store.OldPaused(act.OldPaused); ok {
		return p.ExecutionID
	}
	return ""
}
