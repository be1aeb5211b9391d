// Package wasm2go measures the guest run by wazero (what the host does)
// beside the same guest translated to Go by wasm2go, in its safe and its
// -unsafe form: the same instrumented module, the same calls, behind the
// same minimal host (the ABI's imports answering nothing). It is a
// module of its own, like bench/goja, so that neither wasm2go's output
// nor its build cost is fount's; `make bench-wasm2go` makes the
// translations and runs it. TestEnginesAgree checks that the engines
// answer alike before they are timed.
package wasm2go

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/bench/wasm2go/guestgo"
	"github.com/fount-dev/fount/bench/wasm2go/guestgou"
	"github.com/fount-dev/fount/guest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// engine is one way of running the guest: the same exports, called with
// the same messages, behind the same minimal host.
type engine interface {
	initialize()
	alloc(n uint32) uint32
	init(ptr, n uint32) int32
	inbox() uint64
	call(ptr, n uint32) uint64
	mem() []byte
}

// ---- wasm2go: the Module's exports are methods, its imports interfaces ----

// goModule is a translation's Module: both translations have these
// methods (Memory is an alias of the same interface type in each).
type goModule interface {
	X_initialize()
	Xfount_alloc(int32) int32
	Xfount_init(int32, int32) int32
	Xfount_inbox() int64
	Xfount_call(int32, int32) int64
	Xmemory() guestgo.Memory
}

type goEngine struct{ m goModule }

// goHost is the imports of either translation; New hands it the Module
// (Init) before anything runs.
type goHost struct{ m goModule }

func (h *goHost) Init(m any)  { h.m = m.(goModule) }
func (h *goHost) mem() []byte { return *h.m.Xmemory().Slice() }

func (goHost) Xauth(int32, int32) int32                 { return -1 }
func (goHost) Xcompress(int32, int32) int32             { return -1 }
func (goHost) Xcrypto(int32, int32) int32               { return -1 }
func (goHost) Xdb_get(int32, int32) int32               { return -1 }
func (goHost) Xdb_set(int32, int32, int32, int32) int32 { return -1 }
func (goHost) Xemit(int32, int32) int32                 { return 0 }
func (goHost) Xfetch(int32, int32) int32                { return -1 }
func (goHost) Xinterrupted() int32                      { return 0 }
func (goHost) Xlog(int32, int32, int32) int32           { return 0 }
func (goHost) Xnet(int32, int32) int32                  { return -1 }
func (goHost) Xrespond(int32, int32) int32              { return -1 }
func (goHost) Xsleep(int32) int32                       { return -1 }
func (goHost) Xstore(int32, int32) int32                { return -1 }
func (goHost) Xtake(int32, int32) int32                 { return -1 }
func (goHost) Xtz(int32, int32) int32                   { return -1 }

func (h *goHost) Xclock_time_get(id int32, _ int64, ptr int32) int32 {
	binary.LittleEndian.PutUint64(h.mem()[ptr:], uint64(time.Now().UnixNano()))
	return 0
}

func (h *goHost) Xrandom_get(ptr, n int32) int32 {
	rand.Read(h.mem()[ptr : ptr+n])
	return 0
}

func newGo() engine {
	h := &goHost{}
	return &goEngine{guestgo.New(h, h)}
}

func newGoUnsafe() engine {
	h := &goHost{}
	return &goEngine{guestgou.New(h, h)}
}

func (e *goEngine) initialize()             { e.m.X_initialize() }
func (e *goEngine) alloc(n uint32) uint32   { return uint32(e.m.Xfount_alloc(int32(n))) }
func (e *goEngine) init(p, n uint32) int32  { return e.m.Xfount_init(int32(p), int32(n)) }
func (e *goEngine) inbox() uint64           { return uint64(e.m.Xfount_inbox()) }
func (e *goEngine) call(p, n uint32) uint64 { return uint64(e.m.Xfount_call(int32(p), int32(n))) }
func (e *goEngine) mem() []byte             { return *e.m.Xmemory().Slice() }

// ---- wazero: the compiler, as the host configures it ----

type wzEngine struct {
	mod                 api.Module
	ini, al, in, ib, cl api.Function
}

// newWazero compiles the guest once; each call of the function it returns
// instantiates it.
func newWazero(tb testing.TB, wasm []byte) func() engine {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	b := rt.NewHostModuleBuilder(abi.ImportModule)
	for _, name := range abi.HostFuncs {
		fn := api.GoModuleFunc(func(_ context.Context, m api.Module, stack []uint64) {
			switch name {
			case "emit", "interrupted", "log":
				stack[0] = 0
			default:
				stack[0] = api.EncodeI32(-1)
			}
		})
		var params []api.ValueType
		switch name {
		case "interrupted":
		case "sleep":
			params = []api.ValueType{api.ValueTypeI32}
		case "log":
			params = []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}
		case "db_set":
			params = []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}
		default:
			params = []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}
		}
		b = b.NewFunctionBuilder().WithGoModuleFunction(fn, params, []api.ValueType{api.ValueTypeI32}).Export(name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		tb.Fatal(err)
	}
	_, err := rt.NewHostModuleBuilder(abi.WASIModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, s []uint64) {
		m.Memory().WriteUint64Le(uint32(s[2]), uint64(time.Now().UnixNano()))
		s[0] = 0
	}), []api.ValueType{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).Export("clock_time_get").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, s []uint64) {
		buf, _ := m.Memory().Read(uint32(s[0]), uint32(s[1]))
		rand.Read(buf)
		s[0] = 0
	}), []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).Export("random_get").
		Instantiate(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		tb.Fatal(err)
	}
	return func() engine {
		mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		if err != nil {
			tb.Fatal(err)
		}
		return &wzEngine{mod: mod, ini: mod.ExportedFunction("_initialize"), al: mod.ExportedFunction(abi.ExportAlloc),
			in: mod.ExportedFunction(abi.ExportInit), ib: mod.ExportedFunction(abi.ExportInbox), cl: mod.ExportedFunction(abi.ExportCall)}
	}
}

func (e *wzEngine) one(f api.Function, args ...uint64) uint64 {
	r, err := f.Call(context.Background(), args...)
	if err != nil {
		panic(err)
	}
	if len(r) == 0 {
		return 0
	}
	return r[0]
}
func (e *wzEngine) initialize()             { e.one(e.ini) }
func (e *wzEngine) alloc(n uint32) uint32   { return uint32(e.one(e.al, uint64(n))) }
func (e *wzEngine) init(p, n uint32) int32  { return int32(e.one(e.in, uint64(p), uint64(n))) }
func (e *wzEngine) inbox() uint64           { return e.one(e.ib) }
func (e *wzEngine) call(p, n uint32) uint64 { return e.one(e.cl, uint64(p), uint64(n)) }
func (e *wzEngine) mem() []byte {
	b, _ := e.mod.Memory().Read(0, e.mod.Memory().Size())
	return b
}

// ---- the guest's protocol (abi/ABI.md): init with the prelude, then
// one Call through the inbox per operation ----

func boot(tb testing.TB, e engine) (inbox uint32) {
	e.initialize()
	prelude := append(slices.Clip(guest.Prelude), 0)
	p := e.alloc(uint32(len(prelude)))
	copy(e.mem()[p:], prelude)
	if rc := e.init(p, uint32(len(prelude)-1)); rc != 0 {
		tb.Fatalf("init: %d", rc)
	}
	return uint32(e.inbox() >> 32)
}

func send(tb testing.TB, e engine, inbox uint32, c abi.Call) []byte {
	msg, _ := json.Marshal(c)
	copy(e.mem()[inbox:], msg)
	packed := e.call(inbox, uint32(len(msg)))
	p, n := uint32(packed>>32), uint32(packed)
	return e.mem()[p : p+n]
}

func instrumented(tb testing.TB) []byte {
	b, err := os.ReadFile("instrumented.wasm")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// engineNames are the engines, wazero first: the others are compared
// with it.
var engineNames = []string{"wazero", "wasm2go", "wasm2go-unsafe"}

// engines makes each engine's constructor (compiling the guest for
// wazero once).
func engines(tb testing.TB) map[string]func() engine {
	wasm := instrumented(tb)
	return map[string]func() engine{
		"wazero":         newWazero(tb, wasm),
		"wasm2go":        newGo,
		"wasm2go-unsafe": newGoUnsafe,
	}
}

var components = []struct{ name, code string }{
	{"sync-empty", `export default { name: "t", version: "1.0.0", run() {} }`},
	{"sync-emit", `export default { name: "t", version: "1.0.0", run(e) { this.$emit({ n: e.n }, { id: "1", summary: "x" }) } }`},
	{"json-100", `const big = JSON.stringify(Array.from({length: 100}, (_, i) => ({ i, s: "x".repeat(20), a: [1,2,3] })));
export default { name: "t", version: "1.0.0", run() { return JSON.parse(big).length } }`},
	{"loop-1e5", `export default { name: "t", version: "1.0.0", run() { let s = 0; for (let i = 0; i < 100000; i++) s += i % 7; return s } }`},
}

func TestEnginesAgree(t *testing.T) {
	made := engines(t)
	for _, c := range components {
		got := map[string]string{}
		for _, name := range engineNames {
			e := made[name]()
			ib := boot(t, e)
			send(t, e, ib, abi.Call{Op: abi.OpLoad, Code: c.code, Filename: "component.mjs"})
			got[name] = string(send(t, e, ib, abi.Call{Op: abi.OpRun, Event: json.RawMessage(`{"n":1}`)}))
		}
		for _, name := range engineNames[1:] {
			if got[name] != got["wazero"] {
				t.Errorf("%s: wazero %s, %s %s", c.name, got["wazero"], name, got[name])
			}
		}
		t.Logf("%s: %s", c.name, got["wazero"])
	}
}

func BenchmarkInit(b *testing.B) {
	for _, name := range engineNames {
		b.Run(name, func(b *testing.B) {
			mk := engines(b)[name]
			var ds []time.Duration
			for b.Loop() {
				e := mk()
				start := time.Now()
				boot(b, e)
				ds = append(ds, time.Since(start))
			}
			report(b, ds)
		})
	}
}

func BenchmarkRun(b *testing.B) {
	for _, c := range components {
		for _, name := range engineNames {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				e := engines(b)[name]()
				ib := boot(b, e)
				send(b, e, ib, abi.Call{Op: abi.OpLoad, Code: c.code, Filename: "component.mjs"})
				run := abi.Call{Op: abi.OpRun, Event: json.RawMessage(`{"n":1}`)}
				var ds []time.Duration
				for b.Loop() {
					start := time.Now()
					send(b, e, ib, run)
					ds = append(ds, time.Since(start))
				}
				report(b, ds)
			})
		}
	}
}

func report(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns/op")
}
