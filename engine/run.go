package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/store"
)

// batchSize is how many queued invocations of a source run before their
// results are committed together.
const batchSize = 256

// drain runs one batch of a source's queued invocations, oldest first, and
// commits it in one transaction. When more may be queued it asks for
// another turn at the back of the scheduler's queue, so that one busy
// source does not hold a worker while others wait. A failure leaves the
// invocations queued and retries the source a second later.
func (e *Engine) drain(ctx context.Context, sourceID string) {
	invs, err := e.cfg.Queues.PendingInvocations(ctx, sourceID, batchSize)
	if err == nil && len(invs) > 0 {
		err = e.processBatch(ctx, sourceID, invs)
	}
	switch {
	case ctx.Err() != nil:
	case err != nil:
		e.log.Error("invocations failed; retrying", "source", sourceID, "err", err)
		time.AfterFunc(time.Second, func() { e.sch.kick(sourceID) })
	case len(invs) > 0:
		e.sch.kick(sourceID) // there may be more
	}
}

// errSwapped ends a batch whose sandbox was replaced by an update or
// delete while it ran: the rest of the batch runs again with what is now
// stored.
var errSwapped = errors.New("engine: the source was updated or deleted during the batch")

// collector gathers what a run emits and logs, for the commit after it.
type collector struct {
	mu    sync.Mutex
	emits []abi.Emit
	logs  []host.LogEntry
}

func (c *collector) Emit(_ context.Context, em abi.Emit) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.emits = append(c.emits, em)
	return nil
}

func (c *collector) Log(_ context.Context, l host.LogEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, l)
	return nil
}

// sourceDB is a source's $.service.db in the store.
type sourceDB struct {
	st store.Store
	id string
}

func (d sourceDB) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return d.st.DBGet(ctx, d.id, key)
}

func (d sourceDB) Set(ctx context.Context, key string, value []byte) error {
	return d.st.DBSet(ctx, d.id, key, value)
}

// noAuth answers $auth for apps: fount has no managed-auth accounts yet,
// so every app prop sees an empty credential object.
type noAuth struct{}

func (noAuth) Auth(context.Context, string) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

func (e *Engine) capabilities(l *live, c *collector) host.Capabilities {
	caps := host.Capabilities{Emit: c, Log: c, DB: sourceDB{e.cfg.Store, l.src.ID}, Auth: noAuth{}}
	if e.cfg.Egress != nil {
		caps.Egress = e.cfg.Egress
	}
	return caps
}

// processBatch runs invocations of one source in order and commits all
// their results at once. Dedupe state carries from one run to the next.
func (e *Engine) processBatch(ctx context.Context, sourceID string, invs []store.Invocation) error {
	waiters := make([]*waiter, len(invs))
	for i, inv := range invs {
		waiters[i] = e.takeWaiter(inv.ReplyTo)
	}
	defer func() {
		for _, w := range waiters {
			w.finish()
		}
	}()
	l, err := e.load(ctx, sourceID)
	if errors.Is(err, store.ErrNotFound) {
		runs := make([]store.CompletedRun, len(invs)) // the source is gone: drop its work
		for i, inv := range invs {
			runs[i] = store.CompletedRun{Invocation: inv}
		}
		_, err = e.cfg.Queues.CompleteRuns(ctx, runs)
		return err
	}
	if err != nil {
		l = &live{src: store.Source{ID: sourceID}}
		runs := make([]store.CompletedRun, len(invs))
		for i, inv := range invs {
			runs[i] = store.CompletedRun{Invocation: inv, Commit: store.RunCommit{Events: []store.Event{errorEvent(err, inv)}, Keep: e.cfg.EventsKept}}
		}
		return e.commit(ctx, l, runs)
	}
	dedupe, err := e.cfg.Queues.GetDedupe(ctx, sourceID)
	if err != nil {
		return err
	}
	day := time.Now().UTC().Format(time.DateOnly)
	over, err := e.overQuota(ctx, l.src.UserID, day)
	if err != nil {
		return err
	}
	runs := make([]store.CompletedRun, 0, len(invs))
	for i, inv := range invs {
		c, err := e.runOne(ctx, l, inv, waiters[i], &dedupe, day, over)
		if err != nil {
			// Keep what finished: its side effects (db writes, responses)
			// have happened, so running it again would repeat them. The
			// commit must outlive a cancelled ctx for that.
			if cerr := e.commit(context.WithoutCancel(ctx), l, runs); cerr != nil {
				return cerr
			}
			if errors.Is(err, errSwapped) {
				return nil
			}
			return err
		}
		runs = append(runs, store.CompletedRun{Invocation: inv, Commit: c})
	}
	return e.commit(ctx, l, runs)
}

// runOne runs an invocation and returns what to commit for it.
// The quota was checked once for the batch (over); usage is counted per
// run.
func (e *Engine) runOne(ctx context.Context, l *live, inv store.Invocation, w *waiter, dedupe *store.DedupeState, day string, over bool) (store.RunCommit, error) {
	keep := e.cfg.EventsKept
	if inv.Kind == kindRelease {
		return e.releaseCommit(ctx, l)
	}
	if !l.src.Active && inv.Kind != kindManual {
		return store.RunCommit{}, nil // queued before the source was deactivated
	}
	if over {
		return store.RunCommit{Events: []store.Event{errorEvent(errQuota, inv)}, Keep: keep}, nil
	}
	c := &collector{}
	caps := e.capabilities(l, c)
	if w != nil {
		caps.Respond = w
	}
	start := time.Now()
	_, runErr := l.hs.Invoke(ctx, host.Request{Op: abi.OpRun, Event: inv.Event, Limits: e.cfg.Limits}, caps)
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return store.RunCommit{}, ctx.Err() // stopping: the invocation stays queued and runs again
	}
	if errors.Is(runErr, host.ErrClosed) {
		return store.RunCommit{}, errSwapped
	}
	out := e.pipeline(l, inv, c, runErr, *dedupe)
	if out.dedupe != nil {
		*dedupe = *out.dedupe
	}
	return store.RunCommit{
		Events: out.events, Keep: keep, Dedupe: out.dedupe,
		UsageAccount: l.src.UserID, UsageDay: day, Invocations: 1, ComputeMs: max(1, elapsed.Milliseconds()),
	}, nil
}

var errQuota = errors.New("the account's daily quota of invocations or compute time is used up")

// commit stores a batch of runs' results, routing each event, then wakes
// whoever the commit gave work to.
func (e *Engine) commit(ctx context.Context, l *live, runs []store.CompletedRun) error {
	r, err := e.newRouter(ctx, l)
	if err != nil {
		return err
	}
	for i := range runs {
		run := &runs[i]
		hops := run.Invocation.Hops
		if hops >= e.cfg.MaxHops && r.wouldLoop(run.Commit.Events) {
			run.Commit.Events = append(run.Commit.Events, errorEvent(fmt.Errorf("a chain of source-to-source deliveries reached the limit of %d hops; its events were not delivered further", e.cfg.MaxHops), run.Invocation))
			run.Commit.Keep = e.cfg.EventsKept
		}
		run.Commit.Route = func(ev store.Event) store.Routed { return r.route(ev, hops) }
	}
	stored, err := e.cfg.Queues.CompleteRuns(ctx, runs)
	if err != nil {
		return err
	}
	for _, events := range stored {
		for _, ev := range events {
			if em, ok := delayedEmit(ev); ok && ev.Name == store.ChannelDelayed {
				e.noteDelayed(l.src.ID, *em.DeliveryTS)
			}
		}
	}
	for id := range r.kicked {
		e.sch.kick(id)
	}
	if r.delivered {
		e.wakeDeliveries()
	}
	for _, events := range stored {
		for _, ev := range events {
			e.subs.publish(ev)
		}
	}
	return nil
}
