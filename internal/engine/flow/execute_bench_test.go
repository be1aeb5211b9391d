package flow

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// BenchmarkWorkflowSteps measures, in one run, what a workflow's steps
// cost beyond the sandbox calls themselves: a 3-step execution
// (Runner.execute: the steps context, templates, the record; no commit),
// each of its steps invoked alone on a warm instance, and the host's
// warm-invoke component (host.BenchmarkWarmInvoke's), all on the real
// sandbox. Figures in docs/benchmarks.md.
func BenchmarkWorkflowSteps(b *testing.B) {
	ctx := context.Background()
	h, err := host.New(ctx, host.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	hs := newHarness(b, nil)
	hs.host.real = h
	e := hs.r
	read := func(name string) string {
		code, err := os.ReadFile("../../../testdata/workflows/bench/" + name)
		if err != nil {
			b.Fatal(err)
		}
		return string(code)
	}
	wf := model.Workflow{ID: "p_bench", Steps: []model.WorkflowStep{
		{Name: "parse", Kind: model.StepCode, Code: read("parse.mjs")},
		{Name: "check", Kind: model.StepAction, Code: read("check.mjs"), Props: map[string]json.RawMessage{"sent": json.RawMessage(`"{{steps.parse.$return_value.sent}}"`)}},
		{Name: "emit", Kind: model.StepCode, Code: read("emit.mjs")},
	}}
	lf, release, err := e.loadFlow(ctx, wf)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	event := json.RawMessage(`{"method":"POST","path":"/","query":{},"headers":{"content-type":"application/json","user-agent":"Go-http-client/1.1"},"body":{"sent":1700000000000000000}}`)

	b.Run("execute-3-steps", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			x, err := e.execute(ctx, lf, model.Invocation{ID: "1", TargetID: wf.ID, Kind: model.InvocationHTTP, Event: event}, nil)
			if err != nil || x.commit.Execution.Status != model.ExecutionSuccess {
				b.Fatalf("execute: %v %+v", err, x.commit.Execution)
			}
			ds = append(ds, time.Since(start))
		}
		reportP50(b, ds)
	})
	// Each step alone, with the steps context it gets in an execution.
	steps := &stepsContext{}
	steps.add("trigger", json.RawMessage(`{"event":`+string(event)+`,"context":{"id":"ex_1"}}`))
	steps.add("parse", json.RawMessage(`{"$return_value":{"sent":1700000000000000000}}`))
	steps.add("check", json.RawMessage(`{"$return_value":{"sent":1700000000000000000,"ok":true}}`))
	for i, step := range wf.Steps {
		b.Run("step-"+step.Name, func(b *testing.B) {
			ev := steps.event(lf.templatesJSON[i])
			caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := lf.boxes[i].Invoke(ctx, sandbox.Request{Op: abi.OpRun, Event: ev}, caps); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			reportP50(b, ds)
		})
	}
	b.Run("warm-invoke", func(b *testing.B) {
		src, err := h.Load(ctx, sandbox.Spec{ID: "dc_bench", Code: `export default { name: "bench", version: "1.0.0",
			props: { db: "$.service.db", limit: { type: "integer", default: 10 } },
			async run(event) { this.$emit({ n: event.n, limit: this.limit }, { id: String(event.n), summary: "one event" }) } }`, Props: json.RawMessage(`{}`)})
		if err != nil {
			b.Fatal(err)
		}
		defer src.Close(ctx)
		caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := src.Invoke(ctx, sandbox.Request{Op: abi.OpRun, Event: json.RawMessage(`{"n":1}`)}, caps); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		reportP50(b, ds)
	})
}

// reportP50 records the median of ds as p50-ns/op.
func reportP50(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns/op")
}
