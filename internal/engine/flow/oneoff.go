package flow

import (
	"context"
	"encoding/json"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// OneOff is what a step run on its own gave back.
type OneOff struct {
	Step  model.StepExecution // $return_value, exports, $summary, logs, error
	Emits []json.RawMessage   // what it emitted (not stored)
	Sends []abi.Send          // its $.send calls (not carried out)
	Exit  *string             // $.flow.exit(reason)
}

// RunOneOff runs the one step of wf, loaded in box with its templates,
// on its own: an action's test run, of no stored workflow. It sees steps
// as steps.*, and db as its $.service.db. A failure of the step's own
// code is in the record; the error is the engine's.
func (r *Runner) RunOneOff(ctx context.Context, wf model.Workflow, box sandbox.Source, templates map[string]string, steps map[string]json.RawMessage, db sandbox.KV) (OneOff, error) {
	sc := &stepsContext{}
	for name, v := range steps {
		sc.add(name, v)
	}
	lf := &liveFlow{action: true, wf: wf, boxes: []sandbox.Source{box}}
	lf.addTemplates(templates)
	c := emit.NewCollector(nil)
	sx, out, err := r.runStepWith(ctx, lf, 0, sc, c, nil, r.cfg.Clock.Now().Add(r.cfg.ExecutionTimeout), db)
	if err != nil {
		return OneOff{}, err
	}
	res := OneOff{Step: sx, Sends: out.sends, Exit: out.exit}
	for _, em := range c.Emits() {
		res.Emits = append(res.Emits, rawOrEmpty(em.Event))
	}
	return res, nil
}
