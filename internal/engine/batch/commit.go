package batch

import (
	"context"
	"fmt"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Commit stores finished runs of em, routing each event to its listeners
// (a run at the hop bound that would deliver further gets an $errors
// event instead), then wakes whoever the commit gave work to (After).
func (l *Loop) Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error {
	if len(runs) == 0 {
		return nil
	}
	r, err := route.New(ctx, l.Store, em, l.MaxHops)
	if err != nil {
		return err
	}
	for i := range runs {
		run := &runs[i]
		hops := run.Invocation.Hops
		if hops >= l.MaxHops && r.WouldLoop(run.Commit.Events) {
			run.Commit.Events = append(run.Commit.Events, emit.ErrorEvent(fmt.Errorf("a chain of source-to-source deliveries reached the limit of %d hops; its events were not delivered further", l.MaxHops), run.Invocation))
			run.Commit.Keep = l.EventsKept
		}
		run.Commit.Route = r.At(hops)
	}
	stored, err := l.Queues.CompleteRuns(ctx, runs)
	l.Host.Committed(em, runs, err == nil)
	var all []model.Event
	for _, events := range stored {
		all = append(all, events...)
	}
	l.After(r, all) // what was stored, even when a later part failed
	return err
}

// After wakes whoever a commit routed by r gave work to (the listeners
// it queued invocations for, the deliverer), notes the delayed emits
// among its stored events, and publishes them to live streams.
func (l *Loop) After(r *route.Router, events []model.Event) {
	for _, ev := range events {
		if ev.Name != model.ChannelDelayed {
			continue
		}
		if rec, err := emit.DecodeDelayed(ev.Data); err == nil {
			l.Delayed.Note(r.Emitter().Target(), rec.DueMs) // a commit's events are its emitter's
		}
	}
	for _, t := range r.Woken() {
		l.Host.Wake(t)
	}
	if r.Delivered() {
		l.Host.Deliver()
	}
	l.Host.Publish(events)
}

// Publish sends events to live streams, through the Host.
func (l *Loop) Publish(events []model.Event) { l.Host.Publish(events) }
