package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// loadStep loads code as a workflow step with props.
func loadStep(t *testing.T, code, props string) (*Source, error) {
	t.Helper()
	s, err := newTestHost(t).NewSource(context.Background(), sandbox.Spec{ID: "p_test", Code: code, Props: json.RawMessage(props), Step: true})
	if err == nil {
		t.Cleanup(func() { s.Close(context.Background()) })
	}
	return s, err
}

func TestWorkflowSteps(t *testing.T) {
	t.Parallel()
	steps := `{"trigger":{"event":{"body":{"n":2,"who":"ada"}}},"parse":{"$return_value":{"n":2}}}`
	tests := []struct {
		name      string
		code      string
		props     string
		templates string
		check     func(t *testing.T, out *sandbox.Outcome, err error)
	}{
		{name: "defineComponent code step", code: `export default defineComponent({ async run({ steps, $ }) { $.export("$summary", "ok"); return steps.trigger.event.body.n * 2 } })`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || string(out.Value) != "4" || string(out.Exports["$summary"]) != `"ok"` {
					t.Fatalf("err=%v out=%+v", err, out)
				}
			}},
		{name: "a plain object step with no name or version", code: `module.exports = { run({ steps }) { return Object.keys(steps) } }`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || string(out.Value) != `["trigger","parse"]` {
					t.Fatalf("err=%v out=%+v", err, out)
				}
			}},
		{name: "templated props", code: `export default { type: "action", props: { n: { type: "integer" }, greeting: { type: "string" }, fixed: { type: "string" } },
			run() { return [this.n, this.greeting, this.fixed] } }`,
			props:     `{"fixed":"as configured"}`,
			templates: `{"n":"{{steps.parse.$return_value.n}}","greeting":"hello {{steps.trigger.event.body.who}}, n={{steps.parse.$return_value}}"}`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || string(out.Value) != `[2,"hello ada, n={\"n\":2}","as configured"]` {
					t.Fatalf("err=%v value=%s", err, out.Value)
				}
			}},
		{name: "a failing expression names its prop", code: `export default { props: { x: { type: "string" } }, run() {} }`,
			templates: `{"x":"{{steps.nope.$return_value.x}}"}`,
			check: func(t *testing.T, _ *sandbox.Outcome, err error) {
				if err == nil || !strings.Contains(err.Error(), "prop x") || !strings.Contains(err.Error(), "steps.nope") {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "send.http and send.sse are returned", code: `export default { run({ $ }) {
				$.send.http({ url: "http://example.test/in", data: { a: 1 }, params: { q: "x y" }, headers: { "X-K": 1 } });
				$.send.sse({ channel: "news", payload: { b: 2 } });
			} }`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || len(out.Sends) != 2 {
					t.Fatalf("err=%v sends=%+v", err, out)
				}
				h, s := out.Sends[0], out.Sends[1]
				if h.Kind != abi.SendHTTP || h.Method != "POST" || h.URL != "http://example.test/in?q=x%20y" || h.Body != `{"a":1}` || h.Headers["X-K"] != "1" {
					t.Errorf("http send = %+v", h)
				}
				if s.Kind != abi.SendSSE || s.Channel != "news" || string(s.Payload) != `{"b":2}` {
					t.Errorf("sse send = %+v", s)
				}
			}},
		{name: "flow exit keeps exports", code: `export default { run({ $ }) { $.export("k", 1); return $.flow.exit("done early") } }`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || out.Exit == nil || *out.Exit != "done early" || string(out.Exports["k"]) != "1" {
					t.Fatalf("err=%v out=%+v", err, out)
				}
			}},
		{name: "send.s3 is a send", code: `export default { run({ $ }) { $.send.s3({ bucket: "b", prefix: "logs/", payload: { n: 1 } }) } }`,
			check: func(t *testing.T, out *sandbox.Outcome, err error) {
				if err != nil || len(out.Sends) != 1 || out.Sends[0].Kind != "s3" || out.Sends[0].Bucket != "b" || out.Sends[0].Prefix != "logs/" || string(out.Sends[0].Payload) != `{"n":1}` {
					t.Fatalf("err=%v out=%+v", err, out)
				}
			}},
		{name: "send.s3 refuses a prefix that climbs", code: `export default { run({ $ }) { $.send.s3({ prefix: "a/../b", payload: 1 }) } }`,
			check: func(t *testing.T, _ *sandbox.Outcome, err error) {
				if err == nil || !strings.Contains(err.Error(), "no empty, . or .. segment") {
					t.Fatalf("err = %v", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			props := tt.props
			if props == "" {
				props = "{}"
			}
			s, err := loadStep(t, tt.code, props)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			ev := `{"steps":` + steps
			if tt.templates != "" {
				ev += `,"templates":` + tt.templates
			}
			ev += "}"
			out, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpRun, Event: json.RawMessage(ev)}, newRecorder().caps())
			tt.check(t, out, err)
		})
	}
}

func TestStepRefusesSource(t *testing.T) {
	t.Parallel()
	_, err := loadStep(t, `export default { name: "s", version: "1", type: "source", run() {} }`, "{}")
	if err == nil || !strings.Contains(err.Error(), "is a source") {
		t.Fatalf("err = %v", err)
	}
	// Outside a step, $.send.http stays unavailable.
	s := deploy(t, newTestHost(t), `export default { name: "a", version: "1", type: "action", run({ $ }) { $.send.http({ url: "http://x.test" }) } }`, "{}")
	_, err = s.Run(context.Background(), json.RawMessage(`{}`), newRecorder().caps())
	if err == nil || !strings.Contains(err.Error(), "only available in workflow steps") {
		t.Fatalf("err = %v", err)
	}
}
