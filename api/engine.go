package api

import (
	"context"
	"encoding/json"

	"github.com/fount-dev/fount/store"
)

// Engine is what package engine provides to the API: the lifecycle of
// sources (hooks and triggers), manual runs, live event streams, usage and
// webhook deliveries.
//
// The API calls the lifecycle methods before committing a change; an
// error (a hook that threw, as a *host.ScriptError) fails the request with
// a 400 and leaves the stored state as it was. Props are given decrypted.
type Engine interface {
	SourceCreated(ctx context.Context, src store.Source, comp store.Component, props map[string]json.RawMessage) error
	SourceUpdated(ctx context.Context, old, updated store.Source, comp store.Component, props map[string]json.RawMessage) error
	SourceDeleted(ctx context.Context, src store.Source) error

	// RunNow queues a manual run of a source.
	RunNow(ctx context.Context, sourceID string, event json.RawMessage) error
	// Subscribe streams an emitter's new events until cancel is called or
	// the channel is closed (the subscriber fell behind).
	Subscribe(emitterID string) (<-chan store.Event, func())
	// Usage is an account's counters for a day (YYYY-MM-DD, UTC); Quotas
	// the daily quotas of free accounts (invocations, compute ms).
	Usage(ctx context.Context, accountID, day string) (store.Usage, error)
	Quotas() (invocations, computeMs int64)
	// Deliveries lists a webhook's deliveries, newest first.
	Deliveries(ctx context.Context, listenerID string, p store.Page) (store.PageOf[store.Delivery], error)
}

// NopEngine accepts every change and runs nothing: the API without an
// engine, for tests of the control plane alone.
type NopEngine struct{}

// SourceCreated does nothing.
func (NopEngine) SourceCreated(context.Context, store.Source, store.Component, map[string]json.RawMessage) error {
	return nil
}

// SourceUpdated does nothing.
func (NopEngine) SourceUpdated(context.Context, store.Source, store.Source, store.Component, map[string]json.RawMessage) error {
	return nil
}

// SourceDeleted does nothing.
func (NopEngine) SourceDeleted(context.Context, store.Source) error { return nil }

// RunNow does nothing.
func (NopEngine) RunNow(context.Context, string, json.RawMessage) error { return nil }

// Subscribe returns a stream that never yields.
func (NopEngine) Subscribe(string) (<-chan store.Event, func()) {
	return make(chan store.Event), func() {}
}

// Usage reports nothing used.
func (NopEngine) Usage(context.Context, string, string) (store.Usage, error) {
	return store.Usage{}, nil
}

// Quotas reports the engine's default quotas.
func (NopEngine) Quotas() (int64, int64) { return 10_000, 30 * 60 * 1000 }

// Deliveries reports none.
func (NopEngine) Deliveries(context.Context, string, store.Page) (store.PageOf[store.Delivery], error) {
	return store.PageOf[store.Delivery]{Items: []store.Delivery{}}, nil
}
