package flow

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// liveFlow is a workflow with its steps loaded, one sandbox source per
// step, none shared with another workflow.
type liveFlow struct {
	wf model.Workflow
	// action is a step run on its own (an action's test run), of no
	// stored workflow.
	action    bool
	boxes     []sandbox.Source
	templates []map[string]string // per step: the props evaluated at each execution
	// templatesJSON is templates encoded, once per load.
	templatesJSON []json.RawMessage
}

// addTemplates appends the next step's templates.
func (lf *liveFlow) addTemplates(t map[string]string) {
	lf.templates = append(lf.templates, t)
	var raw json.RawMessage
	if len(t) > 0 {
		raw, _ = json.Marshal(t)
	}
	lf.templatesJSON = append(lf.templatesJSON, raw)
}

func (lf *liveFlow) close(ctx context.Context) {
	for _, b := range lf.boxes {
		b.Close(ctx)
	}
}

// loadedSet holds the loaded workflows. A load that a delete overtook is
// not kept (gen).
type loadedSet struct {
	mu    sync.Mutex
	flows map[string]*liveFlow
	gen   uint64 // bumped by every forget
}

func newLoadedSet() *loadedSet { return &loadedSet{flows: map[string]*liveFlow{}} }

// get returns the loaded version of wf, or nil.
func (s *loadedSet) get(wf model.Workflow) *liveFlow {
	s.mu.Lock()
	defer s.mu.Unlock()
	lf := s.flows[wf.ID]
	if lf == nil || lf.wf.Version != wf.Version || lf.wf.UpdatedAt != wf.UpdatedAt {
		return nil
	}
	return lf
}

// account returns the user a loaded workflow's executions count against.
func (s *loadedSet) account(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lf := s.flows[id]; lf != nil {
		return lf.wf.UserID, true
	}
	return "", false
}

// generation is the value put needs to keep a load begun now.
func (s *loadedSet) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// put keeps lf unless a forget came after gen, and closes the version it
// replaces. It reports whether lf was kept.
func (s *loadedSet) put(lf *liveFlow, gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return false
	}
	if old := s.flows[lf.wf.ID]; old != nil && old != lf {
		old.close(context.Background())
	}
	s.flows[lf.wf.ID] = lf
	return true
}

// forget closes and drops a workflow's loaded steps.
func (s *loadedSet) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if lf := s.flows[id]; lf != nil {
		lf.close(context.Background())
		delete(s.flows, id)
	}
}

func (s *loadedSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	for id, lf := range s.flows {
		lf.close(context.Background())
		delete(s.flows, id)
	}
}

// loadFlow returns wf with its steps loaded; release must be called when
// the batch is done with it (it closes a load that was not kept).
func (r *Runner) loadFlow(ctx context.Context, wf model.Workflow) (lf *liveFlow, release func(), err error) {
	if lf := r.loaded.get(wf); lf != nil {
		return lf, func() {}, nil
	}
	gen := r.loaded.generation()
	lf = &liveFlow{wf: wf}
	for _, step := range wf.Steps {
		box, templates, err := r.host.LoadStep(ctx, wf, step)
		if err != nil {
			lf.close(ctx)
			return nil, nil, err
		}
		lf.boxes = append(lf.boxes, box)
		lf.addTemplates(templates)
	}
	if r.loaded.put(lf, gen) {
		return lf, func() {}, nil
	}
	return lf, func() { lf.close(context.WithoutCancel(ctx)) }, nil
}
