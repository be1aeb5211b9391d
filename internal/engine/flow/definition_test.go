package flow

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// TestCheckStep: what a step of a definition may be, and the message
// that names what is wrong.
func TestCheckStep(t *testing.T) {
	t.Parallel()
	code := model.WorkflowStep{Name: "fetch", Kind: model.StepCode, Code: "export default {}"}
	with := func(change func(*model.WorkflowStep)) model.WorkflowStep {
		s := code
		change(&s)
		return s
	}
	props := func(v string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"url": json.RawMessage(v)}
	}
	cases := []struct {
		name    string
		step    model.WorkflowStep
		props   map[string]json.RawMessage
		earlier map[string]bool
		want    string // in the error; "" for none
	}{
		{"a code step", code, nil, nil, ""},
		{"an action", with(func(s *model.WorkflowStep) { s.Kind = model.StepAction }), nil, nil, ""},
		{"a name with a dash", with(func(s *model.WorkflowStep) { s.Name = "get-it" }), nil, nil, "step 2 needs a name of letters"},
		{"a name from a digit", with(func(s *model.WorkflowStep) { s.Name = "1st" }), nil, nil, "needs a name"},
		{"a name too long", with(func(s *model.WorkflowStep) { s.Name = strings.Repeat("a", maxStepNameLen+1) }), nil, nil, "at most 64 characters"},
		{"the trigger's name", with(func(s *model.WorkflowStep) { s.Name = TriggerStep }), nil, nil, "reserved"},
		{"a name taken", code, nil, map[string]bool{"fetch": true}, "two steps have this name"},
		{"an unknown kind", with(func(s *model.WorkflowStep) { s.Kind = "shell" }), nil, nil, `unknown kind "shell"`},
		{"no code", with(func(s *model.WorkflowStep) { s.Code = "  " }), nil, nil, "no code"},
		{"a template of an earlier step", code, props(`"{{steps.first.$return_value}}"`), map[string]bool{"first": true}, ""},
		{"a template of the trigger", code, props(`"{{steps.trigger.event.body}}"`), nil, ""},
		{"a template of a later step", code, props(`"{{steps['later'].x}}"`), nil, "reads steps.later"},
		{"a template of itself", code, props(`"a {{ steps.fetch }} b"`), nil, "reads steps.fetch"},
		{"a source map that is none", with(func(s *model.WorkflowStep) { s.SourceMap = "{nope" }), nil, nil, "not a source map v3"},
	}
	for _, tc := range cases {
		err := CheckStep(1, tc.step, tc.props, tc.earlier)
		var de *DefinitionError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &de) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a *DefinitionError saying %q", tc.name, err, tc.want)
		case tc.want != "" && de.Step != tc.step.Name:
			t.Errorf("%s: the error names step %q, want %q", tc.name, de.Step, tc.step.Name)
		}
	}
	if err := CheckStepCount(0); err == nil || CheckStepCount(MaxSteps+1) == nil || CheckStepCount(MaxSteps) != nil {
		t.Error("CheckStepCount does not hold a workflow to 1 to MaxSteps steps")
	}
}

// TestCheckControls: each control's bounds.
func TestCheckControls(t *testing.T) {
	t.Parallel()
	cases := []struct {
		c    model.Controls
		want string
	}{
		{model.Controls{}, ""},
		{model.Controls{Concurrency: 50, QueueSize: 10_000, Retry: &model.Retry{Attempts: 8}, Throttle: &model.Throttle{Limit: 1, IntervalSeconds: 1}}, ""},
		{model.Controls{Concurrency: 51}, "concurrency"},
		{model.Controls{Concurrency: -1}, "concurrency"},
		{model.Controls{QueueSize: 10_001}, "queue_size"},
		{model.Controls{Retry: &model.Retry{Attempts: 0}}, "retry.attempts"},
		{model.Controls{Retry: &model.Retry{Attempts: 9}}, "retry.attempts"},
		{model.Controls{Throttle: &model.Throttle{Limit: 0, IntervalSeconds: 60}}, "throttle"},
		{model.Controls{Throttle: &model.Throttle{Limit: 1, IntervalSeconds: 86_401}}, "throttle"},
	}
	for _, tc := range cases {
		err := CheckControls(tc.c)
		var ce *ControlsError
		if (tc.want == "") != (err == nil) || (err != nil && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want))) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// TestTriggerTokenHash: a token is stored as its hash, kept by the
// marker when one is stored, and refused when it is no bearer token.
func TestTriggerTokenHash(t *testing.T) {
	t.Parallel()
	token := strings.Repeat("t", 20)
	hash, err := TriggerTokenHash(token, nil)
	if err != nil || hash == "" || strings.Contains(hash, token) {
		t.Fatalf("hash %q (%v)", hash, err)
	}
	prev := &model.Workflow{Trigger: model.WorkflowTrigger{TokenHash: hash}}
	if kept, err := TriggerTokenHash(secret.Marker, prev); err != nil || kept != hash {
		t.Errorf("the marker kept %q (%v), want %q", kept, err, hash)
	}
	if none, err := TriggerTokenHash("", prev); err != nil || none != "" {
		t.Errorf("no token: %q (%v)", none, err)
	}
	for _, bad := range []string{"short", "has space in it at all", strings.Repeat("a", 301)} {
		if _, err := TriggerTokenHash(bad, nil); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
	if _, err := TriggerTokenHash(secret.Marker, nil); err == nil {
		t.Error("the marker with no token stored was accepted")
	}
}
