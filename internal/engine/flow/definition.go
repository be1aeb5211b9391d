package flow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// The checks a workflow's definition passes before any of its steps is
// loaded: step names and kinds, the templates of their props, execution
// controls, the trigger's token. Loading and describing steps is the
// engine's (it runs tenants' code on its pool).

// Limits of a workflow definition.
const (
	MaxSteps       = 50
	maxStepNameLen = 64
)

// Bounds of the execution controls.
const (
	maxConcurrency   = 50
	maxQueueSize     = 10_000
	maxRetryAttempts = 8
)

// stepName is what a step may be called: it is read as steps.<name>.
var stepName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// DefinitionError is a workflow definition that cannot be deployed. Step
// names the step at fault ("" for the workflow itself).
type DefinitionError struct {
	Step   string
	Reason string
}

func (e *DefinitionError) Error() string {
	if e.Step == "" {
		return e.Reason
	}
	return fmt.Sprintf("step %q: %s", e.Step, e.Reason)
}

// StepFault is a *DefinitionError of step.
func StepFault(step, format string, args ...any) *DefinitionError {
	return &DefinitionError{Step: step, Reason: fmt.Sprintf(format, args...)}
}

// CheckStepCount refuses a workflow of no steps, or of more than MaxSteps.
func CheckStepCount(n int) error {
	switch {
	case n == 0:
		return &DefinitionError{Reason: "the workflow needs at least one step"}
	case n > MaxSteps:
		return &DefinitionError{Reason: fmt.Sprintf("the workflow has %d steps, more than %d", n, MaxSteps)}
	}
	return nil
}

// CheckStep checks the i-th step (from 0) of a definition, given with
// props, whose earlier steps are named in earlier: its name, kind and
// code, the steps its templates read, and its author's source map.
func CheckStep(i int, step model.WorkflowStep, props map[string]json.RawMessage, earlier map[string]bool) error {
	name := step.Name
	switch {
	case !stepName.MatchString(name) || len(name) > maxStepNameLen:
		return StepFault(name, "step %d needs a name of letters, digits and _ (not starting with a digit, at most %d characters)", i+1, maxStepNameLen)
	case name == TriggerStep:
		return StepFault(name, "the name trigger is reserved for the workflow's trigger")
	case earlier[name]:
		return StepFault(name, "two steps have this name; step names must be unique")
	case step.Kind != model.StepCode && step.Kind != model.StepAction:
		return StepFault(name, "unknown kind %q; use code or action", step.Kind)
	case strings.TrimSpace(step.Code) == "":
		return StepFault(name, "the step has no code")
	}
	if err := CheckTemplates(name, props, earlier); err != nil {
		return err
	}
	if len(step.SourceMap) > component.MaxAuthorSourceMap {
		return StepFault(name, "the source_map is %d bytes; at most %d MiB is kept", len(step.SourceMap), component.MaxAuthorSourceMap>>20)
	}
	if step.SourceMap != "" {
		if _, err := component.ParseSourceMap(step.SourceMap); err != nil {
			return StepFault(name, "the source_map is not a source map v3: %v", err)
		}
	}
	return nil
}

// StepOf is wf's step of that name and its place, or a *DefinitionError.
func StepOf(wf model.Workflow, name string) (int, *model.WorkflowStep, error) {
	i := slices.IndexFunc(wf.Steps, func(s model.WorkflowStep) bool { return s.Name == name })
	if i < 0 {
		return 0, nil, StepFault(name, "the workflow has no step of that name")
	}
	return i, &wf.Steps[i], nil
}

// ControlsError is execution controls out of their bounds.
type ControlsError struct{ Reason string }

func (e *ControlsError) Error() string { return e.Reason }

// CheckControls says what is wrong with execution controls.
func CheckControls(c model.Controls) error {
	switch t := c.Throttle; {
	case t != nil && (t.Limit < 1 || t.Limit > batch.MaxThrottleLimit || t.IntervalSeconds < 1 || t.IntervalSeconds > batch.MaxThrottleInterval):
		return &ControlsError{Reason: fmt.Sprintf("the throttle needs a limit from 1 to %d and interval_seconds from 1 to %d", batch.MaxThrottleLimit, batch.MaxThrottleInterval)}
	case c.Concurrency < 0 || c.Concurrency > maxConcurrency:
		return &ControlsError{Reason: fmt.Sprintf("concurrency must be from 1 to %d (0: 1), not %d", maxConcurrency, c.Concurrency)}
	case c.QueueSize < 0 || c.QueueSize > maxQueueSize:
		return &ControlsError{Reason: fmt.Sprintf("queue_size must be from 1 to %d (0: no bound), not %d", maxQueueSize, c.QueueSize)}
	case c.Retry != nil && (c.Retry.Attempts < 1 || c.Retry.Attempts > maxRetryAttempts):
		return &ControlsError{Reason: fmt.Sprintf("retry.attempts must be from 1 to %d, not %d", maxRetryAttempts, c.Retry.Attempts)}
	}
	return nil
}

// templateExpr finds the {{...}} expressions of a prop value.
var templateExpr = regexp.MustCompile(`\{\{([\s\S]*?)\}\}`)

// stepRef finds the steps a template expression reads: steps.name,
// steps["name"] or steps['name'].
var stepRef = regexp.MustCompile(`\bsteps\s*(?:\.\s*([A-Za-z_$][A-Za-z0-9_$]*)|\[\s*["']([^"']*)["']\s*\])`)

// IsTemplate reports whether raw is a string holding a {{...}}
// expression: a prop evaluated at each execution.
func IsTemplate(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && templateExpr.MatchString(s)
}

// CheckTemplates refuses an expression in a step's props that reads a
// step that does not come before it.
func CheckTemplates(step string, props map[string]json.RawMessage, earlier map[string]bool) error {
	for name, raw := range props {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		for _, m := range templateExpr.FindAllStringSubmatch(s, -1) {
			for _, ref := range stepRef.FindAllStringSubmatch(m[1], -1) {
				target := ref[1] + ref[2]
				if target != TriggerStep && !earlier[target] {
					return StepFault(step, "the prop %s reads steps.%s in {{%s}}, and no earlier step has that name", name, target, strings.TrimSpace(m[1]))
				}
			}
		}
	}
	return nil
}

// StepBinding binds a step's sealed prop to its workflow, step and prop.
func StepBinding(wf model.Workflow, step, prop string) string {
	return secret.PropBinding(wf.OwnerID, wf.ID, step+"."+prop)
}

// A workflow's HTTP trigger may ask for a static bearer token, which
// the ingress checks before it reads the body or queues anything. Only the
// token's sha256 is stored, as for API keys: the token cannot be read
// back, and a view shows only that there is one.

// bearerToken is what a trigger token may be: RFC 6750's b64token, 16 to
// 256 characters.
var bearerToken = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]{16,256}=*$`)

// TriggerTokenHash is the hash to store for token: "" for none, the
// previous trigger's for secret.Marker (an update that keeps it).
func TriggerTokenHash(token string, previous *model.Workflow) (string, error) {
	switch {
	case token == "":
		return "", nil
	case token == secret.Marker:
		if previous == nil || previous.Trigger.TokenHash == "" {
			return "", &DefinitionError{Reason: fmt.Sprintf("the trigger's token is %s, but no token is stored to keep: give the token itself", secret.Marker)}
		}
		return previous.Trigger.TokenHash, nil
	case len(token) > 300 || !bearerToken.MatchString(token):
		return "", &DefinitionError{Reason: "the trigger's token must be 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + /, then = padding"}
	}
	return ingress.HashToken(token), nil
}
