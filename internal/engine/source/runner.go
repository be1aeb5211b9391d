package source

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// Config configures a Runner. Every field is required but Observer.
type Config struct {
	Store   store.Store
	Queues  store.Queues
	Clock   clock.Clock
	Logger  *slog.Logger
	Host    Host
	Delayed *delayed.Scheduler[model.Target] // when delayed emits are due
	// Observer is told of each run, for metrics; nil: nobody.
	Observer interface {
		RunFinished(kind, outcome string, d time.Duration)
	}
	Limits     sandbox.Limits // of each run
	EventsKept int
}

// Host is what a source's runs need of the engine around them: the
// component loaded with its props, a sandbox reserved for each call, what
// a run may reach, and the commit of runs.
type Host interface {
	// Build loads src's component with its props (secrets opened); code
	// that does not load is the engine's *CodeError.
	Build(ctx context.Context, src model.Source, comp model.Component) (sandbox.Source, error)
	// Invoke runs req in box once account may hold one more sandbox.
	Invoke(ctx context.Context, account, target string, box sandbox.Source, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error)
	// Capabilities are what a run of l may reach, emitting and logging
	// into c; explain adds to a run's error what became of an account it
	// used.
	Capabilities(l *Live, c *emit.Collector) (caps sandbox.Capabilities, explain func(error) error)
	// Channels bounds the channels of a source.
	Channels(sourceID string) *emit.Budget
	// MapStack maps the stack of err, thrown by l's code, to its author's
	// files.
	MapStack(err error, l *Live) error
	// Commit stores finished runs of em, routing their events.
	Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error
}

// Runner runs sources' invocations, on their live sandboxes: the batch
// runner of their queues (package batch), and the set of loaded sources
// that lifecycle operations install and forget.
type Runner struct {
	cfg  Config
	host Host
	log  *slog.Logger
	live *liveSet
}

// New returns a Runner of cfg.
func New(cfg Config) *Runner {
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	return &Runner{cfg: cfg, host: cfg.Host, log: cfg.Logger, live: newLiveSet()}
}

type noObserver struct{}

func (noObserver) RunFinished(string, string, time.Duration) {}

// Loaded returns source id's live version, or nil when it is not loaded.
func (r *Runner) Loaded(id string) *Live { return r.live.get(id) }

// Install makes l the live version of its source, closing the one it
// replaces; loads in progress of it are not kept.
func (r *Runner) Install(l *Live) { r.live.install(l) }

// Forget drops and closes a source's sandbox (deleted, or to be
// reloaded).
func (r *Runner) Forget(id string) { r.live.forget(id) }

// Count is how many sources are live.
func (r *Runner) Count() int { return r.live.count() }

// Close closes every live source's sandbox.
func (r *Runner) Close() { r.live.closeAll() }

// Live returns the live source, loading it from the store on first use.
// It returns batch.ErrSwapped when a lifecycle change of the source
// raced the load (the caller tries again), and an error wrapping
// model.ErrNotFound for a source that is gone.
func (r *Runner) Live(ctx context.Context, id string) (*Live, error) {
	if l := r.live.get(id); l != nil {
		return l, nil
	}
	ticket := r.live.begin(id)
	l, err := r.loadStored(ctx, id)
	if err != nil {
		r.live.finish(id, ticket, nil)
		return nil, err
	}
	if cur := r.live.finish(id, ticket, l); cur != nil {
		return cur, nil
	}
	return nil, batch.ErrSwapped
}

// loadStored builds the live form of a stored source.
func (r *Runner) loadStored(ctx context.Context, id string) (*Live, error) {
	src, err := r.cfg.Store.GetSource(ctx, id)
	if err != nil {
		return nil, err
	}
	comp, err := r.cfg.Store.GetComponent(ctx, src.ComponentID)
	if err != nil {
		return nil, fmt.Errorf("engine: component of %s: %w", id, err)
	}
	return r.Build(ctx, src, comp)
}

// Build loads src's component with its props in a new sandbox, not yet
// live (Install makes it so).
func (r *Runner) Build(ctx context.Context, src model.Source, comp model.Component) (*Live, error) {
	box, err := r.host.Build(ctx, src, comp)
	if err != nil {
		return nil, err
	}
	return &Live{Source: src, Component: comp, Box: box}, nil
}

// Load readies source id to run a batch (batch.Runner).
func (r *Runner) Load(ctx context.Context, id string) (batch.Loaded, error) {
	l, err := r.Live(ctx, id)
	if err != nil {
		return nil, err
	}
	return sourceBatch{r: r, l: l}, nil
}

// LoadFailed ends each invocation of a source whose code no longer loads
// (or whose secret cannot be opened) with an $errors event. A load that
// raced a change of the source, or a stop, leaves the batch queued.
func (r *Runner) LoadFailed(ctx context.Context, id string, invs []model.Invocation, err error) error {
	if errors.Is(err, batch.ErrSwapped) || ctx.Err() != nil {
		return err
	}
	r.log.Warn("source failed to load", "source", id, "err", err)
	src, gerr := r.cfg.Store.GetSource(ctx, id)
	if gerr != nil {
		return gerr
	}
	runs := make([]store.CompletedRun, len(invs))
	for i, inv := range invs {
		runs[i] = store.CompletedRun{Invocation: inv, Commit: store.RunCommit{Events: []model.Event{emit.ErrorEvent(err, inv)}, Keep: r.cfg.EventsKept, Outcome: &model.RunOutcome{Failed: true}}}
	}
	return r.host.Commit(ctx, src.Emitter(), runs)
}

// Gone: a deleted source's live state went with its delete.
func (*Runner) Gone(string) {}
