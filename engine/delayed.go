package engine

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/store"
)

// Delayed emits wait on a source's $in channel (store.ChannelDelayed).
// The engine keeps, per source, the earliest delivery time it knows of;
// when it comes, a release invocation is queued, and the source's worker
// moves every due event from $in to its channel in one commit. A restart
// rebuilds the times from the stored $in channels, so delays survive it.

// maxDelayedScan bounds how many waiting events one release reads.
const maxDelayedScan = 100_000

// noteDelayed records that a source has an event due at dueMs.
func (e *Engine) noteDelayed(sourceID string, dueMs int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if cur, ok := e.delayDue[sourceID]; !ok || dueMs < cur {
		e.delayDue[sourceID] = dueMs
	}
}

// loadDelayed rebuilds the release times of every source at start.
func (e *Engine) loadDelayed(ctx context.Context, sources []store.Source) error {
	for _, src := range sources {
		events, err := e.cfg.Store.ListEvents(ctx, src.ID, store.ChannelDelayed, maxDelayedScan)
		if err != nil {
			return err
		}
		for _, ev := range events {
			if em, ok := delayedEmit(ev); ok {
				e.noteDelayed(src.ID, *em.DeliveryTS)
			}
		}
	}
	return nil
}

func delayedEmit(ev store.Event) (abi.Emit, bool) {
	var em abi.Emit
	if json.Unmarshal(ev.Data, &em) != nil || em.DeliveryTS == nil {
		return em, false
	}
	return em, true
}

// delayLoop queues releases as their time comes.
func (e *Engine) delayLoop() {
	defer e.wg.Done()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case now := <-tick.C:
			var due []string
			e.mu.Lock()
			for id, at := range e.delayDue {
				if at <= now.UnixMilli() {
					due = append(due, id)
					delete(e.delayDue, id)
				}
			}
			e.mu.Unlock()
			for _, id := range due {
				if _, err := e.cfg.Queues.EnqueueInvocation(e.ctx, store.Invocation{SourceID: id, Kind: kindRelease}); err != nil {
					e.log.Error("queue release of delayed events", "source", id, "err", err)
					e.noteDelayed(id, now.UnixMilli()) // try again
					continue
				}
				e.sch.kick(id)
			}
		}
	}
}

// releaseCommit moves the source's due delayed events to their channels.
func (e *Engine) releaseCommit(ctx context.Context, l *live) (store.RunCommit, error) {
	waiting, err := e.cfg.Store.ListEvents(ctx, l.src.ID, store.ChannelDelayed, maxDelayedScan)
	if err != nil {
		return store.RunCommit{}, err
	}
	type due struct {
		id string
		em abi.Emit
	}
	var ready []due
	now := time.Now().UnixMilli()
	for _, ev := range waiting {
		em, ok := delayedEmit(ev)
		switch {
		case !ok:
			continue
		case *em.DeliveryTS <= now:
			ready = append(ready, due{ev.ID, em})
		default:
			e.noteDelayed(l.src.ID, *em.DeliveryTS)
		}
	}
	slices.SortStableFunc(ready, func(a, b due) int { return compareInt64(*a.em.DeliveryTS, *b.em.DeliveryTS) })
	c := store.RunCommit{Keep: e.cfg.EventsKept}
	for _, d := range ready {
		c.Events = append(c.Events, emitEvent(d.em))
		c.Release = append(c.Release, d.id)
	}
	return c, nil
}
