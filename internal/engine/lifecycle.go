package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// The lifecycle of a source is four operations, each one call: deploy,
// update (which also switches it on or off), delete, and saving the
// component they start from (components.go). Each writes the store once, in one
// transaction that also commits what the hooks emitted, and brings the
// source's triggers up or down only after that write, so the engine is
// never ahead of the store. The order of each, and why, is in the package
// documentation ("Lifecycle").

// DeployRequest asks for a new source.
type DeployRequest struct {
	OwnerID   string // the user or organization that owns it
	UserID    string // who deploys it; its runs count against this user's quota
	Component model.Component
	// Name is the source's name; empty takes the component's name slug,
	// made unique in the owner's account with a numeric suffix.
	Name string
	// Props are the configured values, as the user gave them.
	Props map[string]json.RawMessage
}

// UpdateRequest asks to replace a source's component, props, name and
// state.
type UpdateRequest struct {
	Component model.Component
	// Name is the new name; empty keeps the current one.
	Name string
	// Props are the configured values; nil keeps the current values of the
	// props the component still has.
	Props map[string]json.RawMessage
	// Active switches the source's triggers on or off.
	Active bool
}

// DeploySource deploys a source: it validates the props, loads the
// component, runs its deploy and then activate hooks, stores the source
// with what the hooks emitted (routed like any emit), and only then
// brings its endpoints and timers up. A hook that throws fails the deploy
// with a *HookError and leaves nothing behind; so does a store write that
// fails, after the deactivate hook has undone what activate did upstream.
//
// Once the first hook has run, the operation goes on to the end even if
// ctx is cancelled (a client that hangs up must not leave hooks half
// undone); so do UpdateSource and DeleteSource.
func (e *Engine) DeploySource(ctx context.Context, req DeployRequest) (_ model.Source, err error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Source{}, err
	}
	defer end()
	meta, added, err := e.propsMetadata(ctx, req.Component, req.Props, nil, req.OwnerID, req.UserID)
	if err != nil {
		return model.Source{}, err
	}
	now := e.clock.Now().Unix()
	src := model.Source{
		ID: ids.New(ids.Source), OwnerID: req.OwnerID, UserID: req.UserID, ComponentID: req.Component.ID,
		Active: true, CreatedAt: now, UpdatedAt: now,
	}
	props, err := e.prepareProps(meta, req.Props, nil, src)
	if err != nil {
		return model.Source{}, err
	}
	if err := e.checkOwnedProps(ctx, meta, props.values, src.OwnerID); err != nil {
		return model.Source{}, err
	}
	if src.Name, src.NameSlug, err = e.sourceName(ctx, req.OwnerID, req.Name, meta.Name, ""); err != nil {
		return model.Source{}, err
	}
	slug := src.NameSlug
	props.apply(&src)
	src.AddedProps = added
	// Held until the triggers are up: a delete of the new id, visible as
	// soon as it is stored, waits for them and then takes them down.
	unlock := e.lifecycle.Lock(src.ID)
	defer unlock()
	l, err := e.buildInPool(ctx, src, req.Component)
	if err != nil {
		return model.Source{}, err
	}
	// A hook that starts goes on to the end, whatever the caller does;
	// until one has run, the operation may give up for want of a worker
	// (a *BusyError), having done nothing.
	ctx = context.WithoutCancel(ctx)
	defer func() { // a source that is not stored leaves nothing behind
		if err != nil {
			e.undeploy(ctx, l)
			l.Box.Close(ctx)
		}
	}()
	var events []model.Event
	for _, hook := range []string{component.HookDeploy, component.HookActivate} {
		evs, err := e.runHook(ctx, l, hook)
		if err != nil {
			return model.Source{}, err
		}
		events = append(events, evs...)
		if l.Meta().HasHook(hook) {
			ctx = begun(ctx)
		}
	}
	// Every auto-subscription stored so far predates the new source.
	routing := src
	routing.Order = route.NewestOrder
	r, err := route.New(ctx, e.store, routing.Emitter(), e.cfg.MaxHops)
	var stored model.Source
	var evs []model.Event
	if err == nil {
		stored, evs, err = e.store.CreateSource(ctx, src, store.RunCommit{Events: events, Keep: e.cfg.EventsKept, Route: r.At(0)})
	}
	if err != nil {
		if _, herr := e.runHook(ctx, l, component.HookDeactivate); herr != nil {
			e.log.Warn("deactivate hook of a source that could not be stored failed", "source", src.ID, "err", herr)
		}
		return model.Source{}, nameTaken(err, slug)
	}
	l.Source = stored
	e.sources.Install(l)
	e.startTriggers(stored, meta)
	e.changed(model.SourceTarget(stored.ID))
	e.loop.After(r, evs)
	return stored, nil
}

// undeploy removes what the hooks of a source that was never stored wrote
// to its db.
func (e *Engine) undeploy(ctx context.Context, l *source.Live) {
	if err := e.store.DBClear(ctx, l.Source.ID); err != nil {
		e.log.Error("clear the db of a source that was not deployed", "source", l.Source.ID, "err", err)
	}
}

// UpdateSource replaces a source's component, props and name, and
// switches it on or off. In the specification's order, the running
// version's deactivate hook runs, then the new version's activate hook;
// then the store is written (with what both hooks emitted), and only then
// are the triggers and the sandbox swapped.
//
// If the old version's deactivate hook throws, nothing changes (a
// *HookError). If the new version's activate hook throws, or the store
// write fails, the hooks are undone (the new version's deactivate when it
// had activated, then the old version's activate again; a failure of
// those is recorded on $errors) and nothing else changes: the old version
// keeps running, as stored. A running version whose code no longer loads
// (a *CodeError) is replaced without its deactivate hook; any other
// failure to load it fails the update.
func (e *Engine) UpdateSource(ctx context.Context, id string, req UpdateRequest) (_ model.Source, err error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Source{}, err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	old, err := e.store.GetSource(ctx, id)
	if err != nil {
		return model.Source{}, err
	}
	updated, meta, err := e.updatedSource(ctx, old, req)
	if err != nil {
		return model.Source{}, err
	}
	next, err := e.buildInPool(ctx, updated, req.Component)
	if err != nil {
		return model.Source{}, err
	}
	defer func() { // the new version runs only once it is stored
		if err != nil {
			next.Box.Close(context.WithoutCancel(ctx))
		}
	}()
	prev, err := e.loadForHook(ctx, id)
	if err != nil {
		return model.Source{}, err
	}
	ctx = context.WithoutCancel(ctx) // as in DeploySource
	events, err := e.swapHooks(ctx, prev, next)
	if err != nil {
		return model.Source{}, err
	}
	r, err := route.New(ctx, e.store, updated.Emitter(), e.cfg.MaxHops)
	var evs []model.Event
	if err == nil {
		evs, err = e.store.UpdateSource(ctx, updated, store.RunCommit{Events: events, Keep: e.cfg.EventsKept, Route: r.At(0)})
	}
	if err != nil {
		e.unswapHooks(ctx, prev, next, events)
		return model.Source{}, nameTaken(err, updated.NameSlug)
	}
	e.sources.Install(next)
	if updated.Active {
		e.startTriggers(updated, meta) // replaces the old ones: no moment without an endpoint
	} else {
		e.stopTriggers(model.SourceTarget(id))
	}
	e.changed(model.SourceTarget(id))
	e.loop.After(r, evs)
	return updated, nil
}

// updatedSource is old as req changes it, with the metadata of its new
// props; an error names what req has wrong.
func (e *Engine) updatedSource(ctx context.Context, old model.Source, req UpdateRequest) (model.Source, *component.Metadata, error) {
	meta, added, err := e.propsMetadata(ctx, req.Component, req.Props, &old, old.OwnerID, old.UserID)
	if err != nil {
		return model.Source{}, nil, err
	}
	props, err := e.prepareProps(meta, req.Props, &old, old)
	if err != nil {
		return model.Source{}, nil, err
	}
	if err := e.checkOwnedProps(ctx, meta, props.values, old.OwnerID); err != nil {
		return model.Source{}, nil, err
	}
	name, slug, err := e.sourceName(ctx, old.OwnerID, req.Name, meta.Name, old.NameSlug)
	if err != nil {
		return model.Source{}, nil, err
	}
	updated := old
	updated.ComponentID, updated.Name, updated.NameSlug = req.Component.ID, cmp.Or(name, old.Name), slug
	updated.Active, updated.UpdatedAt = req.Active, e.clock.Now().Unix()
	props.apply(&updated)
	updated.AddedProps = added
	return updated, meta, nil
}

// swapHooks runs the running version's deactivate hook (prev: nil when
// it does not load) and then the new version's activate hook, and
// returns what both emitted. When the activate hook fails, prev is
// activated again (reactivate); when prev's deactivate hook fails, or no
// worker is free before any hook ran (a *BusyError), nothing ran to undo.
func (e *Engine) swapHooks(ctx context.Context, prev, next *source.Live) ([]model.Event, error) {
	var events []model.Event
	if prev != nil {
		evs, err := e.runHook(ctx, prev, component.HookDeactivate)
		if err != nil {
			return nil, err
		}
		events = append(events, evs...)
		if prev.Meta().HasHook(component.HookDeactivate) {
			ctx = begun(ctx)
		}
	}
	evs, err := e.runHook(ctx, next, component.HookActivate)
	if busy := (*BusyError)(nil); errors.As(err, &busy) {
		return nil, err
	}
	events = append(events, evs...)
	if err != nil {
		e.reactivate(ctx, prev, events)
		return nil, err
	}
	return events, nil
}

// unswapHooks undoes swapHooks after the store refused the update:
// the new version is deactivated, the old one activated again, and what
// all those hooks emitted is recorded.
func (e *Engine) unswapHooks(ctx context.Context, prev, next *source.Live, events []model.Event) {
	undo, err := e.runHook(ctx, next, component.HookDeactivate)
	if err != nil {
		e.log.Warn("deactivate hook of a version that could not be stored failed", "source", next.Source.ID, "err", err)
	}
	e.reactivate(ctx, prev, append(events, undo...))
}

// nameTaken is err, or a *NameTakenError for slug when the store refused
// a source's name as another's.
func nameTaken(err error, slug string) error {
	if errors.Is(err, model.ErrConflict) {
		return &NameTakenError{Slug: slug}
	}
	return err
}

// loadForHook loads a source's running version to run a hook of it. A
// version whose code no longer loads (a *CodeError: its component broke
// under a new guest, say) gives nil: an update or delete is how it gets
// replaced, so it goes on without that hook. Any other failure is
// returned.
func (e *Engine) loadForHook(ctx context.Context, id string) (*source.Live, error) {
	l, err := e.loadInPool(ctx, id)
	var ce *CodeError
	if errors.As(err, &ce) {
		e.log.Warn("the running version of a source does not load; its deactivate hook is skipped", "source", id, "err", err)
		return nil, nil
	}
	return l, err
}

// reactivate runs prev's activate hook again after an update failed past
// its deactivate hook, so that the version that stays stored is running
// as it was. earlier are the events the update's hooks emitted so far;
// they are committed with what this hook emits, since those hooks did run.
func (e *Engine) reactivate(ctx context.Context, prev *source.Live, earlier []model.Event) {
	var evs []model.Event
	src := model.Source{}
	if prev != nil {
		var err error
		evs, err = e.runHook(ctx, prev, component.HookActivate)
		if err != nil {
			e.log.Warn("re-activating a source after a failed update failed", "source", prev.Source.ID, "err", err)
		}
		src = prev.Source
	}
	if src.ID == "" {
		return // nothing ran that is stored
	}
	if err := e.commitEvents(ctx, src, append(earlier, evs...)); err != nil {
		e.log.Error("record the hooks of a failed update", "source", src.ID, "err", err)
	}
}

// DeleteSource deletes a source: its deactivate hook runs, then the store
// removes the source with its events, db and subscriptions, and then its
// triggers and sandbox go. A deactivate hook that throws does not stop
// the delete: its failure is logged and recorded as an $errors event,
// routed to the source's $errors listeners before the source is gone. So
// is a running version whose code no longer loads; any other failure to
// load it fails the delete.
func (e *Engine) DeleteSource(ctx context.Context, id string) error {
	end, err := e.beginOp()
	if err != nil {
		return err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	src, err := e.store.GetSource(ctx, id)
	if err != nil {
		return err
	}
	events, err := e.deactivateForDelete(ctx, src)
	if err != nil {
		return err
	}
	ctx = begun(ctx) // the hook has run: go on to the end
	r, err := route.New(ctx, e.store, src.Emitter(), e.cfg.MaxHops)
	if err != nil {
		return err
	}
	stored, err := e.store.DeleteSource(ctx, id, store.RunCommit{Events: events, Keep: e.cfg.EventsKept, Route: r.At(0)})
	if err != nil {
		return err
	}
	e.stopTriggers(model.SourceTarget(id))
	e.changed(model.SourceTarget(id))
	e.sources.Forget(id)
	e.delayed.Forget(model.SourceTarget(id))
	e.loop.After(r, stored)
	return nil
}

// deactivateForDelete runs the deactivate hook of a source being deleted,
// if its component has one, and returns the events to commit with the
// delete. The hook failing does not stop the delete, nor does its
// component not loading or the account's quota being used up: each is
// logged and recorded as an $errors event. A source without the hook
// needs no worker, so deleting it never waits for the account's runs.
func (e *Engine) deactivateForDelete(ctx context.Context, src model.Source) ([]model.Event, error) {
	comp, err := e.store.GetComponent(ctx, src.ComponentID)
	switch {
	case errors.Is(err, model.ErrNotFound):
		return nil, nil // a component that is gone has no hook to run
	case err != nil:
		return nil, err
	case !comp.Metadata.HasHook(component.HookDeactivate):
		return nil, nil
	}
	l, err := e.loadInPool(ctx, src.ID)
	var ce *CodeError
	switch {
	case errors.As(err, &ce):
		e.log.Warn("a source being deleted does not load; its deactivate hook is skipped", "source", src.ID, "err", err)
		notRun := fmt.Errorf("the component does not load, so its deactivate hook could not run: %w", err)
		return []model.Event{emit.ErrorEvent(notRun, model.Invocation{Kind: hookKind(component.HookDeactivate)})}, nil
	case errors.Is(err, ErrQuota):
		// Removing a source must stay possible: only its hook is skipped.
		notRun := fmt.Errorf("the deactivate hook did not run: %w", err)
		return []model.Event{emit.ErrorEvent(notRun, model.Invocation{Kind: hookKind(component.HookDeactivate)})}, nil
	case err != nil:
		return nil, err
	}
	events, err := e.runHook(begun(ctx), l, component.HookDeactivate)
	if err != nil {
		e.log.Warn("deactivate hook failed; the source is deleted anyway", "source", src.ID, "err", err)
	}
	return events, nil
}

// runHook runs a lifecycle hook of l and returns the events to commit for
// it: its emits and console lines, or, when it fails, an $errors event
// and its console lines together with a *HookError. A component without
// the hook runs nothing.
func (e *Engine) runHook(ctx context.Context, l *source.Live, hook string) ([]model.Event, error) {
	if !l.Meta().HasHook(hook) {
		return nil, nil
	}
	c := emit.NewCollector(e.channelBudget(l.Source.ID)) // a hook's own
	var err error
	poolErr := e.inPool(ctx, l.Source.UserID, 1, func(ctx context.Context) error {
		_, err = e.invokeReserved(ctx, l.Source.UserID, l.Source.ID, l.Box, sandbox.Request{Op: abi.OpHook, Hook: hook, Limits: e.cfg.Limits}, e.capabilities(l, c, &goneAccounts{}))
		return nil
	})
	if poolErr != nil {
		notRun := fmt.Errorf("the %s hook did not run: %w", hook, poolErr)
		return []model.Event{emit.ErrorEvent(notRun, model.Invocation{Kind: hookKind(hook)})}, notRun
	}
	// Hooks' emits are not deduplicated: dedupe state belongs to runs.
	out := emit.Pipeline("", model.Invocation{Kind: hookKind(hook)}, c, err, model.DedupeState{}, e.clock.Now())
	if err != nil {
		e.log.Warn("hook failed", "source", l.Source.ID, "hook", hook, "error", emit.ErrorClass(err))
		return out.Events, hookError(hook, err)
	}
	return out.Events, nil
}

// commitEvents stores and routes events of a source outside a run.
func (e *Engine) commitEvents(ctx context.Context, src model.Source, events []model.Event) error {
	if len(events) == 0 {
		return nil
	}
	r, err := route.New(ctx, e.store, src.Emitter(), e.cfg.MaxHops)
	if err != nil {
		return err
	}
	stored, err := e.queues.CommitEvents(ctx, src.ID, store.RunCommit{Events: events, Keep: e.cfg.EventsKept, Route: r.At(0)})
	if err != nil {
		return err
	}
	e.loop.After(r, stored)
	return nil
}

// SetSourceControls replaces a source's controls: its throttle and queue
// size. A source's runs are one at a time and never retried, so
// concurrency and retry are refused.
func (e *Engine) SetSourceControls(ctx context.Context, id string, c model.Controls) (model.Source, error) {
	switch {
	case c.Concurrency > 1:
		return model.Source{}, &ControlsError{Reason: "a source's runs are one at a time, in order (its dedupe and db rely on it): concurrency is for workflows"}
	case c.Retry != nil:
		return model.Source{}, &ControlsError{Reason: "a source's failed run is an $errors event, not retried: retry is for workflows"}
	}
	if err := flow.CheckControls(c); err != nil {
		return model.Source{}, err
	}
	end, err := e.beginOp()
	if err != nil {
		return model.Source{}, err
	}
	defer end()
	unlock := e.lifecycle.Lock(id)
	defer unlock()
	src, err := e.store.SetSourceControls(ctx, id, c, e.clock.Now().Unix())
	if err != nil {
		return model.Source{}, err
	}
	e.throttles.Forget(id)
	e.reloadTriggers(model.SourceTarget(id)) // its endpoints' queue size, and a live source with the new record
	e.changed(model.SourceTarget(id))
	e.kick(model.SourceTarget(id))
	return src, nil
}
