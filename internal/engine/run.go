package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// load returns the live source, loading it from the store on first use.
// It returns batch.ErrSwapped when a lifecycle change of the source raced the
// load (the caller tries again), and an error wrapping model.ErrNotFound
// for a source that is gone.
func (e *Engine) load(ctx context.Context, id string) (*live, error) {
	if l := e.live.get(id); l != nil {
		return l, nil
	}
	ticket := e.live.begin(id)
	l, err := e.loadStored(ctx, id)
	if err != nil {
		e.live.finish(id, ticket, nil)
		return nil, err
	}
	if cur := e.live.finish(id, ticket, l); cur != nil {
		return cur, nil
	}
	return nil, batch.ErrSwapped
}

// loadStored builds the live form of a stored source.
func (e *Engine) loadStored(ctx context.Context, id string) (*live, error) {
	src, err := e.store.GetSource(ctx, id)
	if err != nil {
		return nil, err
	}
	comp, err := e.store.GetComponent(ctx, src.ComponentID)
	if err != nil {
		return nil, fmt.Errorf("engine: component of %s: %w", id, err)
	}
	return e.build(ctx, src, comp)
}

// build loads a source's component with its props in a new sandbox.
func (e *Engine) build(ctx context.Context, src model.Source, comp model.Component) (*live, error) {
	props, err := e.sandboxProps(src)
	if err != nil {
		return nil, err
	}
	box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: src.ID, Code: comp.RunCode(), Props: props, Format: comp.Metadata.Format})
	if err != nil {
		return nil, codeError(err)
	}
	return &live{src: src, comp: comp, box: box}, nil
}

// sourceRunner runs the invocations of sources: each on the source's
// live sandbox, with its dedupe state carried from one run to the next.
type sourceRunner struct{ e *Engine }

// sourceBatch is a loaded source running a batch.
type sourceBatch struct {
	e *Engine
	l *live
}

func (r sourceRunner) Load(ctx context.Context, id string) (batch.Loaded, error) {
	l, err := r.e.load(ctx, id)
	if err != nil {
		return nil, err
	}
	return sourceBatch{e: r.e, l: l}, nil
}

// LoadFailed ends each invocation of a source whose code no longer loads
// (or whose secret cannot be opened) with an $errors event. A load that
// raced a change of the source, or a stop, leaves the batch queued.
func (r sourceRunner) LoadFailed(ctx context.Context, id string, invs []model.Invocation, err error) error {
	if errors.Is(err, batch.ErrSwapped) || ctx.Err() != nil {
		return err
	}
	e := r.e
	e.log.Warn("source failed to load", "source", id, "err", err)
	src, gerr := e.store.GetSource(ctx, id)
	if gerr != nil {
		return gerr
	}
	runs := make([]store.CompletedRun, len(invs))
	for i, inv := range invs {
		runs[i] = store.CompletedRun{Invocation: inv, Commit: store.RunCommit{Events: []model.Event{emit.ErrorEvent(err, inv)}, Keep: e.cfg.EventsKept, Outcome: &model.RunOutcome{Failed: true}}}
	}
	return e.commit(ctx, src.Emitter(), runs)
}

// Gone: a deleted source's live state went with its delete.
func (sourceRunner) Gone(string) {}

func (s sourceBatch) Emitter() model.Emitter   { return s.l.src.Emitter() }
func (s sourceBatch) Controls() model.Controls { return s.l.src.Controls }

// Release keeps the source live: its next batch runs on the same sandbox.
func (sourceBatch) Release() {}

func (s sourceBatch) Run(ctx context.Context, b *batch.Turn) error {
	e, l := s.e, s.l
	dedupe, err := e.queues.GetDedupe(ctx, l.src.ID)
	if err != nil {
		return err
	}
	channels := e.channelBudget(l.src.ID)
	for i, inv := range b.Invs {
		c, err := e.runOne(ctx, l, inv, b.Waiters[i], &dedupe, channels, b.Today, b.Over)
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
func (e *Engine) runOne(ctx context.Context, l *live, inv model.Invocation, w *ingress.Waiter, dedupe *model.DedupeState, channels *emit.Budget, today string, over bool) (store.RunCommit, error) {
	keep := e.cfg.EventsKept
	if inv.Kind == kindRelease {
		return e.releaseCommit(ctx, l.src.ID)
	}
	if !l.src.Active && inv.Kind != kindManual {
		return store.RunCommit{}, nil // queued before the source was deactivated
	}
	if over {
		return store.RunCommit{Events: []model.Event{emit.ErrorEvent(errQuota, inv)}, Keep: keep}, nil
	}
	c, gone := emit.NewCollector(channels), &goneAccounts{}
	caps := e.capabilities(l, c, gone)
	if w != nil {
		caps.Respond = w
	}
	start := e.clock.Now()
	_, runErr := e.invokeReserved(ctx, l.src.UserID, l.src.ID, l.box, sandbox.Request{Op: abi.OpRun, Event: inv.Event, Limits: e.cfg.Limits}, caps)
	runErr = mapStack(gone.explain(runErr), entryFile, func() []*component.SourceMap { return e.sourceMaps(l) })
	elapsed := e.clock.Now().Sub(start)
	if ctx.Err() != nil {
		return store.RunCommit{}, ctx.Err() // stopping: the invocation stays queued and runs again
	}
	if errors.Is(runErr, sandbox.ErrLost) {
		// Its snapshot is gone: load the source anew from the store, and
		// run the invocation again on that.
		e.live.forgetIf(l)
		return store.RunCommit{}, batch.ErrSwapped
	}
	if errors.Is(runErr, sandbox.ErrClosed) {
		return store.RunCommit{}, batch.ErrSwapped
	}
	outcome := "ok"
	if runErr != nil {
		outcome = emit.ErrorClass(runErr)
		// The class only: a message may carry the component's data.
		e.log.Warn("run failed", "source", l.src.ID, "kind", inv.Kind, "duration", elapsed, "error", outcome)
	}
	e.cfg.Observer.RunFinished(string(inv.Kind), outcome, elapsed)
	out := emit.Pipeline(l.meta().Dedupe, inv, c, runErr, *dedupe, e.clock.Now())
	if out.Dedupe != nil {
		*dedupe = *out.Dedupe
	}
	return store.RunCommit{
		Events: out.Events, Keep: keep, Dedupe: out.Dedupe, DedupeAfter: out.DedupeAfter,
		UsageAccount: l.src.UserID, UsageDay: today, Invocations: 1, ComputeMs: max(1, elapsed.Milliseconds()),
		Outcome: &model.RunOutcome{Failed: runErr != nil, Duration: elapsed},
	}, nil
}

// commit stores a batch of a source's runs, routing each event, then wakes
// whoever the commit gave work to.
func (e *Engine) commit(ctx context.Context, src model.Emitter, runs []store.CompletedRun) error {
	if len(runs) == 0 {
		return nil
	}
	r, err := route.New(ctx, e.store, src, e.cfg.MaxHops)
	if err != nil {
		return err
	}
	for i := range runs {
		run := &runs[i]
		hops := run.Invocation.Hops
		if hops >= e.cfg.MaxHops && r.WouldLoop(run.Commit.Events) {
			run.Commit.Events = append(run.Commit.Events, emit.ErrorEvent(fmt.Errorf("a chain of source-to-source deliveries reached the limit of %d hops; its events were not delivered further", e.cfg.MaxHops), run.Invocation))
			run.Commit.Keep = e.cfg.EventsKept
		}
		run.Commit.Route = r.At(hops)
	}
	stored, err := e.queues.CompleteRuns(ctx, runs)
	e.flows.Committed(src, runs, err == nil)
	var all []model.Event
	for _, events := range stored {
		all = append(all, events...)
	}
	e.afterCommit(r, all) // what was stored, even when a later part failed
	return err
}

// afterCommit wakes whoever a commit gave work to, notes delayed emits and
// publishes the stored events to live streams.
func (e *Engine) afterCommit(r *route.Router, events []model.Event) {
	for _, ev := range events {
		if ev.Name != model.ChannelDelayed {
			continue
		}
		if rec, err := emit.DecodeDelayed(ev.Data); err == nil {
			e.delayed.Note(r.Emitter().Target(), rec.DueMs) // a commit's events are its emitter's
		}
	}
	for _, t := range r.Woken() {
		e.kick(t)
	}
	if r.Delivered() {
		e.deliverer.Poke()
	}
	e.publish(events)
}
