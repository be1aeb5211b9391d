package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/store"
)

// SourceCreated runs a new source's deploy and then activate hooks and, if
// both succeed, brings its triggers up. A hook that throws fails with its
// *host.ScriptError and leaves nothing running.
func (e *Engine) SourceCreated(ctx context.Context, src store.Source, comp store.Component, props map[string]json.RawMessage) error {
	l, err := e.build(ctx, src, comp, props)
	if err != nil {
		return err
	}
	for _, hook := range []string{"deploy", "activate"} {
		if err := e.runHook(ctx, l, hook); err != nil {
			l.hs.Close(ctx)
			return err
		}
	}
	e.install(l)
	return nil
}

// SourceUpdated runs the old code's deactivate hook, then the new code's
// activate hook, and swaps the running source. If a hook throws, the old
// source keeps running as it was.
func (e *Engine) SourceUpdated(ctx context.Context, old, updated store.Source, comp store.Component, props map[string]json.RawMessage) error {
	if prev, err := e.load(ctx, old.ID); err == nil {
		if err := e.runHook(ctx, prev, "deactivate"); err != nil {
			return err
		}
	}
	l, err := e.build(ctx, updated, comp, props)
	if err != nil {
		return err
	}
	if err := e.runHook(ctx, l, "activate"); err != nil {
		l.hs.Close(ctx)
		return err
	}
	e.deactivateTriggers(old.ID)
	e.forget(old.ID)
	e.install(l)
	return nil
}

// SourceDeleted runs the deactivate hook and stops the source's triggers;
// the store then removes the source, its events and subscriptions.
func (e *Engine) SourceDeleted(ctx context.Context, src store.Source) error {
	if l, err := e.load(ctx, src.ID); err == nil {
		if err := e.runHook(ctx, l, "deactivate"); err != nil {
			return err
		}
	}
	e.deactivateTriggers(src.ID)
	e.forget(src.ID)
	return nil
}

// install makes l the running version of its source.
func (e *Engine) install(l *live) {
	e.mu.Lock()
	if prev := e.live[l.src.ID]; prev != nil && prev != l {
		defer prev.hs.Close(context.Background())
	}
	e.live[l.src.ID] = l
	e.mu.Unlock()
	if l.src.Active {
		e.activateTriggers(l.src)
	}
}

// runHook runs a hook with the source's db, and stores what it emits and
// logs on the source's log (see the package caveats).
func (e *Engine) runHook(ctx context.Context, l *live, hook string) error {
	if !hasHook(l.meta, hook) {
		return nil
	}
	c := &collector{}
	caps := e.capabilities(l, c)
	_, err := l.hs.Invoke(ctx, host.Request{Op: "hook", Hook: hook, Limits: e.cfg.Limits}, caps)
	if err != nil {
		return err
	}
	out := e.pipeline(l, store.Invocation{Kind: "hook:" + hook}, c, nil, store.DedupeState{})
	if len(out.events) > 0 {
		stored, err := e.cfg.Store.AppendEvents(ctx, l.src.ID, out.events, e.cfg.EventsKept)
		if err != nil {
			return fmt.Errorf("engine: store events of hook %s: %w", hook, err)
		}
		for _, ev := range stored {
			e.subs.publish(ev)
		}
	}
	return nil
}

func hasHook(m *host.Metadata, hook string) bool {
	for _, h := range m.Hooks {
		if h == hook {
			return true
		}
	}
	return false
}

// activateTriggers registers a source's HTTP endpoints and timers.
func (e *Engine) activateTriggers(src store.Source) {
	props := map[string]json.RawMessage{}
	_ = json.Unmarshal(src.ConfiguredProps, &props)
	comp, err := e.cfg.Store.GetComponent(context.Background(), src.ComponentID)
	if err != nil {
		e.log.Error("activate triggers", "source", src.ID, "err", err)
		return
	}
	var meta host.Metadata
	if err := json.Unmarshal(comp.Metadata, &meta); err != nil {
		e.log.Error("activate triggers", "source", src.ID, "err", err)
		return
	}
	e.deactivateTriggers(src.ID)
	for _, p := range meta.ConfigurableProps {
		switch p.Type {
		case "$.interface.http":
			var v struct {
				EndpointURL string `json:"endpoint_url"`
			}
			if json.Unmarshal(props[p.Name], &v) == nil && v.EndpointURL != "" {
				token := v.EndpointURL[strings.LastIndex(v.EndpointURL, "/")+1:]
				e.mu.Lock()
				e.endpoints[token] = endpoint{sourceID: src.ID, userID: src.UserID, prop: p.Name, customResponse: p.CustomResponse}
				e.mu.Unlock()
			}
		case "$.interface.timer":
			var spec timerSpec
			if json.Unmarshal(props[p.Name], &spec) == nil {
				e.startTimer(src.ID, spec)
			}
		}
	}
}

// deactivateTriggers removes a source's endpoints and stops its timer.
func (e *Engine) deactivateTriggers(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for token, ep := range e.endpoints {
		if ep.sourceID == id {
			delete(e.endpoints, token)
		}
	}
	if t := e.timers[id]; t != nil {
		t.stop()
		delete(e.timers, id)
	}
}
