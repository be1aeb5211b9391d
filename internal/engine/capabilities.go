package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

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

// capabilities are what a run or hook of l may reach: emits and logs into
// c, the source's db, $auth (noting in gone the accounts that are gone),
// and fetch through the egress policy.
func (e *Engine) capabilities(l *live, c *emit.Collector, gone *goneAccounts) sandbox.Capabilities {
	caps := sandbox.Capabilities{Emit: c, Log: c, DB: sourceDB{e.store, l.src.ID}, Auth: accountAuth{e, l.src.OwnerID, l.src.ConfiguredProps, gone},
		Stores: dataStores{e, l.src.OwnerID, l.src.ConfiguredProps}}
	if e.cfg.Egress != nil {
		caps.Egress = e.cfg.Egress
	}
	return caps
}

// maxDelayedScan bounds how many waiting events one release reads.
const maxDelayedScan = 100_000

// releaseCommit moves the source's due delayed events to their channels,
// oldest due first, and notes when the next one is due.
func (e *Engine) releaseCommit(ctx context.Context, sourceID string) (store.RunCommit, error) {
	waiting, err := e.store.ListEvents(ctx, sourceID, model.ChannelDelayed, maxDelayedScan)
	if err != nil {
		return store.RunCommit{}, err
	}
	type due struct {
		id  string
		rec emit.Delayed
	}
	var ready []due
	now := e.clock.Now().UnixMilli()
	for _, ev := range waiting {
		rec, err := emit.DecodeDelayed(ev.Data)
		switch {
		case err != nil:
			e.log.Warn("a delayed event cannot be read; it stays on $in", "source", sourceID, "event", ev.ID, "err", err)
		case rec.DueMs <= now:
			ready = append(ready, due{ev.ID, rec})
		default:
			e.delayed.Note(model.SourceTarget(sourceID), rec.DueMs)
		}
	}
	slices.SortStableFunc(ready, func(a, b due) int { return cmp.Compare(a.rec.DueMs, b.rec.DueMs) })
	c := store.RunCommit{Keep: e.cfg.EventsKept}
	for _, d := range ready {
		c.Events = append(c.Events, d.rec.Released())
		c.Release = append(c.Release, d.id)
	}
	return c, nil
}

// loadDelayed rebuilds the due times of the delayed events of every
// source, and of the paused executions of every workflow, of emitters.
func (e *Engine) loadDelayed(ctx context.Context, emitters []model.Target) error {
	for _, t := range emitters {
		if t.Kind == model.TargetWorkflow {
			if err := e.flows.LoadPaused(ctx, t.ID); err != nil {
				return err
			}
			continue
		}
		events, err := e.store.ListEvents(ctx, t.ID, model.ChannelDelayed, maxDelayedScan)
		if err != nil {
			return err
		}
		for _, ev := range events {
			if rec, err := emit.DecodeDelayed(ev.Data); err == nil {
				e.delayed.Note(t, rec.DueMs)
			}
		}
	}
	return nil
}

// emitters are the sources and workflows for whose ids owns is true.
func emitters(sources []model.Source, flows []model.Workflow, owns func(string) bool) []model.Target {
	var out []model.Target
	for _, src := range sources {
		if owns(src.ID) {
			out = append(out, model.SourceTarget(src.ID))
		}
	}
	for _, wf := range flows {
		if owns(wf.ID) {
			out = append(out, model.WorkflowTarget(wf.ID))
		}
	}
	return out
}
