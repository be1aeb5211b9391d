package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Figures from these benchmarks are recorded in docs/benchmarks.md with the
// command that reproduces them. Per-iteration timings are collected so that
// medians (p50) can be reported next to Go's mean ns/op.

const benchComponent = `export default {
  name: "bench", version: "1.0.0",
  props: { db: "$.service.db", limit: { type: "integer", default: 10 } },
  async run(event) { this.$emit({ n: event.n, limit: this.limit }, { id: String(event.n), summary: "one event" }) },
}`

// reportP50 records the median of ds as p50-ns/op.
func reportP50(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns/op")
}

func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
		if _, err := rt.CompileModule(ctx, guest.Wasm); err != nil {
			b.Fatal(err)
		}
		_ = rt.Close(ctx)
	}
}

// BenchmarkNewInstance compares, in one run, an instance restored from a
// source's snapshot, from an idle source's packed snapshot, and one built
// from scratch (runtime, prelude and component initialised).
func BenchmarkNewInstance(b *testing.B) {
	ctx := context.Background()
	h := newTestHost(b)
	s := deploy(b, h, benchComponent, `{}`)
	load := abi.Call{Op: abi.OpLoad, Code: benchComponent, Props: json.RawMessage(`{}`)}

	b.Run("snapshot", func(b *testing.B) { benchRestore(b, h, s.snap) })
	b.Run("snapshot-packed", func(b *testing.B) { // an idle source's: unpacked first
		packed := deploy(b, h, benchComponent, `{}`)
		packed.snap.pack()
		benchRestore(b, h, packed.snap)
	})
	b.Run("snapshot-spilled", func(b *testing.B) { // an idle source's with SpillDir: read, opened, unpacked
		sp, err := newSpill(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer sp.close()
		spilled := deploy(b, h, benchComponent, `{}`)
		spilled.snap.pack()
		spilled.snap.spillTo(sp)
		if spilled.snap.held() != 0 {
			b.Fatal("the snapshot did not spill")
		}
		benchRestore(b, h, spilled.snap)
	})
	b.Run("fresh", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			in, err := h.freshInstance(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.invokeOnce(ctx, in, load, h.cfg.Limits, sandbox.Capabilities{}); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
			in.close(ctx)
		}
		reportP50(b, ds)
	})
}

// benchRestore reports the p50 of creating an instance from snap.
func benchRestore(b *testing.B, h *Host, snap *snapshot) {
	ctx := context.Background()
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		in, err := h.fromSnapshot(ctx, snap)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		in.close(ctx)
	}
	reportP50(b, ds)
}

// BenchmarkWarmInvoke is one run() that emits one event, on a warm instance.
func BenchmarkWarmInvoke(b *testing.B) {
	ctx := context.Background()
	h := newTestHost(b)
	s := deploy(b, h, benchComponent, `{}`)
	caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
	event := json.RawMessage(`{"n":1}`)
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := s.Run(ctx, event, caps); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportP50(b, ds)
}

// BenchmarkWarmInvokeShapes splits the warm call's cost by what run()
// does: nothing, sync or async, one emit or ten.
func BenchmarkWarmInvokeShapes(b *testing.B) {
	ctx := context.Background()
	h := newTestHost(b)
	for _, tc := range []struct{ name, code string }{
		{"sync-empty", src(`run() {}`)},
		{"async-empty", src(`async run() {}`)},
		{"sync-emit", src(`run(e) { this.$emit({ n: e.n }, { id: "1", summary: "x" }) }`)},
		{"async-emit", benchComponent},
		{"sync-emit-10", src(`run(e) { for (let i = 0; i < 10; i++) this.$emit({ n: e.n }, { id: String(i), summary: "x" }) }`)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := deploy(b, h, tc.code, `{}`)
			emitted := 0
			caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { emitted++; return nil })}
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := s.Run(ctx, json.RawMessage(`{"n":1}`), caps); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			if strings.Contains(tc.name, "emit") && emitted < len(ds) {
				b.Fatalf("%d emits for %d runs", emitted, len(ds))
			}
			reportP50(b, ds)
		})
	}
}

// BenchmarkIdleMemory reports the linear memory of a warm, idle instance
// and the bytes its snapshot keeps, for a component that names none of
// the web globals and for one that does (the host then sends web.js).
func BenchmarkIdleMemory(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchIdleMemory(b, benchComponent) })
	b.Run("web-globals", func(b *testing.B) { benchIdleMemory(b, "// uses URL\n"+benchComponent) })
}

func benchIdleMemory(b *testing.B, code string) {
	ctx := context.Background()
	h := newTestHost(b)
	s := deploy(b, h, code, `{}`)
	caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
	for b.Loop() {
		if _, err := s.Run(ctx, json.RawMessage(`{"n":1}`), caps); err != nil {
			b.Fatal(err)
		}
	}
	in, err := s.acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(in.memoryBytes()), "idle-memory-bytes")
	b.ReportMetric(float64(s.snap.bytes), "snapshot-bytes")
	s.release(ctx, in)
}

// BenchmarkInterruptCost runs loop-heavy JavaScript under each interrupt
// scheme side by side: the guest's own polling alone (unsafe, the floor),
// loops that poll the host (the default), and wazero's close-on-context-done
// (what fount used before).
func BenchmarkInterruptCost(b *testing.B) {
	ctx := context.Background()
	const loop = `export default { name: "loop", version: "1", run() {
		let x = 0; for (let i = 0; i < 200000; i++) { x = (x + i * 7) % 1000003 } return x } }`
	for _, tc := range []struct {
		name   string
		scheme interruptScheme
	}{{"guest-polling", interruptGuestOnly}, {"loops-poll", interruptLoops}, {"wazero-close", interruptWazero}} {
		b.Run(tc.name, func(b *testing.B) {
			h, err := New(ctx, Config{interrupts: tc.scheme})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(ctx)
			s := deploy(b, h, loop, `{}`)
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := s.Run(ctx, nil, sandbox.Capabilities{}); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			reportP50(b, ds)
		})
	}
}

// BenchmarkIdleSources deploys sources, runs each once, lets the idle ones
// be packed, and reports the resident memory each then holds: 1,000 with
// every source's warm instance kept (MaxWarm 0, as before the bound) and
// with at most 64 kept, then 1,000, 5,000 and 10,000 under the server's
// default bound, with idle snapshots in memory and spilled to files (as
// fount serve does).
func BenchmarkIdleSources(b *testing.B) {
	for _, tt := range []struct {
		sources, maxWarm int
		spill            bool
	}{
		{1000, 0, false}, {1000, 64, false}, {1000, 256, false}, {5000, 256, false}, {10000, 256, false},
		{1000, 256, true}, {5000, 256, true}, {10000, 256, true},
	} {
		sources, maxWarm := tt.sources, tt.maxWarm
		name := fmt.Sprintf("sources=%d/max-warm=%d", sources, maxWarm)
		if tt.spill {
			name += "/spill"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
			for b.Loop() {
				cfg := Config{MaxWarm: maxWarm, Engine: testEngine}
				if tt.spill {
					cfg.SpillDir = b.TempDir()
				}
				h, err := New(ctx, cfg)
				if err != nil {
					b.Fatal(err)
				}
				debug.FreeOSMemory()
				before, beforePSS := residentBytes(b), proportionalBytes(b)
				for range sources {
					s := deploy(b, h, benchComponent, `{}`)
					if _, err := s.Run(ctx, json.RawMessage(`{"n":1}`), caps); err != nil {
						b.Fatal(err)
					}
				}
				// The evict loop's next tick, as if packAfter had passed: the
				// sources without a warm instance get their snapshots packed.
				h.EvictIdle(time.Now().Add(2 * packAfter))
				debug.FreeOSMemory()
				b.ReportMetric(float64(residentBytes(b)-before)/float64(sources)/1024, "KiB/source")
				b.ReportMetric(float64(proportionalBytes(b)-beforePSS)/float64(sources)/1024, "KiB/source-pss")
				_, _, live := h.Stats()
				b.ReportMetric(float64(live), "live-instances")
				_ = h.Close(ctx)
			}
		})
	}
}

// residentBytes is the process's resident set size, from /proc.
func residentBytes(b *testing.B) int64 { return procMemory(b, "/proc/self/status", "VmRSS:") }

// proportionalBytes is the process's PSS: resident pages, a page shared
// with others counted in proportion. A wasm2go instance maps the base
// image copy-on-write, and RSS counts the image's pages in every instance
// that touched them; PSS once.
func proportionalBytes(b *testing.B) int64 { return procMemory(b, "/proc/self/smaps_rollup", "Pss:") }

// procMemory reads the figure in kB after key in a /proc file.
func procMemory(b *testing.B, file, key string) int64 {
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatalf("no %s (the benchmark reads Linux's): %v", file, err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in %s", key, file)
	return 0
}
