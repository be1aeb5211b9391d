package host

import (
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/sandbox"
)

// Default limits, used for every zero field of sandbox.Limits.
const (
	DefaultMemory       = 64 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultEmitBytes    = 4 << 20
	DefaultLogBytes     = 256 << 10
	DefaultRespondBytes = 1 << 20
	DefaultDBBytes      = 8 << 20
)

// Config configures a Host. The zero value is usable.
type Config struct {
	// CacheDir, when set, keeps wazero's compiled code on disk so that a
	// restarted process skips compiling the guest.
	CacheDir string
	// MaxMemory caps each instance's wasm linear memory in bytes (rounded
	// down to 64 KiB pages). Default 64 MiB plus room for the runtime.
	MaxMemory int64
	// Limits are the per-invocation defaults.
	Limits sandbox.Limits
	// IdleTimeout is how long a warm instance may sit unused before it is
	// evicted. Default 5 minutes.
	IdleTimeout time.Duration
	// MaxIdle is how many warm instances a source keeps. Default 1.
	MaxIdle int
	// MaxWarm bounds the warm instances of all sources together: past it
	// the least recently used are closed (down to nine tenths of it), and
	// their sources restore from their snapshots when next invoked. An
	// instance holds its linear memory, a MiB or more; a snapshot a few
	// hundred KiB. 0: no bound but IdleTimeout.
	MaxWarm int
	// SpillDir is where idle sources' packed snapshots go, each sealed with
	// a key that lives only in this process (see spill), in a folder of
	// their own made inside it and removed on Close. Empty: they stay in
	// memory. A cold invocation of such a source reads its file back. The
	// folder must belong to this host alone: New removes the folders that
	// earlier hosts left in it (fount serve gives <data-dir>/spill, which
	// the store's lock keeps to one server). The files take at most
	// spillBudget bytes; past it, snapshots stay in memory.
	SpillDir string
	// Engine runs the guest: EngineWazero compiles it with wazero;
	// EngineWasm2go runs its translation to Go (package guestgo), in
	// builds with the wasm2go tag only. Default: DefaultEngine().
	Engine string
	// callDepth bounds the guest's calls in progress on the wasm2go
	// engine (0: defaultCallDepth); tests lower it to reach it.
	callDepth int32
	// interrupts is how a call is stopped at its deadline. Only benchmarks
	// choose other than the default, to measure the difference.
	interrupts interruptScheme
	// Analyzer parses component code before the sandbox loads it (for the
	// line and column of a syntax error, and the module format). Default:
	// InProcess, esbuild in this process. esbuild's parser recurses without
	// bound, so deeply nested code from an untrusted tenant overflows the
	// Go stack, which kills the process: a server must give an Analyzer
	// that runs it in a process of its own (cmd/fount does).
	Analyzer Analyzer
}

// DefaultEngine is the faster engine this build has: wasm2go in builds
// with the wasm2go tag (make build), wazero in others (docs/design.md,
// "The engine under the guest").
func DefaultEngine() string {
	if wasm2goBuilt {
		return EngineWasm2go
	}
	return EngineWazero
}

// Engines lists the engines this build can run the guest on: wazero
// always, wasm2go in builds with the wasm2go tag.
func Engines() []string {
	if wasm2goBuilt {
		return []string{EngineWazero, EngineWasm2go}
	}
	return []string{EngineWazero}
}

// defaultCallDepth bounds the wasm2go engine's guest calls in progress
// (a wasm call is a Go call there). QuickJS's own checks, on its shadow
// stack in linear memory, end a script's recursion with a catchable error
// before it: a recursive function at about 3,000 calls deep, the parser
// of 10^6 nested brackets at under 50,000, where it holds about 8 MiB of
// goroutine stack. The bound is for C code that recurses without using
// the shadow stack, so that no guest ever reaches the goroutine stack's
// limit, which kills the process; at this depth a call holds some tens of
// MiB of stack at most.
const defaultCallDepth = 100_000

// The engines that can run the guest (Config.Engine).
const (
	EngineWazero  = "wazero"
	EngineWasm2go = "wasm2go"
)

const (
	wasmPage = 64 << 10
	// runtimeHeadroom is linear memory beyond the JS heap limit: the shadow
	// stack, static data and allocator slack.
	runtimeHeadroom = 8 << 20
)

func (c Config) withDefaults() (Config, error) {
	c.Limits = c.Limits.WithDefaults(sandbox.Limits{
		Memory:       DefaultMemory,
		Timeout:      DefaultTimeout,
		EmitBytes:    DefaultEmitBytes,
		LogBytes:     DefaultLogBytes,
		RespondBytes: DefaultRespondBytes,
		DBBytes:      DefaultDBBytes,
	})
	if c.MaxMemory <= 0 {
		c.MaxMemory = c.Limits.Memory + runtimeHeadroom
	}
	if c.MaxMemory < 4<<20 {
		return c, fmt.Errorf("host: MaxMemory %d is under the 4 MiB the runtime needs", c.MaxMemory)
	}
	if c.MaxMemory > 4<<30-wasmPage {
		return c, fmt.Errorf("host: MaxMemory %d is over the 4 GiB wasm32 address space", c.MaxMemory)
	}
	switch c.Engine {
	case "":
		c.Engine = DefaultEngine()
		if c.interrupts != interruptLoops { // benchmarks of wazero's other schemes
			c.Engine = EngineWazero
		}
	case EngineWazero:
	case EngineWasm2go:
		if !wasm2goBuilt {
			return c, fmt.Errorf("host: engine %q is not in this build: run make guest-go and build with -tags wasm2go", c.Engine)
		}
		if c.interrupts != interruptLoops {
			return c, fmt.Errorf("host: engine %q stops calls by the loops' polls only", c.Engine)
		}
	default:
		return c, fmt.Errorf("host: unknown engine %q (want %q or %q)", c.Engine, EngineWazero, EngineWasm2go)
	}
	if c.callDepth <= 0 {
		c.callDepth = defaultCallDepth
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 5 * time.Minute
	}
	if c.MaxIdle <= 0 {
		c.MaxIdle = 1
	}
	if c.Analyzer == nil {
		c.Analyzer = InProcess{}
	}
	return c, nil
}

// interruptScheme is a way to stop a guest call at its deadline.
type interruptScheme int

const (
	// interruptLoops: every loop of the guest polls the host every
	// pollEvery iterations (package interrupt). The default.
	interruptLoops interruptScheme = iota
	// interruptWazero: wazero's close-on-context-done, an indirect call at
	// every loop header and a goroutine per call; what fount used before.
	interruptWazero
	// interruptGuestOnly: QuickJS's interrupt handler and the regexp
	// engine's hook alone. A built-in that loops in C without polling
	// (Array.prototype.includes on a huge array-like object) then runs past
	// its deadline: never for untrusted code.
	interruptGuestOnly
)
