package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Source runs one deployed component. Its instances are its own: created
// from its snapshot, kept warm between invocations, evicted when idle. It is
// safe for concurrent use; concurrent invocations use separate instances.
type Source struct {
	h    *Host
	meta *component.Metadata
	snap *snapshot

	mu     sync.Mutex
	idle   []*instance
	closed bool
	// lastUsed is when an instance of the source was last released (unix
	// ns): a source idle for packAfter gets its snapshot packed.
	lastUsed atomic.Int64
}

// NewSource loads spec's component in a new instance, builds `this` from
// the configured props, and snapshots the result. Component code that fails
// to load gives a *sandbox.ScriptError.
func (h *Host) NewSource(ctx context.Context, spec sandbox.Spec) (*Source, error) {
	format := spec.Format // known from the component's introspection
	if format == "" {
		var err error
		if format, err = h.cfg.Analyzer.Analyze(ctx, spec.Code, spec.Filename, spec.Modules); err != nil {
			return nil, err
		}
	}
	in, err := h.fromSnapshot(ctx, h.base)
	if err != nil {
		return nil, err
	}
	props := spec.Props
	if len(bytes.TrimSpace(props)) == 0 {
		props = json.RawMessage("{}")
	}
	call := abi.Call{
		Op: abi.OpLoad, Code: spec.Code, Filename: spec.Filename, Format: format, Modules: spec.Modules,
		Props: props, Env: map[string]string{"PD_COMPONENT": spec.ID}, Step: spec.Step, Web: webFor(spec.Code, spec.Modules),
		Intl: intlFor(spec.Code, spec.Modules),
	}
	value, err := h.invokeOnce(ctx, in, call, h.cfg.Limits, sandbox.Capabilities{})
	if err != nil {
		in.close(ctx)
		return nil, err
	}
	meta, err := decodeMetadata(value)
	if err != nil {
		in.close(ctx)
		return nil, err
	}
	meta.Format = format
	if !in.mem.hold() { // the host closed meanwhile
		in.close(ctx)
		return nil, sandbox.ErrClosed
	}
	snap, err := takeSnapshot(in.mod.Memory(), h.baseImage)
	in.mem.unhold()
	if err != nil {
		in.close(ctx)
		return nil, err
	}
	snap.parent = h.base
	s := &Source{h: h, meta: meta, snap: snap}
	in.lastUsed = time.Now()
	s.lastUsed.Store(in.lastUsed.UnixNano())
	s.idle = append(s.idle, in)

	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		in.close(ctx)
		return nil, sandbox.ErrClosed
	}
	h.sources[s] = struct{}{}
	h.mu.Unlock()
	h.warm.Add(1)
	h.trimWarm()
	return s, nil
}

// Load is NewSource behind the sandbox.Sandbox interface.
func (h *Host) Load(ctx context.Context, spec sandbox.Spec) (sandbox.Source, error) {
	return h.NewSource(ctx, spec)
}

var (
	_ sandbox.Sandbox = (*Host)(nil)
	_ sandbox.Source  = (*Source)(nil)
)

// Metadata is the loaded component's description.
func (s *Source) Metadata() *component.Metadata { return s.meta }

// Run calls run(event) with the host's default limits.
func (s *Source) Run(ctx context.Context, event json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	return s.Invoke(ctx, sandbox.Request{Op: abi.OpRun, Event: event}, caps)
}

// Hook calls hooks.<name>(); a missing hook succeeds and does nothing.
func (s *Source) Hook(ctx context.Context, name string, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	return s.Invoke(ctx, sandbox.Request{Op: abi.OpHook, Hook: name}, caps)
}

// Invoke performs req in a warm instance, or one restored from the
// snapshot. A *sandbox.ScriptError leaves the instance warm; sandbox.ErrTimeout,
// sandbox.ErrOutOfMemory and sandbox.ErrTrap discard it.
func (s *Source) Invoke(ctx context.Context, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	switch req.Op {
	case abi.OpRun, abi.OpHook, abi.OpOptions, abi.OpAdditionalProps:
	default:
		return nil, fmt.Errorf("host: unknown operation %q", req.Op)
	}
	in, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	call := abi.Call{Op: req.Op, Event: req.Event, Hook: req.Hook, Prop: req.Prop, Page: req.Page, PrevContext: req.PrevContext}
	start := time.Now()
	res, err := s.h.invoke(ctx, in, call, req.Limits.WithDefaults(s.h.cfg.Limits), caps)
	s.release(ctx, in)
	if err != nil {
		return nil, err
	}
	return &sandbox.Outcome{
		Value: res.Value, Exports: res.Exports, Exit: res.Exit, Sends: res.Sends, Flow: res.Flow,
		DroppedTimers: res.Dropped, Duration: time.Since(start),
	}, nil
}

// invoke runs one call within limits and turns a thrown error into a
// *sandbox.ScriptError.
func (h *Host) invoke(ctx context.Context, in *instance, call abi.Call, limits sandbox.Limits, caps sandbox.Capabilities) (abi.Result, error) {
	limits.Memory = min(limits.Memory, h.cfg.MaxMemory)
	ctx, cancel := context.WithTimeout(ctx, limits.Timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	call.MemoryLimit = limits.Memory
	inv := &invocation{caps: caps, limits: limits, deadline: deadline}
	defer inv.closeSockets()
	res, err := in.invoke(ctx, inv, call)
	if err != nil {
		return res, err
	}
	if !res.OK {
		return res, &sandbox.ScriptError{GuestError: *res.Error}
	}
	return res, nil
}

// invokeOnce is invoke for a call whose only interest is its value.
func (h *Host) invokeOnce(ctx context.Context, in *instance, call abi.Call, limits sandbox.Limits, caps sandbox.Capabilities) (json.RawMessage, error) {
	res, err := h.invoke(ctx, in, call, limits, caps)
	return res.Value, err
}

func (s *Source) acquire(ctx context.Context) (*instance, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, sandbox.ErrClosed
	}
	if n := len(s.idle); n > 0 {
		in := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		s.h.warm.Add(-1)
		return in, nil
	}
	s.mu.Unlock()
	return s.h.fromSnapshot(ctx, s.snap)
}

func (s *Source) release(ctx context.Context, in *instance) {
	if in.broken {
		in.close(ctx)
		return
	}
	in.lastUsed = time.Now()
	s.lastUsed.Store(in.lastUsed.UnixNano())
	s.mu.Lock()
	if s.closed || len(s.idle) >= s.h.cfg.MaxIdle {
		s.mu.Unlock()
		in.close(ctx)
		return
	}
	s.idle = append(s.idle, in)
	s.mu.Unlock()
	s.h.warm.Add(1)
	s.h.trimWarm()
}

// take removes in from the warm instances, if it is still there (not
// acquired meanwhile), and reports whether it did.
func (s *Source) take(in *instance) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.idle, in)
	if i < 0 {
		return false
	}
	s.idle = slices.Delete(s.idle, i, i+1)
	s.h.warm.Add(-1)
	return true
}

// evictIdle closes idle instances last used before cutoff.
func (s *Source) evictIdle(cutoff time.Time) int {
	s.mu.Lock()
	var keep, evict []*instance
	for _, in := range s.idle {
		if in.lastUsed.Before(cutoff) {
			evict = append(evict, in)
		} else {
			keep = append(keep, in)
		}
	}
	s.idle = keep
	s.mu.Unlock()
	s.h.warm.Add(-int64(len(evict)))
	for _, in := range evict {
		in.close(context.Background())
	}
	return len(evict)
}

// WarmInstances reports how many instances are kept warm.
func (s *Source) WarmInstances() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.idle)
}

// Close releases the source's instances; later invocations fail with
// sandbox.ErrClosed.
func (s *Source) Close(ctx context.Context) {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	s.h.warm.Add(-int64(len(idle)))
	for _, in := range idle {
		in.close(ctx)
	}
	s.snap.drop()
	s.h.mu.Lock()
	delete(s.h.sources, s)
	s.h.mu.Unlock()
}
