package flow

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// flowSecret is the secret of a flow's URLs, as a step would draw it.
var flowSecret = strings.Repeat("s", abi.FlowSecretLen)

// farFuture is a time, in epoch ms, later than any test's clock.
const farFuture = int64(4102444800000) // 2100

// runEvent is what a step's run is given.
type runEvent struct {
	Steps     map[string]json.RawMessage `json:"steps"`
	Templates map[string]string          `json:"templates"`
	FlowURL   string                     `json:"flow_url"`
	Run       *struct {
		Runs            int             `json:"runs"`
		Context         json.RawMessage `json:"context"`
		CallbackRequest json.RawMessage `json:"callback_request"`
	} `json:"run"`
}

func decodeRun(t *testing.T, raw json.RawMessage) runEvent {
	t.Helper()
	var ev runEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("a step's event %s: %v", raw, err)
	}
	return ev
}

// seen is a step that records the events it was given and returns
// value.
type seen struct {
	events []json.RawMessage
	value  string
}

func (s *seen) step(_ context.Context, ev json.RawMessage, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
	s.events = append(s.events, ev)
	return &sandbox.Outcome{Value: json.RawMessage(s.value)}, nil
}

// pauses is a step that pauses its execution with f the first time it
// runs in an execution, and returns value when it runs again (a rerun).
func pauses(f abi.Flow, value string) stepFunc {
	return func(_ context.Context, ev json.RawMessage, _ sandbox.Capabilities) (*sandbox.Outcome, error) {
		var run struct {
			Run json.RawMessage `json:"run"`
		}
		_ = json.Unmarshal(ev, &run)
		if f.Kind == abi.FlowRerun && len(run.Run) > 0 {
			return &sandbox.Outcome{Value: json.RawMessage(value)}, nil
		}
		return &sandbox.Outcome{Value: json.RawMessage(value), Flow: &f}, nil
	}
}

func stepNames(x model.Execution) string {
	var names []string
	for _, s := range x.Steps {
		names = append(names, s.Name+":"+s.Status)
	}
	return strings.Join(names, ",")
}

// TestStepsRunInOrder: each step is given the trigger and the steps
// before it, and templates read from them; the record has each step.
func TestStepsRunInOrder(t *testing.T) {
	t.Parallel()
	last := &seen{value: `"done"`}
	h := newHarness(t, map[string]stepFunc{"a": returns(`{"n":1}`), "b": returns(`2`), "c": last.step})
	st := steps("a", "b", "c")
	st[2].Props = map[string]json.RawMessage{"n": json.RawMessage(`"{{steps.a.$return_value.n}}"`), "fixed": json.RawMessage(`3`)}
	wf := h.deploy(model.Workflow{Steps: st})
	x := h.trigger(wf.ID, `{"x":1}`)
	if x.Status != model.ExecutionSuccess || stepNames(x) != "a:success,b:success,c:success" {
		t.Fatalf("execution %s: %s", x.Status, stepNames(x))
	}
	if string(x.Steps[2].ReturnValue) != `"done"` || string(x.Event) != `{"x":1}` {
		t.Errorf("record: return %s, event %s", x.Steps[2].ReturnValue, x.Event)
	}
	if len(last.events) != 1 {
		t.Fatalf("the last step ran %d times", len(last.events))
	}
	ev := decodeRun(t, last.events[0])
	for name, want := range map[string]string{"a": `{"$return_value":{"n":1}}`, "b": `{"$return_value":2}`} {
		if got := string(ev.Steps[name]); got != want {
			t.Errorf("steps.%s = %s, want %s", name, got, want)
		}
	}
	var trigger struct {
		Event   json.RawMessage `json:"event"`
		Context struct {
			ID         string `json:"id"`
			WorkflowID string `json:"workflow_id"`
			SourceType string `json:"source_type"`
		} `json:"context"`
	}
	if err := json.Unmarshal(ev.Steps[TriggerStep], &trigger); err != nil || string(trigger.Event) != `{"x":1}` ||
		trigger.Context.ID != x.ID || trigger.Context.WorkflowID != wf.ID || trigger.Context.SourceType != "MANUAL" {
		t.Errorf("steps.trigger = %s (%v)", ev.Steps[TriggerStep], err)
	}
	if ev.Templates["n"] != "{{steps.a.$return_value.n}}" || len(ev.Templates) != 1 {
		t.Errorf("templates %v, want the one template prop", ev.Templates)
	}
	if want := "https://fount.test/h/flow/" + x.ID; ev.FlowURL != want {
		t.Errorf("flow_url %q, want %q", ev.FlowURL, want)
	}
}

// TestAnExecutionEnds: how an execution's steps end it, what its record
// says, and the $errors event of a failure.
func TestAnExecutionEnds(t *testing.T) {
	t.Parallel()
	exit := "enough"
	cases := []struct {
		name   string
		first  stepFunc
		status string
		steps  string
		error  string // the $errors event's error name; "" for none
	}{
		{"at its last step", returns(`1`), model.ExecutionSuccess, "first:success,second:success", ""},
		{"with an exit", func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return &sandbox.Outcome{Exit: &exit}, nil
		}, model.ExecutionExited, "first:exited", ""},
		{"with a throw", throws("boom"), model.ExecutionError, "first:error", "TypeError"},
		{"out of time", func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return nil, sandbox.ErrTimeout
		}, model.ExecutionError, "first:error", "TimeoutError"},
		{"out of memory", func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
			return nil, sandbox.ErrOutOfMemory
		}, model.ExecutionError, "first:error", "OutOfMemoryError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, map[string]stepFunc{"first": tc.first, "second": returns(`2`)})
			wf := h.deploy(model.Workflow{Steps: steps("first", "second")})
			x := h.trigger(wf.ID, `{"in":1}`)
			if x.Status != tc.status || stepNames(x) != tc.steps {
				t.Errorf("execution %s with %s, want %s with %s", x.Status, stepNames(x), tc.status, tc.steps)
			}
			errs := h.errors(wf.ID)
			if tc.error == "" {
				if len(errs) != 0 {
					t.Errorf("%d $errors events, want none", len(errs))
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("%d $errors events, want 1", len(errs))
			}
			var data struct {
				OriginalEvent json.RawMessage `json:"original_event"`
				Error         struct {
					Name     string `json:"name"`
					CellID   string `json:"cellId"`
					StepName string `json:"stepName"`
				} `json:"error"`
			}
			if err := json.Unmarshal(errs[0].Data, &data); err != nil {
				t.Fatal(err)
			}
			if data.Error.Name != tc.error || data.Error.StepName != "first" || data.Error.CellID != model.StepID(wf.ID, "first") || string(data.OriginalEvent) != `{"in":1}` {
				t.Errorf("$errors event %s", errs[0].Data)
			}
			if x.Steps[0].Error == nil || x.Steps[0].Error.Name != tc.error {
				t.Errorf("the step's record error %+v, want %s", x.Steps[0].Error, tc.error)
			}
		})
	}
}

// TestSendsAreCommittedWithTheExecution: $.send.http is a delivery of
// its kind, $.send.sse a live message published after the commit, and a
// failed execution sends nothing.
func TestSendsAreCommittedWithTheExecution(t *testing.T) {
	t.Parallel()
	send := func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Sends: []abi.Send{
			{Kind: abi.SendHTTP, Method: "POST", URL: "https://hooks.test/x", Body: "hi"},
			{Kind: abi.SendSSE, Channel: "news", Payload: json.RawMessage(`{"n":1}`)},
		}}, nil
	}
	h := newHarness(t, map[string]stepFunc{"send": send, "ok": returns(`1`), "fail": throws("no")})
	ok := h.deploy(model.Workflow{ID: "p_ok", Steps: steps("send", "ok")})
	failing := h.deploy(model.Workflow{ID: "p_failing", Steps: steps("send", "fail")})
	ctx := context.Background()

	h.trigger(failing.ID, `{}`)
	if ds, err := h.store.DueDeliveries(ctx, farFuture, "", 10, nil); err != nil || len(ds) != 0 {
		t.Fatalf("a failed execution's sends: %d deliveries (%v), want none", len(ds), err)
	}
	if len(h.live) != 0 {
		t.Fatalf("a failed execution published %v", h.live)
	}
	h.trigger(ok.ID, `{}`)
	ds, err := h.store.DueDeliveries(ctx, farFuture, "", 10, nil)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %+v (%v), want the one $.send.http", ds, err)
	}
	if d := ds[0]; d.Kind != model.DeliverySendHTTP || d.ListenerID != ok.ID || d.Request == nil || d.Request.URL != "https://hooks.test/x" {
		t.Errorf("delivery %+v", d)
	}
	if len(h.live) != 1 || h.live[0].EmitID != "news" || string(h.live[0].Data) != `{"n":1}` {
		t.Errorf("published %+v, want the SSE message", h.live)
	}
}

// TestS3SendsNeedTheOperatorsBucket: without a bucket, $.send.s3 fails
// its step, saying so.
func TestS3SendsNeedTheOperatorsBucket(t *testing.T) {
	t.Parallel()
	s3 := func(context.Context, json.RawMessage, sandbox.Capabilities) (*sandbox.Outcome, error) {
		return &sandbox.Outcome{Sends: []abi.Send{{Kind: abi.SendS3, Payload: json.RawMessage(`{}`)}}}, nil
	}
	h := newHarness(t, map[string]stepFunc{"s3": s3})
	wf := h.deploy(model.Workflow{Steps: steps("s3")})
	x := h.trigger(wf.ID, `{}`)
	if x.Status != model.ExecutionError || x.Steps[0].Error == nil || !strings.Contains(x.Steps[0].Error.Message, "no bucket configured") {
		t.Errorf("execution %s, step error %+v", x.Status, x.Steps[0].Error)
	}
}

// TestEmitsOfAnExecution: a step's emits are stored on the workflow's
// channels; one delayed to the future fails the execution.
func TestEmitsOfAnExecution(t *testing.T) {
	t.Parallel()
	emitting := func(delay bool) stepFunc {
		return func(ctx context.Context, _ json.RawMessage, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
			em := abi.Emit{Event: json.RawMessage(`{"v":1}`), Name: "out"}
			if delay {
				due := farFuture
				em.DeliveryTS = &due
			}
			return &sandbox.Outcome{}, caps.Emit.Emit(ctx, em)
		}
	}
	h := newHarness(t, map[string]stepFunc{"now": emitting(false), "later": emitting(true)})
	now := h.deploy(model.Workflow{ID: "p_now", Steps: steps("now")})
	later := h.deploy(model.Workflow{ID: "p_later", Steps: steps("later")})
	if x := h.trigger(now.ID, `{}`); x.Status != model.ExecutionSuccess {
		t.Fatalf("execution %s", x.Status)
	}
	evs, err := h.store.ListEvents(context.Background(), now.ID, "out", 10)
	if err != nil || len(evs) != 1 || string(evs[0].Data) != `{"v":1}` {
		t.Errorf("events on out: %+v (%v)", evs, err)
	}
	if x := h.trigger(later.ID, `{}`); x.Status != model.ExecutionError {
		t.Errorf("a delayed emit: execution %s, want error", x.Status)
	}
	if errs := h.errors(later.ID); len(errs) != 1 || !strings.Contains(string(errs[0].Data), "cannot delay an emit") {
		t.Errorf("$errors %+v", errs)
	}
}
