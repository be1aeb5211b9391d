package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// fakeComponent is a component written in Go for the fake sandbox: its
// metadata, and what each operation does.
type fakeComponent struct {
	meta component.Metadata
	run  func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error
	// step, when set, is the run of a workflow step, with its outcome.
	step  func(ctx context.Context, event json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error)
	hooks map[string]func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error
}

// fakeSandbox loads fakeComponents by their code (a name), and records
// every source it loaded so that tests can check none is left open.
type fakeSandbox struct {
	mu         sync.Mutex
	components map[string]*fakeComponent
	loaded     []*fakeSource
	// beforeLoad, when set, runs at the start of every Load.
	beforeLoad func(spec sandbox.Spec)
}

func newFakeSandbox() *fakeSandbox { return &fakeSandbox{components: map[string]*fakeComponent{}} }

// add registers a component under its code name.
func (s *fakeSandbox) add(code string, c *fakeComponent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.meta.Name == "" {
		c.meta.Name = code
	}
	if c.meta.Version == "" {
		c.meta.Version = "1"
	}
	if c.meta.Type == "" {
		c.meta.Type = component.KindSource
	}
	for h := range c.hooks {
		c.meta.Hooks = append(c.meta.Hooks, h)
	}
	s.components[code] = c
}

func (s *fakeSandbox) Introspect(_ context.Context, code, _ string, _ map[string]string) (*component.Metadata, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.components[code]
	if !ok {
		return nil, &sandbox.ScriptError{GuestError: abi.GuestError{Name: "SyntaxError", Message: "no such fake component " + code, Line: 1}}
	}
	meta := c.meta
	return &meta, nil
}

func (s *fakeSandbox) Load(_ context.Context, spec sandbox.Spec) (sandbox.Source, error) {
	if s.beforeLoad != nil {
		s.beforeLoad(spec)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.components[spec.Code]
	if !ok {
		return nil, &sandbox.ScriptError{GuestError: abi.GuestError{Name: "Error", Message: "no such fake component " + spec.Code}}
	}
	f := &fakeSource{comp: c, id: spec.ID, props: spec.Props}
	s.loaded = append(s.loaded, f)
	return f, nil
}

// open returns the loaded sources not yet closed.
func (s *fakeSandbox) open() []*fakeSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*fakeSource
	for _, f := range s.loaded {
		if !f.isClosed() {
			out = append(out, f)
		}
	}
	return out
}

// loads reports how many sources were loaded.
func (s *fakeSandbox) loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.loaded)
}

// fakeSource is one loaded fake component.
type fakeSource struct {
	comp  *fakeComponent
	id    string
	props json.RawMessage

	mu     sync.Mutex
	closed bool
}

func (f *fakeSource) Invoke(ctx context.Context, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	if f.isClosed() {
		return nil, sandbox.ErrClosed
	}
	switch req.Op {
	case abi.OpRun:
		if f.comp.step != nil {
			return f.comp.step(ctx, req.Event, caps)
		}
		if f.comp.run == nil {
			return &sandbox.Outcome{}, nil
		}
		return &sandbox.Outcome{}, f.comp.run(ctx, f, req.Event, caps)
	case abi.OpHook:
		h := f.comp.hooks[req.Hook]
		if h == nil {
			return &sandbox.Outcome{}, nil
		}
		return &sandbox.Outcome{}, h(ctx, f, caps)
	}
	return nil, fmt.Errorf("fake: operation %s", req.Op)
}

func (f *fakeSource) Metadata() *component.Metadata { return &f.comp.meta }

func (f *fakeSource) Close(context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

func (f *fakeSource) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// prop returns a configured prop value the source was loaded with.
func (f *fakeSource) prop(name string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(f.props, &m)
	return m[name]
}

// emitTo is a run or hook emitting event on channel ("" the default).
func emitTo(ctx context.Context, caps sandbox.Capabilities, channel string, event any) error {
	b, _ := json.Marshal(event)
	return caps.Emit.Emit(ctx, abi.Emit{Event: b, Name: channel})
}

// throw is the error of a component that threw.
func throw(msg string) error {
	return &sandbox.ScriptError{GuestError: abi.GuestError{Name: "Error", Message: msg, Stack: "at fake"}}
}

// testEngine is an engine on a bbolt store in a temp dir, with the fake
// sandbox and the fake clock.
type testEngine struct {
	*Engine
	t     *testing.T
	st    *store.Bolt
	box   *fakeSandbox
	clock *clock.Fake
}

// newTestEngine starts an engine; tweak adjusts its config first.
func newTestEngine(t *testing.T, tweak func(*Config)) *testEngine {
	t.Helper()
	clk := clock.NewFake()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"), store.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	te := &testEngine{t: t, st: st, box: newFakeSandbox(), clock: clk}
	cfg := Config{Store: st, Queues: st, Sandbox: te.box, Secrets: sealer, Clock: te.clock, PublicURL: "https://fount.test", Workers: 2, Logger: quiet}
	if tweak != nil {
		tweak(&cfg)
	}
	te.Engine, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := te.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		te.Stop()
		if open := te.box.open(); len(open) > 0 {
			t.Errorf("%d sandbox sources left open after Stop", len(open))
		}
		st.Close()
	})
	return te
}

var ctx = context.Background()

// quiet drops the engine's logs in tests.
var quiet = slog.New(slog.DiscardHandler)

// saveComponent stores a fake component (registered under code) for owner.
func (te *testEngine) saveComponent(code string, c *fakeComponent) model.Component {
	te.t.Helper()
	te.box.add(code, c)
	comp, err := te.SaveComponent(ctx, "u_owner", "u_owner", code, "", SaveOptions{})
	if err != nil {
		te.t.Fatal(err)
	}
	return comp
}

// deploy deploys a source of comp with props.
func (te *testEngine) deploy(comp model.Component, props map[string]any) model.Source {
	te.t.Helper()
	src, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp, Props: rawProps(props)})
	if err != nil {
		te.t.Fatalf("deploy: %v", err)
	}
	return src
}

func rawProps(props map[string]any) map[string]json.RawMessage {
	if props == nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range props {
		out[k], _ = json.Marshal(v)
	}
	return out
}

// waitFor polls cond until it holds, or fails after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, wait.Short, cond)
}

// events returns a channel's stored events, newest first.
func (te *testEngine) events(sourceID, channel string) []model.Event {
	te.t.Helper()
	evs, err := te.st.ListEvents(ctx, sourceID, channel, 1000)
	if err != nil {
		te.t.Fatal(err)
	}
	return evs
}

// waitEvents waits until a channel holds at least n events.
func (te *testEngine) waitEvents(sourceID, channel string, n int) []model.Event {
	te.t.Helper()
	var evs []model.Event
	waitFor(te.t, fmt.Sprintf("%d events on %s %q", n, sourceID, channel), func() bool {
		evs = te.events(sourceID, channel)
		return len(evs) >= n
	})
	return evs
}

func evOf(emitter, data string) model.Event {
	return model.Event{EmitterID: emitter, Data: json.RawMessage(data)}
}

func mapKeys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

// restart starts a new engine on the same store, sandbox and clock, as a
// server restart would (stop the old one first); it stops with the test.
func (te *testEngine) restart() *Engine {
	te.t.Helper()
	again, err := New(te.cfg)
	if err != nil {
		te.t.Fatal(err)
	}
	if err := again.Start(ctx); err != nil {
		te.t.Fatal(err)
	}
	te.t.Cleanup(again.Stop)
	return again
}
