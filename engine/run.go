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

// drain runs a source's queued invocations, oldest first, until none is
// left. A store failure stops the drain; the invocation stays queued and
// runs on the next kick or start.
func (e *Engine) drain(ctx context.Context, sourceID string) {
	for ctx.Err() == nil {
		invs, err := e.cfg.Queues.PendingInvocations(ctx, sourceID, 16)
		if err != nil {
			e.log.Error("read queue", "source", sourceID, "err", err)
			return
		}
		if len(invs) == 0 {
			return
		}
		for _, inv := range invs {
			if err := e.process(ctx, inv); err != nil {
				if ctx.Err() == nil {
					e.log.Error("invocation failed", "source", sourceID, "invocation", inv.ID, "err", err)
				}
				return
			}
		}
	}
}

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

// process runs one invocation and commits its results.
func (e *Engine) process(ctx context.Context, inv store.Invocation) error {
	w := e.takeWaiter(inv.ReplyTo)
	defer w.finish()
	l, err := e.load(ctx, inv.SourceID)
	if errors.Is(err, store.ErrNotFound) {
		_, err = e.cfg.Queues.CompleteRun(ctx, inv, store.RunCommit{}) // the source is gone
		return ignoreGone(err)
	}
	if err != nil {
		return e.commitFailure(ctx, inv, l, err)
	}
	if !l.src.Active && inv.Kind != kindManual {
		_, err = e.cfg.Queues.CompleteRun(ctx, inv, store.RunCommit{})
		return ignoreGone(err)
	}
	day := time.Now().UTC().Format(time.DateOnly)
	if over, err := e.overQuota(ctx, l.src.UserID, day); err != nil {
		return err
	} else if over {
		return e.commitFailure(ctx, inv, l, errQuota)
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
		return ctx.Err() // stopping: the invocation stays queued and runs again
	}
	dedupe, err := e.cfg.Queues.GetDedupe(ctx, l.src.ID)
	if err != nil {
		return err
	}
	out := e.pipeline(l, inv, c, runErr, dedupe)
	commit := store.RunCommit{
		Events: out.events, Keep: e.cfg.EventsKept, Dedupe: out.dedupe,
		UsageAccount: l.src.UserID, UsageDay: day, Invocations: 1, ComputeMs: max(1, elapsed.Milliseconds()),
	}
	return e.commit(ctx, l, inv, commit)
}

var errQuota = errors.New("the account's daily quota of invocations or compute time is used up")

// commitFailure records a run that could not start as an $errors event.
func (e *Engine) commitFailure(ctx context.Context, inv store.Invocation, l *live, cause error) error {
	if l == nil {
		l = &live{src: store.Source{ID: inv.SourceID}}
	}
	ev := errorEvent(cause, inv)
	return e.commit(ctx, l, inv, store.RunCommit{Events: []store.Event{ev}, Keep: e.cfg.EventsKept})
}

// commit stores a run's results, routing each event, then wakes whoever
// the commit gave work to.
func (e *Engine) commit(ctx context.Context, l *live, inv store.Invocation, c store.RunCommit) error {
	r, err := e.newRouter(ctx, l, inv)
	if err != nil {
		return err
	}
	if inv.Hops >= e.cfg.MaxHops && r.wouldLoop(c.Events) {
		c.Events = append(c.Events, errorEvent(fmt.Errorf("a chain of source-to-source deliveries reached the limit of %d hops; its events were not delivered further", e.cfg.MaxHops), inv))
	}
	c.Route = r.route
	stored, err := e.cfg.Queues.CompleteRun(ctx, inv, c)
	if err != nil {
		return ignoreGone(err)
	}
	for id := range r.kicked {
		e.sch.kick(id)
	}
	if r.delivered {
		e.wakeDeliveries()
	}
	for _, ev := range stored {
		e.subs.publish(ev)
	}
	return nil
}

// ignoreGone treats an invocation that was already completed (a duplicate
// drain after a restart) as done.
func ignoreGone(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
