package main

import (
	"os"
	"testing"
)

// BenchmarkWorkflowLoad is BenchmarkLoad for a 3-step workflow triggered
// over HTTP: a code step that parses the body, an action whose prop is
// templated from it, and a step that calls $.send.emit. An execution
// counts once its emit arrives on the workflow's SSE stream, which
// publishes it after the execution's commit. Figures in
// docs/benchmarks.md.
func BenchmarkWorkflowLoad(b *testing.B) {
	deploy := func(s *server) (string, string) {
		st, body := s.do("POST", "/v1/workflows", map[string]any{
			"name": "load", "trigger": map[string]any{"type": "http"},
			"steps": []any{
				step("parse", readFixture(b, "parse.mjs"), nil),
				action("check", readFixture(b, "check.mjs"), map[string]any{"sent": "{{steps.parse.$return_value.sent}}"}),
				step("emit", readFixture(b, "emit.mjs"), nil),
			},
		})
		if st != 200 {
			b.Fatalf("deploy workflow: %d %v", st, body)
		}
		wf := data(body)
		return wf["trigger"].(map[string]any)["endpoint_url"].(string), "/v1/workflows/" + wf["id"].(string) + "/sse"
	}
	b.Run("max", func(b *testing.B) { // closed loop: as fast as it goes
		for b.Loop() {
			loadTarget(b, hammer, deploy).report(b)
		}
	})
	b.Run("at-2000", func(b *testing.B) { // open loop at the target rate
		for b.Loop() {
			loadTarget(b, func(url string) int64 { return paced(url, 2000) }, deploy).report(b)
		}
	})
}

// readFixture reads a step of testdata/workflows/bench.
func readFixture(b *testing.B, name string) string {
	code, err := os.ReadFile("../../testdata/workflows/bench/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(code)
}
