package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// instance is one guest module instance: one QuickJS runtime, one
// component. It is used by one goroutine at a time and belongs to one
// Source; it is never handed to another.
type instance struct {
	mod                     api.Module
	alloc, free, init, call api.Function
	inbox, inboxCap         uint32 // the guest's buffer for Call messages
	lastUsed                time.Time
	broken                  bool          // trapped, timed out or ran out of memory: must be closed
	closed                  *atomic.Int64 // the host's count of closed instances, or nil
	closeOnce               sync.Once
	mem                     *guestMemory // nil when wazero allocated the memory
}

func newInstance(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) (*instance, error) {
	// No start function runs: a fresh instance calls _initialize itself,
	// and one restored from a snapshot must not run it at all.
	var mem *guestMemory
	allocCtx := experimental.WithMemoryAllocator(ctx, memoryAllocator(func(m *guestMemory) { mem = m }))
	mod, err := rt.InstantiateModule(allocCtx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		if mem != nil { // wazero does not free what a failed instantiation allocated
			mem.Free()
		}
		return nil, fmt.Errorf("host: instantiate guest: %w", err)
	}
	in := &instance{
		mem:   mem,
		mod:   mod,
		alloc: mod.ExportedFunction(abi.ExportAlloc),
		free:  mod.ExportedFunction(abi.ExportFree),
		init:  mod.ExportedFunction(abi.ExportInit),
		call:  mod.ExportedFunction(abi.ExportCall),
	}
	if in.alloc == nil || in.free == nil || in.init == nil || in.call == nil || mod.Memory() == nil {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("host: guest lacks a required export")
	}
	return in, nil
}

// initRuntime runs libc's constructors and creates the JS runtime with the
// prelude: the slow path that snapshots exist to skip.
func (in *instance) initRuntime(ctx context.Context, prelude []byte) error {
	if in.mod.IsClosed() || !in.mem.hold() {
		return sandbox.ErrClosed
	}
	defer in.mem.unhold()
	// What the guest logs here is why its init failed, if it does.
	var logged []string
	inv := &invocation{limits: sandbox.Limits{LogBytes: 64 << 10}, caps: sandbox.Capabilities{
		Log: sandbox.LogFunc(func(_ context.Context, e sandbox.LogEntry) error {
			logged = append(logged, e.Text)
			return nil
		}),
	}}
	ctx = withInvocation(ctx, inv)
	if fn := in.mod.ExportedFunction(abi.ExportInitialize); fn != nil {
		if _, err := fn.Call(ctx); err != nil {
			return fmt.Errorf("host: guest _initialize: %w", err)
		}
	}
	// QuickJS's parser reads one byte past the source and wants a NUL
	// there; without it, the prelude failed or not depending on what the
	// allocator had left in the next byte.
	ptr, err := in.write(ctx, append(slices.Clip(prelude), 0))
	if err != nil {
		return err
	}
	defer in.release(ctx, ptr)
	res, err := in.init.Call(ctx, uint64(ptr), uint64(len(prelude)))
	if err != nil {
		return fmt.Errorf("host: guest init: %w", err)
	}
	if api.DecodeI32(res[0]) != 0 {
		return fmt.Errorf("host: guest init failed to create the runtime or evaluate the prelude: %s", strings.Join(logged, "; "))
	}
	fn := in.mod.ExportedFunction(abi.ExportInbox)
	if fn == nil {
		return errors.New("host: guest lacks " + abi.ExportInbox)
	}
	res, err = fn.Call(ctx)
	if err != nil {
		return fmt.Errorf("host: guest inbox: %w", err)
	}
	in.inbox, in.inboxCap = uint32(res[0]>>32), uint32(res[0])
	return nil
}

// write copies b into memory the guest allocates for it.
func (in *instance) write(ctx context.Context, b []byte) (uint32, error) {
	res, err := in.alloc.Call(ctx, uint64(len(b)))
	if err != nil {
		return 0, fmt.Errorf("host: guest alloc: %w", err)
	}
	ptr := uint32(res[0])
	if ptr == 0 {
		return 0, sandbox.ErrOutOfMemory
	}
	if !in.mod.Memory().Write(ptr, b) {
		return 0, fmt.Errorf("%w: guest alloc returned an out-of-bounds pointer", sandbox.ErrTrap)
	}
	return ptr, nil
}

func (in *instance) release(ctx context.Context, ptr uint32) {
	_, _ = in.free.Call(ctx, uint64(ptr))
}

// invoke sends one Call and decodes the Result. Any failure that leaves the
// guest in an unknown state marks the instance broken.
func (in *instance) invoke(ctx context.Context, inv *invocation, c abi.Call) (abi.Result, error) {
	if in.mod.IsClosed() || !in.mem.hold() {
		in.broken = true
		return abi.Result{}, sandbox.ErrClosed
	}
	defer in.mem.unhold()
	msg, err := json.Marshal(c)
	if err != nil {
		return abi.Result{}, fmt.Errorf("host: encode call: %w", err)
	}
	ctx = withInvocation(ctx, inv)
	// The message goes in the inbox when it fits; otherwise in memory the
	// guest allocates and, once called, owns.
	ptr := in.inbox
	if uint32(len(msg)) > in.inboxCap || !in.mod.Memory().Write(ptr, msg) {
		if ptr, err = in.write(ctx, msg); err != nil {
			in.broken = true
			return abi.Result{}, in.classify(ctx, inv, err)
		}
	}
	res, err := in.call.Call(ctx, uint64(ptr), uint64(len(msg)))
	if err != nil {
		in.broken = true
		return abi.Result{}, in.classify(ctx, inv, err)
	}
	packed := res[0]
	rptr, rlen := uint32(packed>>32), uint32(packed)
	if packed == 0 {
		in.broken = true
		return abi.Result{}, sandbox.ErrOutOfMemory
	}
	if rlen > abi.MaxResultBytes {
		in.broken = true
		return abi.Result{}, fmt.Errorf("%w: result of %d bytes is over the limit", sandbox.ErrTrap, rlen)
	}
	view, ok := in.mod.Memory().Read(rptr, rlen)
	if !ok {
		in.broken = true
		return abi.Result{}, fmt.Errorf("%w: result pointer out of bounds", sandbox.ErrTrap)
	}
	// Invalid UTF-8 (a lone surrogate in an error message, say) is
	// replaced rather than failing the whole result.
	body := bytes.ToValidUTF8(view, []byte("\uFFFD")) // a copy; the guest frees its result on the next call
	r, err := abi.DecodeResult(body)
	if err != nil {
		in.broken = true
		return abi.Result{}, fmt.Errorf("%w: %v", sandbox.ErrTrap, err)
	}
	if r.Unsettled {
		in.broken = true
	}
	if r.Uncatchable {
		in.broken = true
		return r, in.classifyGuest(ctx, inv, r.Error)
	}
	if r.Error != nil && (isInterrupted(r.Error) && inv.pastDeadline(ctx) || inv.timedOut) {
		// The interrupt is uncatchable in JavaScript, but an async function
		// still turns it into a rejection that reaches the prelude; and a
		// host function that refused to go past the deadline (a sleep, a
		// crypto op) threw an error that the call did not survive.
		in.broken = true
		return r, sandbox.ErrTimeout
	}
	if r.Error != nil && isOutOfMemory(r.Error) {
		// The component caught nothing here: the allocation failure reached
		// the prelude. The heap may be fragmented past use; start afresh.
		in.broken = true
		return r, fmt.Errorf("%w: %s", sandbox.ErrOutOfMemory, r.Error.Message)
	}
	return r, nil
}

func isInterrupted(e *abi.GuestError) bool {
	return e.Name == "InternalError" && e.Message == "interrupted"
}

func isOutOfMemory(e *abi.GuestError) bool {
	return e.Name == "InternalError" && e.Message == "out of memory"
}

// classify maps a wazero call error to one of the package's errors. A trap
// after the deadline is the guest's regexp engine stopping itself (see
// guest/src/compat/regexp_interrupt.h), so it is a timeout.
func (in *instance) classify(ctx context.Context, inv *invocation, err error) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == sys.ExitCodeDeadlineExceeded || exit.ExitCode() == sys.ExitCodeContextCanceled) {
		return fmt.Errorf("%w: %v", sandbox.ErrTimeout, err)
	}
	if inv.pastDeadline(ctx) {
		return sandbox.ErrTimeout
	}
	if errors.Is(err, sandbox.ErrOutOfMemory) {
		return err
	}
	return fmt.Errorf("%w: %v", sandbox.ErrTrap, err)
}

// classifyGuest maps an error that escaped the prelude.
func (in *instance) classifyGuest(ctx context.Context, inv *invocation, e *abi.GuestError) error {
	switch {
	case inv.pastDeadline(ctx):
		return sandbox.ErrTimeout
	case e != nil && isOutOfMemory(e):
		return sandbox.ErrOutOfMemory
	case e != nil:
		return fmt.Errorf("%w: %s: %s", sandbox.ErrTrap, e.Name, e.Message)
	}
	return sandbox.ErrTrap
}

// memoryBytes is the current size of the instance's linear memory.
func (in *instance) memoryBytes() uint32 { return in.mod.Memory().Size() }

func (in *instance) close(ctx context.Context) {
	in.closeOnce.Do(func() {
		_ = in.mod.Close(ctx)
		if in.closed != nil {
			in.closed.Add(1)
		}
	})
}
