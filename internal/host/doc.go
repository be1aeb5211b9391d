// Package host runs guest code under wazero, or, in builds with the
// wasm2go tag, as its translation to Go (package guestgo, Config.Engine).
// It compiles the guest once per process, creates instances per source,
// implements the fount ABI imports, and enforces memory, time and size
// limits.
//
// Instances are never shared across sources. The host knows nothing about
// HTTP, users or storage: callers hand it sandbox.Capabilities per
// invocation (an emit sink, a KV for db, an $auth provider, a respond
// sink, a log sink and an egress policy for fetch, off unless granted).
// Host and Source implement the engine's interfaces in package sandbox,
// whose types (requests, capabilities, errors) they use.
//
// # Use
//
//	h, err := host.New(ctx, host.Config{})          // compile once
//	meta, err := h.Introspect(ctx, code, "", nil)     // describe without deploying
//	src, err := h.NewSource(ctx, host.SourceSpec{...}) // load + snapshot
//	out, err := src.Run(ctx, event, caps)             // warm instance, or one from the snapshot
//
// # Errors
//
// An invocation fails with a *sandbox.ScriptError when component code
// throws (the instance stays warm), or with sandbox.ErrTimeout,
// sandbox.ErrOutOfMemory or sandbox.ErrTrap (the instance is discarded,
// the source keeps serving from its snapshot).
//
// # Rationale
//
// Interrupts. A runaway guest must stop at its deadline. The guest polls
// the host's `interrupted` import: QuickJS's interrupt handler every few
// thousand bytecodes (an uncatchable InternalError ends the call cleanly,
// with a JS stack), and the regexp engine every 4096 backtracks (it traps;
// see guest/src/compat/regexp_interrupt.h). Polling from the C code alone
// is not enough: built-ins that loop in C without reaching the poll
// (Array.prototype.includes on an array-like of length 2**40, found in
// review) would run on for hours. So before compiling, the host rewrites
// the guest (package interrupt): every loop counts down a global and calls
// `interrupted` every pollEvery iterations, trapping when it answers 1.
// That replaced wazero's WithCloseOnContextDone, which cost 4-7 times on
// loop-heavy JavaScript and half of a warm call (an indirect call at every
// loop header, a goroutine per call); the rewrite costs about a quarter on
// the same loop (BenchmarkInterruptCost, docs/benchmarks.md). Each poll is
// also a return to Go, which compiled wasm otherwise never makes inside a
// loop, so a long C loop no longer holds up a garbage collection's
// stop-the-world. Host functions that block (sleep, fetch) honour the
// invocation's context themselves.
//
// Engines. The wasm2go engine (engine_wasm2go.go) runs the same
// instrumented guest translated to Go: the same imports, snapshots and
// instance code, behind an adapter of the few wazero interfaces the host
// calls. Its memory cap and its bound on call depth are patched into the
// translation (package guestgo); a trap is a Go panic, recovered per call.
//
// Snapshots. Creating a QuickJS runtime and context, evaluating the prelude
// and loading a component takes milliseconds; copying memory takes a
// fraction of one. After load, the pages of linear memory that differ from
// a freshly instantiated module are kept per source, and new instances are
// instantiated from the compiled module with those pages written back. The
// guest's only mutable global is the shadow stack pointer, at its initial
// value between calls, so memory is the whole state (abi/ABI.md,
// "Snapshots"). Snapshots hold configured props, secrets included: they
// stay in process memory, but for idle sources' packed snapshots with
// Config.SpillDir, which go to files sealed with a key that only this
// process holds (see spill).
//
// Memory. On Linux the host maps each instance's linear memory itself
// (guestMemory): the maximum is reserved as address space, so growing
// never copies, untouched pages (most of the 1 MiB shadow stack) cost
// nothing, and closing an instance unmaps its memory at once rather than
// leave it to the garbage collector. Unmapped memory crashes whoever
// touches it, so every use holds the memory, and a free (wazero frees on
// close, even mid-call when the runtime closes) waits for the last hold.
//
// Compilation. The guest is compiled once with CompileModule and every
// instance is instantiated from the compiled module (instantiating from
// bytes would evict it from wazero's in-memory cache, wazero issue #2197).
// Config.CacheDir adds wazero's on-disk cache so a restart skips the ~0.5 s
// compile.
//
// Encoding. Messages across the boundary are JSON: the guest already has a
// fast, correct JSON codec (QuickJS's), events are JSON anyway, and a
// reviewer can read every message. Replies use a two-step length/take
// protocol so the host never calls back into the guest from a host
// function.
//
// Syntax errors. QuickJS 2021-03-27 reports only a line for a syntax
// error; esbuild, which fount uses for bundling anyway, reports line and
// column and tells ES modules from CommonJS, so introspection parses with
// it first (through Config.Analyzer) and records the format, which later
// loads reuse. esbuild's parser recurses without bound, so a server runs
// it in a worker process (cmd/fount's processAnalyzer): deeply nested
// code kills the worker, never the server.
package host
