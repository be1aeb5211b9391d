package flow

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// pausedDueSet keeps when each paused execution of the workflows this
// node runs is due, so that a release reads the states of the due ones
// only, however many wait: the store's table is read whole once per
// workflow, when the node starts or takes the workflow over
// (LoadPaused), and each commit that pauses or goes on with one updates
// it (Committed). An entry whose execution went on elsewhere is found
// out when it is due (its state is gone) and dropped then.
type pausedDueSet struct {
	mu    sync.Mutex
	flows map[string]map[string]int64 // workflow id → execution id → due, epoch ms
}

func newPausedDueSet() *pausedDueSet { return &pausedDueSet{flows: map[string]map[string]int64{}} }

// set notes that execution of workflow is due at dueMs.
func (d *pausedDueSet) set(workflow, execution string, dueMs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.flows[workflow]
	if m == nil {
		m = map[string]int64{}
		d.flows[workflow] = m
	}
	m[execution] = dueMs
}

// drop forgets execution of workflow.
func (d *pausedDueSet) drop(workflow, execution string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := d.flows[workflow]; m != nil {
		if delete(m, execution); len(m) == 0 {
			delete(d.flows, workflow)
		}
	}
}

// load replaces what the set holds of workflow with entries, and
// returns when the first of them is due; false when there is none.
func (d *pausedDueSet) load(workflow string, entries map[string]store.PausedEntry) (firstMs int64, ok bool) {
	m := make(map[string]int64, len(entries))
	for id, entry := range entries {
		m[id] = entry.DueMs
		if !ok || entry.DueMs < firstMs {
			firstMs, ok = entry.DueMs, true
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(m) == 0 {
		delete(d.flows, workflow)
	} else {
		d.flows[workflow] = m
	}
	return firstMs, ok
}

// forget forgets every execution of workflow.
func (d *pausedDueSet) forget(workflow string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.flows, workflow)
}

// due returns the executions of workflow due at nowMs, oldest due
// first, and when the next of the others is due (0: none).
func (d *pausedDueSet) due(workflow string, nowMs int64) (ids []string, nextMs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	type entry struct {
		id  string
		due int64
	}
	var ready []entry
	for id, due := range d.flows[workflow] {
		switch {
		case due <= nowMs:
			ready = append(ready, entry{id, due})
		case nextMs == 0 || due < nextMs:
			nextMs = due
		}
	}
	slices.SortFunc(ready, func(a, b entry) int { return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.id, b.id)) })
	ids = make([]string, len(ready))
	for i, r := range ready {
		ids[i] = r.id
	}
	return ids, nextMs
}

// LoadPaused reads the due times of a workflow's paused executions from
// the store into the set, and notes the earliest with the delayed
// scheduler.
func (r *Runner) LoadPaused(ctx context.Context, workflowID string) error {
	entries, err := r.cfg.Store.PausedEntries(ctx, workflowID)
	if err != nil {
		return err
	}
	if first, ok := r.due.load(workflowID, entries); ok {
		r.cfg.Delayed.Note(model.WorkflowTarget(workflowID), first)
	}
	return nil
}

// Committed updates the due times with what runs of em committed: the executions
// they paused, and, when the commit succeeded (ok), those they went on
// with. A pause is noted whatever the commit's outcome, as it may be
// stored: one that is not is dropped when it is due.
func (r *Runner) Committed(em model.Emitter, runs []store.CompletedRun, ok bool) {
	if em.Kind != model.TargetWorkflow {
		return
	}
	for _, run := range runs {
		if id := run.Commit.Resume; id != "" && ok {
			r.due.drop(em.ID, id)
		}
		if p := run.Commit.Pause; p != nil { // after its resume: a part may pause the execution it went on with again
			r.due.set(em.ID, p.ExecutionID, p.DueMs)
			r.cfg.Delayed.Note(model.WorkflowTarget(em.ID), p.DueMs)
		}
	}
}
