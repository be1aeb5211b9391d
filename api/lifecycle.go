package api

import (
	"context"
	"encoding/json"

	"github.com/fount-dev/fount/store"
)

// Lifecycle is what the engine implements to make sources live: hooks and
// triggers. The API calls it before committing a change; an error (a hook
// that threw, as a *host.ScriptError) fails the request with a 400 and
// leaves the stored state as it was. Props are given decrypted.
type Lifecycle interface {
	SourceCreated(ctx context.Context, src store.Source, comp store.Component, props map[string]json.RawMessage) error
	SourceUpdated(ctx context.Context, old, updated store.Source, comp store.Component, props map[string]json.RawMessage) error
	SourceDeleted(ctx context.Context, src store.Source) error
}

// NopLifecycle accepts every change and does nothing, until an engine is
// wired in.
type NopLifecycle struct{}

// SourceCreated does nothing.
func (NopLifecycle) SourceCreated(context.Context, store.Source, store.Component, map[string]json.RawMessage) error {
	return nil
}

// SourceUpdated does nothing.
func (NopLifecycle) SourceUpdated(context.Context, store.Source, store.Source, store.Component, map[string]json.RawMessage) error {
	return nil
}

// SourceDeleted does nothing.
func (NopLifecycle) SourceDeleted(context.Context, store.Source) error { return nil }
