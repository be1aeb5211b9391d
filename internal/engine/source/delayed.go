package source

import (
	"cmp"
	"context"
	"slices"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// maxDelayedScan bounds how many waiting events one release reads.
const maxDelayedScan = 100_000

// releaseCommit moves the source's due delayed events to their channels,
// oldest due first, and notes when the next one is due.
func (r *Runner) releaseCommit(ctx context.Context, sourceID string) (store.RunCommit, error) {
	waiting, err := r.cfg.Store.ListEvents(ctx, sourceID, model.ChannelDelayed, maxDelayedScan)
	if err != nil {
		return store.RunCommit{}, err
	}
	type due struct {
		id  string
		rec emit.Delayed
	}
	var ready []due
	now := r.cfg.Clock.Now().UnixMilli()
	for _, ev := range waiting {
		rec, err := emit.DecodeDelayed(ev.Data)
		switch {
		case err != nil:
			r.log.Warn("a delayed event cannot be read; it stays on $in", "source", sourceID, "event", ev.ID, "err", err)
		case rec.DueMs <= now:
			ready = append(ready, due{ev.ID, rec})
		default:
			r.cfg.Delayed.Note(model.SourceTarget(sourceID), rec.DueMs)
		}
	}
	slices.SortStableFunc(ready, func(a, b due) int { return cmp.Compare(a.rec.DueMs, b.rec.DueMs) })
	c := store.RunCommit{Keep: r.cfg.EventsKept}
	for _, d := range ready {
		c.Events = append(c.Events, d.rec.Released())
		c.Release = append(c.Release, d.id)
	}
	return c, nil
}

// LoadDelayed notes with the delayed scheduler when the delayed events
// of source id are due (at start, or when this node takes it over).
func (r *Runner) LoadDelayed(ctx context.Context, id string) error {
	events, err := r.cfg.Store.ListEvents(ctx, id, model.ChannelDelayed, maxDelayedScan)
	if err != nil {
		return err
	}
	for _, ev := range events {
		if rec, err := emit.DecodeDelayed(ev.Data); err == nil {
			r.cfg.Delayed.Note(model.SourceTarget(id), rec.DueMs)
		}
	}
	return nil
}
