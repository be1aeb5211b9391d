package flow

import (
	"bytes"
	"encoding/json"
)

// jsonObject builds a JSON object from values that are valid JSON
// already (the sandbox's decoded results, stored events), without
// re-encoding them: a step's context grows with each step, and
// encoding/json would check and compact every value again for each.
type jsonObject struct{ buf []byte }

func (o *jsonObject) add(name string, value json.RawMessage) {
	if len(o.buf) == 0 {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ',')
	}
	key, _ := json.Marshal(name)
	o.buf = append(append(append(o.buf, key...), ':'), value...)
}

func (o *jsonObject) close() json.RawMessage {
	if len(o.buf) == 0 {
		return json.RawMessage("{}")
	}
	return append(o.buf[:len(o.buf):len(o.buf)], '}')
}

// stepsContext is steps.* of an execution so far, with what the next
// step's call carries besides: the base of its resume and cancel URLs,
// and a rerun's count and context.
type stepsContext struct {
	obj     jsonObject
	flowURL json.RawMessage // a JSON string; none outside an execution
	run     json.RawMessage // $.context.run of a rerun; nil: a first run
}

func (s *stepsContext) add(name string, data json.RawMessage) { s.obj.add(name, data) }

// event is a step's run event: the steps so far and the step's
// templates (JSON, or empty for none).
func (s *stepsContext) event(templates json.RawMessage) json.RawMessage {
	ev := &jsonObject{}
	ev.add("steps", s.obj.close())
	if len(templates) > 0 {
		ev.add("templates", templates)
	}
	if len(s.flowURL) > 0 {
		ev.add("flow_url", s.flowURL)
	}
	if len(s.run) > 0 {
		ev.add("run", s.run)
	}
	return ev.close()
}

// restoreSteps is a stepsContext from its JSON object, as a paused
// execution stored it.
func restoreSteps(obj json.RawMessage) *stepsContext {
	s := &stepsContext{}
	if inner := bytes.TrimSpace(obj); len(inner) > 2 {
		s.obj.buf = append([]byte(nil), inner[:len(inner)-1]...) // without its closing brace
	}
	return s
}
