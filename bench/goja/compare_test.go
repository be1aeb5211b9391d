package goja

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
)

// The component of fount's BenchmarkWarmInvoke (internal/host/bench_test.go): one
// run() that emits one event with a summary.
const fountComponent = `export default {
  name: "bench", version: "1.0.0",
  props: { db: "$.service.db", limit: { type: "integer", default: 10 } },
  async run(event) { this.$emit({ n: event.n, limit: this.limit }, { id: String(event.n), summary: "one event" }) },
}`

// gojaComponent is the same run() for goja, which has no modules. The
// host of it does what fount's does: the event comes in as JSON and is
// parsed, the emit goes out as JSON, to be stored.
const gojaComponent = `
var component = {
  async run(event) { this.$emit({ n: event.n, limit: this.limit }, { id: String(event.n), summary: "one event" }) },
};
var self = { limit: 10, $emit: function (e, meta) { __emit(JSON.stringify(e), JSON.stringify(meta)) } };
function invoke(eventJSON) { return component.run.call(self, JSON.parse(eventJSON)) }
`

// BenchmarkWarmInvoke runs the same run() on a warm fount sandbox, on
// each engine of this build (built with -tags wasm2go, as make
// bench-compare does, both), and on a warm goja runtime, side by side.
// The target: fount's p50 at most twice goja's.
func BenchmarkWarmInvoke(b *testing.B) {
	event := `{"n":1}`
	for _, engine := range host.Engines() {
		b.Run("fount-"+engine, func(b *testing.B) { benchFount(b, engine, event) })
	}
	b.Run("goja", func(b *testing.B) {
		vm := goja.New()
		emitted := 0
		if err := vm.Set("__emit", func(e, meta string) { emitted++; _, _ = e, meta }); err != nil {
			b.Fatal(err)
		}
		if _, err := vm.RunString(gojaComponent); err != nil {
			b.Fatal(err)
		}
		invoke, ok := goja.AssertFunction(vm.Get("invoke"))
		if !ok {
			b.Fatal("no invoke function")
		}
		arg := vm.ToValue(event)
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			v, err := invoke(goja.Undefined(), arg)
			if err != nil {
				b.Fatal(err)
			}
			if p, ok := v.Export().(*goja.Promise); !ok || p.State() != goja.PromiseStateFulfilled {
				b.Fatalf("run did not settle: %v", v)
			}
			ds = append(ds, time.Since(start))
		}
		if emitted != len(ds) {
			b.Fatalf("%d emits for %d runs", emitted, len(ds))
		}
		reportP50(b, ds)
	})
}

// The Node figure: bench/node-vm/warm.js runs the same run() in one warm
// vm context and prints its own p50, as Node has no Go API.
func BenchmarkWarmInvokeNode(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatal("the node-vm comparison needs Node.js 20 or later on PATH (Debian: apt install nodejs)")
	}
	for b.Loop() {
		out, err := exec.Command(node, filepath.Join("..", "node-vm", "warm.js"), "20000").Output()
		if err != nil {
			b.Fatalf("node warm.js: %v", err)
		}
		var r struct {
			P50 float64 `json:"p50_ns"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.P50 <= 0 {
			b.Fatalf("node warm.js printed %q: %v", out, err)
		}
		b.ReportMetric(r.P50, "p50-ns/op")
	}
}

func reportP50(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns/op")
}

// benchFount runs run() on a warm fount sandbox of the engine.
func benchFount(b *testing.B, engine, event string) {
	ctx := context.Background()
	h, err := host.New(ctx, host.Config{Engine: engine})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	s, err := h.NewSource(ctx, sandbox.Spec{ID: "dc_bench", Code: fountComponent, Props: json.RawMessage(`{}`)})
	if err != nil {
		b.Fatal(err)
	}
	emitted := 0
	caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { emitted++; return nil })}
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := s.Run(ctx, json.RawMessage(event), caps); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	if emitted != len(ds) {
		b.Fatalf("%d emits for %d runs", emitted, len(ds))
	}
	reportP50(b, ds)
}
