//go:build wasm2go

package host

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/host/guestgo"
	"github.com/fount-dev/fount/internal/sandbox"
)

// The wasm2go engine runs the guest's translation to Go (package guestgo)
// behind the same instance code as wazero: a goModule answers the few
// methods of wazero's api.Module, api.Function and api.Memory that the
// host calls (the embedded interfaces are nil; calling any other method
// is a bug that panics in the tests). Every call of an export recovers
// what the translated code panics with, a wasm trap (an access out of
// bounds, unreachable, a call past the bound of depth), and returns it
// as an error, as wazero does.
//
// Its isolation is the translation's: each instance has a linear memory
// of its own (a Go slice over a reservation the host maps, every access
// bounds-checked against the slice), capped at MaxMemory by the patched
// memory.grow; the guest reaches the host only through the imports
// below, the same functions wazero's guest calls; a loop polls the
// deadline every pollEvery iterations, as under wazero.

// wasm2goBuilt: this build has package guestgo.
const wasm2goBuilt = true

// wasm2goInstances returns how to make a translated instance whose memory
// is capped at maxMemory bytes, with at most maxDepth guest calls in
// progress; shut is set when the host closes.
func wasm2goInstances(maxMemory int64, maxDepth int32, shut *atomic.Bool) (func(context.Context) (*instance, error), error) {
	return func(context.Context) (*instance, error) {
		return newGoInstance(maxMemory, maxDepth, shut, nil)
	}, nil
}

// wasm2goFromImage returns how to make such an instance whose memory
// starts as image (the base snapshot's: runtime and prelude initialised)
// mapped copy-on-write, with its closer; nil where memory files are not
// available, and the host restores the base by copying instead.
func wasm2goFromImage(image []byte, maxMemory int64, maxDepth int32, shut *atomic.Bool) (func(context.Context) (*instance, error), func()) {
	img, err := newMemoryImage(image)
	if err != nil {
		return nil, nil
	}
	return func(context.Context) (*instance, error) {
		return newGoInstance(maxMemory, maxDepth, shut, img)
	}, img.close
}

// newGoInstance makes a translated instance, its memory pristine, or img
// when it is not nil.
func newGoInstance(maxMemory int64, maxDepth int32, shut *atomic.Bool, img *memoryImage) (*instance, error) {
	if shut.Load() {
		return nil, sandbox.ErrClosed
	}
	pages := maxMemory / wasmPage
	mod := &goModule{shut: shut, maxPages: pages}
	mod.mem = &goMemory{g: mod}
	// The memory lives where the host maps it, as wazero's does: it grows
	// in place (growPages), stays out of the Go heap, and its pages go
	// back to the OS when the instance closes.
	var mapped *guestMemory
	mod.linear = memoryAllocator(func(m *guestMemory) { mapped = m }).Allocate(0, uint64(pages*wasmPage))
	mappedImage := img != nil && img.mapInto(mapped)
	overCap := false
	mod.m = guestgo.NewLimited(goImports{mod}, goImports{mod}, pages, maxDepth, func(size int) ([]byte, bool) {
		if img != nil {
			size = max(size, len(img.image))
		}
		buf := mod.linear.Reallocate(uint64(size))
		switch {
		case buf == nil:
			overCap = true
			return make([]byte, size), false
		case img != nil && !mappedImage: // no room for the mapping (Go-allocated memory): copied
			copy(buf, img.image)
		}
		return buf, img != nil
	})
	if overCap {
		mod.linear.Free()
		return nil, fmt.Errorf("host: the guest's initial memory is over the cap of %d bytes", maxMemory)
	}
	mod.m.SetGrow(mod.growPages)
	return &instance{
		mod:   mod,
		mem:   mapped,
		alloc: mod.ExportedFunction(abi.ExportAlloc),
		free:  mod.ExportedFunction(abi.ExportFree),
		init:  mod.ExportedFunction(abi.ExportInit),
		call:  mod.ExportedFunction(abi.ExportCall),
	}, nil
}

// goModule is one translated instance, used by one goroutine at a time
// (the instance's rule), except for Close and IsClosed.
type goModule struct {
	api.Module
	m        *guestgo.Module
	linear   experimental.LinearMemory // where m's memory is
	mem      *goMemory
	maxPages int64
	ctx      context.Context // the export call in progress's, for the imports
	stack    [4]uint64       // an import's arguments and result
	closed   atomic.Bool
	shut     *atomic.Bool // the host's: set when it closes
}

func (g *goModule) Memory() api.Memory { return g.mem }

func (g *goModule) IsClosed() bool { return g.closed.Load() || g.shut.Load() }

// Close marks the module closed, so that a call in progress stops at its
// next poll (hostInterrupted), and frees its memory: at once, or, mapped
// memory that a call holds, when the call lets it go (guestMemory).
func (g *goModule) Close(context.Context) error {
	if !g.closed.Swap(true) {
		g.linear.Free()
	}
	return nil
}

// growPages is the guest's memory.grow: the memory grows where it is
// (mapped memory has room for the cap; pages past the old end are zero),
// and never past the cap.
func (g *goModule) growPages(delta int64) int64 {
	mem := g.m.Xmemory().Slice()
	old := int64(len(*mem)) / wasmPage
	if delta < 0 || old+delta > g.maxPages {
		return -1
	}
	buf := g.linear.Reallocate(uint64(old+delta) * wasmPage)
	if buf == nil {
		return -1
	}
	*mem = buf
	return old
}

// ExportedFunction returns the export name, nil for one the guest lacks.
func (g *goModule) ExportedFunction(name string) api.Function {
	var call func(p []uint64) []uint64
	m := g.m
	switch name {
	case abi.ExportInitialize:
		call = func([]uint64) []uint64 { m.X_initialize(); return nil }
	case abi.ExportAlloc:
		call = func(p []uint64) []uint64 { return i32Result(m.Xfount_alloc(int32(p[0]))) }
	case abi.ExportFree:
		call = func(p []uint64) []uint64 { m.Xfount_free(int32(p[0])); return nil }
	case abi.ExportInit:
		call = func(p []uint64) []uint64 { return i32Result(m.Xfount_init(int32(p[0]), int32(p[1]))) }
	case abi.ExportInbox:
		call = func([]uint64) []uint64 { return []uint64{uint64(m.Xfount_inbox())} }
	case abi.ExportCall:
		call = func(p []uint64) []uint64 { return []uint64{uint64(m.Xfount_call(int32(p[0]), int32(p[1])))} }
	default:
		return nil
	}
	return &goFunction{mod: g, name: name, call: call}
}

func i32Result(v int32) []uint64 { return []uint64{api.EncodeI32(v)} }

// goFunction is one export of a translated instance.
type goFunction struct {
	api.Function
	mod  *goModule
	name string
	call func(params []uint64) []uint64
}

// errTrap is what a translated call panicked with, as an error.
var errTrap = errors.New("wasm2go: trap")

// Call runs the export with the imports seeing ctx, and turns a trap into
// an error. A Go runtime failure that is not a panic (a fatal error)
// cannot be recovered: the call-depth bound exists so that recursion
// never reaches the goroutine stack's limit, which is one.
func (f *goFunction) Call(ctx context.Context, params ...uint64) (res []uint64, err error) {
	g := f.mod
	if g.IsClosed() {
		return nil, fmt.Errorf("%w: %s on a closed instance", sandbox.ErrClosed, f.name)
	}
	outer := g.ctx
	g.ctx = ctx
	defer func() {
		g.ctx = outer
		if r := recover(); r != nil {
			g.m.ResetDepth()
			err = trapOf(f.name, r)
		}
	}()
	return f.call(params), nil
}

// trapOf describes what the call of export panicked with.
func trapOf(export string, r any) error {
	switch r := r.(type) {
	case runtime.Error:
		return fmt.Errorf("%w in %s: %v", errTrap, export, r)
	case error:
		if errors.Is(r, guestgo.ErrCallDepth) {
			return fmt.Errorf("%w in %s: stack overflow", errTrap, export)
		}
		return fmt.Errorf("%w in %s: %w", errTrap, export, r)
	}
	return fmt.Errorf("%w in %s: %v", errTrap, export, r)
}

// goMemory is a translated instance's linear memory: the methods of
// api.Memory the host calls (the embedded interface is nil).
type goMemory struct {
	api.Memory
	g *goModule
}

func (m *goMemory) bytes() []byte { return *m.g.m.Xmemory().Slice() }

func (m *goMemory) Size() uint32 { return uint32(len(m.bytes())) }

func (m *goMemory) Read(off, n uint32) ([]byte, bool) {
	b := m.bytes()
	if uint64(off)+uint64(n) > uint64(len(b)) {
		return nil, false
	}
	return b[off : off+n : off+n], true
}

func (m *goMemory) Write(off uint32, v []byte) bool {
	b := m.bytes()
	if uint64(off)+uint64(len(v)) > uint64(len(b)) {
		return false
	}
	copy(b[off:], v)
	return true
}

func (m *goMemory) Grow(pages uint32) (uint32, bool) {
	old := m.g.growPages(int64(pages))
	if old < 0 {
		return 0, false
	}
	return uint32(old), true
}

// goImports answers the translated guest's imports with the host's
// functions, as instantiateFount and instantiateWASI register them with
// wazero.
type goImports struct{ g *goModule }

// call runs fn with the arguments args (at most four) in the module's
// stack, for the export call in progress.
func (i goImports) call(fn hostFunc, args ...int32) int32 {
	s := i.g.stack[:max(len(args), 1)]
	for n, a := range args {
		s[n] = api.EncodeI32(a)
	}
	return fn.call(i.g.ctx, i.g, s)
}

func (i goImports) Xlog(a, b, c int32) int32 { return i.call(hostFunc{fn: hostLog}, a, b, c) }
func (i goImports) Xemit(a, b int32) int32   { return i.call(hostFunc{fn: hostEmit}, a, b) }
func (i goImports) Xdb_get(a, b int32) int32 { return i.call(hostFunc{fn: hostDBGet}, a, b) }
func (i goImports) Xdb_set(a, b, c, d int32) int32 {
	return i.call(hostFunc{fn: hostDBSet}, a, b, c, d)
}
func (i goImports) Xrespond(a, b int32) int32  { return i.call(hostFunc{fn: hostRespond}, a, b) }
func (i goImports) Xauth(a, b int32) int32     { return i.call(hostFunc{fn: hostAuth}, a, b) }
func (i goImports) Xfetch(a, b int32) int32    { return i.call(hostFunc{fn: hostFetch}, a, b) }
func (i goImports) Xcrypto(a, b int32) int32   { return i.call(hostFunc{fn: hostCrypto}, a, b) }
func (i goImports) Xcompress(a, b int32) int32 { return i.call(hostFunc{fn: hostCompress}, a, b) }
func (i goImports) Xtz(a, b int32) int32       { return i.call(hostFunc{fn: hostTZ}, a, b) }
func (i goImports) Xnet(a, b int32) int32      { return i.call(hostFunc{fn: hostNet}, a, b) }
func (i goImports) Xstore(a, b int32) int32    { return i.call(hostFunc{fn: hostStore}, a, b) }
func (i goImports) Xtake(a, b int32) int32     { return i.call(hostFunc{fn: hostTake}, a, b) }
func (i goImports) Xsleep(a int32) int32       { return i.call(hostFunc{fn: hostSleep}, a) }
func (i goImports) Xinterrupted() int32        { return i.call(hostFunc{fn: hostInterrupted}) }

func (i goImports) Xclock_time_get(id int32, precision int64, ptr int32) int32 {
	s := i.g.stack[:3]
	s[0], s[1], s[2] = api.EncodeI32(id), uint64(precision), api.EncodeI32(ptr)
	wasiClockTimeGet(i.g.ctx, i.g, s)
	return int32(s[0])
}

func (i goImports) Xrandom_get(ptr, n int32) int32 {
	s := i.g.stack[:2]
	s[0], s[1] = api.EncodeI32(ptr), api.EncodeI32(n)
	wasiRandomGet(i.g.ctx, i.g, s)
	return int32(s[0])
}
