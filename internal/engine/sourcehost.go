package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// sourceHost is the engine as a source's runs (package source) need it:
// the component loaded with its props, sandboxes reserved, what a run may
// reach, and the commit of runs.
type sourceHost struct{ e *Engine }

func (h sourceHost) Build(ctx context.Context, src model.Source, comp model.Component) (sandbox.Source, error) {
	props, err := h.e.sandboxProps(src)
	if err != nil {
		return nil, err
	}
	box, err := h.e.sandbox.Load(ctx, sandbox.Spec{ID: src.ID, Code: comp.RunCode(), Props: props, Format: comp.Metadata.Format})
	if err != nil {
		return nil, codeError(err)
	}
	return box, nil
}

func (h sourceHost) Invoke(ctx context.Context, account, target string, box sandbox.Source, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	return h.e.invokeReserved(ctx, account, target, box, req, caps)
}

func (h sourceHost) Capabilities(l *source.Live, c *emit.Collector) (sandbox.Capabilities, func(error) error) {
	gone := &goneAccounts{}
	return h.e.capabilities(l, c, gone), gone.explain
}

func (h sourceHost) Channels(sourceID string) *emit.Budget { return h.e.channelBudget(sourceID) }

func (h sourceHost) MapStack(err error, l *source.Live) error {
	return mapStack(err, entryFile, func() []*component.SourceMap { return h.e.sourceMaps(l) })
}

func (h sourceHost) Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error {
	return h.e.loop.Commit(ctx, em, runs)
}
