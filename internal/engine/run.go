package engine

import (
	"context"
	"fmt"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

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
