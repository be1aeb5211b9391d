package host

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
	"github.com/fount-dev/fount/internal/host/interrupt"
	"github.com/fount-dev/fount/internal/sandbox"
)

// pollEvery is how many iterations of any guest loop pass between two
// polls of the deadline. A poll is a call into Go of well under a
// microsecond, and 65,536 iterations of QuickJS's interpreter take a
// fraction of a millisecond, so the cost is lost in the noise. A call
// stops a few milliseconds past its deadline in a loop, and up to about
// 100 ms past it in a C built-in that allocates heavily between
// iterations (as it did under wazero's checks).
const pollEvery = 1 << 16

// Host compiles the guest once and creates Sources, each with instances of
// its own. It is safe for concurrent use.
type Host struct {
	cfg Config
	rt  wazero.Runtime
	// instantiate makes an instance of the guest on the engine chosen
	// (Config.Engine), its memory as just instantiated.
	instantiate func(context.Context) (*instance, error)
	// fromBase, when the engine can, makes an instance whose memory is
	// base's image already (mapped copy-on-write); closeBase frees it.
	fromBase  func(context.Context) (*instance, error)
	closeBase func()
	pristine  []byte    // memory of a module just instantiated
	base      *snapshot // runtime + prelude initialised, no component
	baseImage []byte    // the memory base restores to, which sources' snapshots are taken over
	inbox     [2]uint32 // the guest's inbox address and size, the same in every restored instance
	spill     *spill    // where idle snapshots go, or nil (Config.SpillDir)

	// Counts of instances, for metrics.
	created, evicted, closedInstances atomic.Int64
	// warm counts idle instances across sources, for MaxWarm; trimming
	// is set while one caller closes the least recently used of them.
	warm     atomic.Int64
	trimming atomic.Bool
	// freeWanted asks evictLoop to hand memory back to the OS; lastFreed
	// is when it last did (unix ns).
	freeWanted chan struct{}
	lastFreed  atomic.Int64

	// shut is set when Close begins: wasm2go's instances read it (wazero's
	// learn it from their runtime closing).
	shut atomic.Bool

	mu      sync.Mutex
	sources map[*Source]struct{}
	closed  bool
	stop    chan struct{}
	wg      sync.WaitGroup
}

// New compiles the guest and prepares the base snapshot. It fails if the
// guest imports anything outside the fount ABI and the allowed WASI
// functions.
func New(ctx context.Context, cfg Config) (*Host, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	rtCfg := wazero.NewRuntimeConfigCompiler().
		WithMemoryLimitPages(uint32(cfg.MaxMemory / wasmPage)).
		WithCloseOnContextDone(cfg.interrupts == interruptWazero)
	if cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("host: compilation cache in %s: %w", cfg.CacheDir, err)
		}
		rtCfg = rtCfg.WithCompilationCache(cache)
	}
	h := &Host{cfg: cfg, sources: map[*Source]struct{}{}, stop: make(chan struct{}), freeWanted: make(chan struct{}, 1)}
	h.rt = wazero.NewRuntimeWithConfig(ctx, rtCfg)
	if err := h.setup(ctx); err != nil {
		_ = h.rt.Close(ctx)
		return nil, err
	}
	if cfg.SpillDir != "" {
		if h.spill, err = newSpill(cfg.SpillDir); err != nil {
			_ = h.rt.Close(ctx)
			return nil, err
		}
	}
	h.wg.Add(1)
	go h.evictLoop()
	return h, nil
}

func (h *Host) setup(ctx context.Context) error {
	var err error
	switch h.cfg.Engine {
	case EngineWasm2go:
		h.instantiate, err = wasm2goInstances(h.cfg.MaxMemory, h.cfg.callDepth, &h.shut)
	default:
		h.instantiate, err = h.wazeroInstances(ctx)
	}
	if err != nil {
		return err
	}
	in, err := h.instantiate(ctx)
	if err != nil {
		return err
	}
	defer in.close(ctx)
	view, _ := in.mod.Memory().Read(0, in.memoryBytes())
	h.pristine = append([]byte(nil), view...)
	initCtx, cancel := context.WithTimeout(ctx, h.cfg.Limits.Timeout)
	defer cancel()
	if err := in.initRuntime(initCtx, guest.Prelude); err != nil {
		return err
	}
	h.inbox = [2]uint32{in.inbox, in.inboxCap}
	if h.base, err = takeSnapshot(in.mod.Memory(), h.pristine); err != nil {
		return err
	}
	h.baseImage = h.base.image(h.pristine)
	if h.cfg.Engine == EngineWasm2go {
		h.fromBase, h.closeBase = wasm2goFromImage(h.baseImage, h.cfg.MaxMemory, h.cfg.callDepth, &h.shut)
	}
	return nil
}

// wazeroInstances compiles the guest with wazero, after registering the
// host's imports, and returns how to instantiate it.
func (h *Host) wazeroInstances(ctx context.Context) (func(context.Context) (*instance, error), error) {
	if err := instantiateFount(ctx, h.rt); err != nil {
		return nil, fmt.Errorf("host: fount imports: %w", err)
	}
	if err := instantiateWASI(ctx, h.rt); err != nil {
		return nil, fmt.Errorf("host: wasi imports: %w", err)
	}
	wasm := guest.Wasm
	if h.cfg.interrupts == interruptLoops {
		var err error
		if wasm, err = InstrumentedGuest(); err != nil {
			return nil, err
		}
	}
	compiled, err := h.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("host: compile guest: %w", err)
	}
	if err := CheckImports(compiled.ImportedFunctions()); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*instance, error) { return newInstance(ctx, h.rt, compiled) }, nil
}

// InstrumentedGuest is the guest with every loop polling the deadline
// (package interrupt): what the host compiles, and what wasm2go
// translates for package guestgo.
func InstrumentedGuest() ([]byte, error) {
	poll := interrupt.Poll{Module: abi.ImportModule, Name: abi.FuncInterrupted}
	wasm, err := interrupt.Instrument(guest.Wasm, poll, pollEvery)
	if err != nil {
		return nil, fmt.Errorf("host: instrument the guest's loops: %w", err)
	}
	return wasm, nil
}

// CheckImports fails unless fns are exactly the fount ABI functions and the
// allowed WASI functions, each from its own module.
func CheckImports(fns []api.FunctionDefinition) error {
	var got, want []string
	for _, f := range fns {
		mod, name, _ := f.Import()
		got = append(got, mod+"."+name)
	}
	for _, n := range abi.HostFuncs {
		want = append(want, abi.ImportModule+"."+n)
	}
	for _, n := range abi.WASIImports {
		want = append(want, abi.WASIModule+"."+n)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("host: guest imports %v, want exactly %v", got, want)
	}
	return nil
}

// fromSnapshot creates an instance whose memory is s.
func (h *Host) fromSnapshot(ctx context.Context, s *snapshot) (*instance, error) {
	instantiate, over := h.instantiate, (*snapshot)(nil)
	if h.fromBase != nil && s.layeredOver(h.base) {
		instantiate, over = h.fromBase, h.base
	}
	in, err := instantiate(ctx)
	if err != nil {
		return nil, err
	}
	h.created.Add(1)
	in.closed = &h.closedInstances
	if in.mod.IsClosed() || !in.mem.hold() { // the host closed meanwhile
		in.close(ctx)
		return nil, sandbox.ErrClosed
	}
	defer in.mem.unhold()
	if err := s.restore(in.mod.Memory(), over); err != nil {
		in.close(ctx)
		return nil, err
	}
	in.inbox, in.inboxCap = h.inbox[0], h.inbox[1]
	return in, nil
}

// freshInstance initialises an instance from scratch, without snapshots.
// Only benchmarks and tests use it, to compare with fromSnapshot.
func (h *Host) freshInstance(ctx context.Context) (*instance, error) {
	in, err := h.instantiate(ctx)
	if err != nil {
		return nil, err
	}
	if err := in.initRuntime(ctx, guest.Prelude); err != nil {
		in.close(ctx)
		return nil, err
	}
	return in, nil
}

// evictLoop closes warm instances that have been idle too long.
func (h *Host) evictLoop() {
	defer h.wg.Done()
	// Often enough that a source packs within packAfter/2 of its time,
	// whatever the idle timeout.
	period := max(min(h.cfg.IdleTimeout/4, packAfter/2), time.Second)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case now := <-t.C:
			h.EvictIdle(now)
		case <-h.freeWanted:
			debug.FreeOSMemory()
		}
	}
}

// EvictIdle closes every warm instance last used before now minus the idle
// timeout, and returns how many it closed. It also packs the snapshots of
// sources that have had no warm instance and no use for packAfter, and
// asks for the memory either gave up to go back to the system.
func (h *Host) EvictIdle(now time.Time) int {
	sources := h.sourceList()
	n, packed := 0, 0
	for _, s := range sources {
		n += s.evictIdle(now.Add(-h.cfg.IdleTimeout))
		if s.WarmInstances() == 0 && s.lastUsed.Load() < now.Add(-packAfter).UnixNano() {
			if s.snap.pack() {
				packed++
			}
			if h.spill != nil {
				s.snap.spillTo(h.spill)
			}
		}
	}
	h.evicted.Add(int64(n))
	h.freeMemory(n + packed)
	return n
}

// sourceList is the host's sources now.
func (h *Host) sourceList() []*Source {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Keys(h.sources))
}

// packAfter is how long a source without a warm instance goes unused
// before its snapshot is packed: a source in use restores unpacked. A
// fresh fleet's burst leaves thousands of sources without a warm instance
// (past MaxWarm); their unpacked snapshots, some hundred KiB each, are
// packed (and spilled) this soon after, not minutes later.
const packAfter = 20 * time.Second

// trimWarm closes the least recently used warm instances of all sources
// while there are more than MaxWarm, down to nine tenths of it, so that
// it runs once per many releases, not at each. One caller trims at a
// time; the others go on.
func (h *Host) trimWarm() {
	limit := int64(h.cfg.MaxWarm)
	if limit <= 0 || h.warm.Load() <= limit || !h.trimming.CompareAndSwap(false, true) {
		return
	}
	defer h.trimming.Store(false)
	type warmInstance struct {
		s    *Source
		in   *instance
		used time.Time // read under s.mu: a released instance's is written then
	}
	sources := h.sourceList()
	var all []warmInstance
	for _, s := range sources {
		s.mu.Lock()
		for _, in := range s.idle {
			all = append(all, warmInstance{s, in, in.lastUsed})
		}
		s.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b warmInstance) int { return a.used.Compare(b.used) })
	n := 0
	for _, w := range all {
		if h.warm.Load() <= limit*9/10 {
			break
		}
		if w.s.take(w.in) {
			w.in.close(context.Background())
			n++
		}
	}
	h.evicted.Add(int64(n))
	h.freeMemory(n)
}

// freeMemory has the Go heap that closed instances leave behind (wazero's
// module state, and their linear memory where the host cannot map it
// itself, see guestMemory), and packed snapshots their unpacked data,
// handed back to the OS (freed counts either), at most every
// freeInterval: the Go runtime would keep it for minutes, and a server
// that evicted a thousand instances would look as large as when they were
// warm. evictLoop does it (a full collection), not the invocation that
// happened to trim.
func (h *Host) freeMemory(freed int) {
	const freeInterval = 10 * time.Second
	last := h.lastFreed.Load()
	now := time.Now().UnixNano()
	if freed == 0 || now-last < int64(freeInterval) || !h.lastFreed.CompareAndSwap(last, now) {
		return
	}
	select {
	case h.freeWanted <- struct{}{}:
	default: // already asked
	}
}

// Stats counts the instances restored from snapshots, those evicted for
// being idle, and those open now.
func (h *Host) Stats() (restored, evicted, live int64) {
	restored, closed := h.created.Load(), h.closedInstances.Load()
	return restored, h.evicted.Load(), restored - closed
}

// Close closes every Source and the runtime. It is safe to call twice.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.shut.Store(true)
	sources := slices.Collect(maps.Keys(h.sources))
	h.mu.Unlock()
	close(h.stop)
	h.wg.Wait()
	for _, s := range sources {
		s.Close(ctx)
	}
	defer h.spill.close()
	if h.closeBase != nil {
		defer h.closeBase() // the instances' mappings keep what they map
	}
	return h.rt.Close(ctx)
}
