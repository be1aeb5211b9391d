package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// failedStep records sx failed with err, which its result carries.
func failedStep(sx model.StepExecution, err error) (model.StepExecution, stepResult, error) {
	sx.Status, sx.Error = model.ExecutionError, stepError(err)
	return sx, stepResult{err: err}, nil
}

// recordStep records in sx what a step's call gave (its return value,
// exports and summary, each capped) and returns its result: steps.<name>
// for the steps after it whole, and its exit, pause and sends.
func recordStep(sx model.StepExecution, o *sandbox.Outcome) (model.StepExecution, stepResult, error) {
	sx.ReturnValue = capValue(o.Value)
	sx.Exports = map[string]json.RawMessage{}
	data := &jsonObject{}
	for name, v := range o.Exports {
		if name == "$summary" {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			sx.Summary = emit.CapText(s, maxRecordedLogLine)
			continue
		}
		sx.Exports[name] = capValue(v)
		data.add(name, v)
	}
	if len(sx.Exports) == 0 {
		sx.Exports = nil
	}
	if len(o.Value) > 0 {
		data.add("$return_value", o.Value)
	}
	if o.Exit != nil {
		sx.Status = model.ExecutionExited
	}
	return sx, stepResult{exit: o.Exit, flow: o.Flow, sends: o.Sends, data: data.close()}, nil
}

// stepLogs keeps a step's console lines within the record's caps.
type stepLogs struct {
	mu    sync.Mutex
	lines []model.StepLog
}

func (l *stepLogs) Log(_ context.Context, e sandbox.LogEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < maxRecordedLogs {
		l.lines = append(l.lines, model.StepLog{AtMs: e.Time.UnixMilli(), Level: e.Level, Text: emit.CapText(e.Text, maxRecordedLogLine)})
	}
	return nil
}

// stepError describes a step's failure for its record.
func stepError(err error) *model.StepError {
	name, message, stack := errorParts(err)
	return &model.StepError{Name: name, Message: emit.CapText(message, emit.MaxErrorMessage), Stack: emit.CapText(stack, emit.MaxErrorStack)}
}

// errorCode is the code of a run's failure: the thrown error's own code
// when it had one, else its name.
func errorCode(err error, name string) string {
	if se := (*sandbox.ScriptError)(nil); errors.As(err, &se) && se.Code != "" {
		return se.Code
	}
	return name
}

// errorParts are the name, message and stack of a run's failure.
func errorParts(err error) (name, message, stack string) {
	var se *sandbox.ScriptError
	var ce codeFailure
	switch {
	case errors.As(err, &se):
		return se.Name, se.Message, se.Stack
	case errors.As(err, &ce):
		name, message := ce.CodeFailure()
		return name, message, ""
	case errors.Is(err, sandbox.ErrTimeout):
		return "TimeoutError", "the step did not finish within its time limit", ""
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return "OutOfMemoryError", "the step ran out of memory", ""
	}
	return "Error", err.Error(), ""
}

// rawOrEmpty is raw, or {} when there is none.
func rawOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// EventCut reports whether an execution's event is the marker capValue
// left in place of one too large to keep (byte for byte, and of a size
// past the cap: an event of the same shape sent by a user is replayed).
func EventCut(event json.RawMessage) bool {
	var marker struct {
		Truncated bool `json:"truncated"`
		Bytes     int  `json:"bytes"`
	}
	return json.Unmarshal(event, &marker) == nil && marker.Truncated && marker.Bytes > maxRecordedValue &&
		string(event) == `{"truncated":true,"bytes":`+strconv.Itoa(marker.Bytes)+`}`
}

// capValue is raw within maxRecordedValue, or a marker of its size.
func capValue(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxRecordedValue {
		return raw
	}
	return json.RawMessage(`{"truncated":true,"bytes":` + strconv.Itoa(len(raw)) + `}`)
}

// recordSize estimates the encoded size of rec from its values, so that
// the common small record is not encoded twice: fields and escaping add
// a little, which the cap's margin covers.
func recordSize(rec *model.Execution) int {
	if rec == nil {
		return 0
	}
	n := len(rec.Event) + 256
	for _, s := range rec.Steps {
		n += len(s.Name) + len(s.ReturnValue) + len(s.Summary) + 128
		for k, v := range s.Exports {
			n += len(k) + len(v) + 8
		}
		for _, l := range s.Logs {
			n += len(l.Text) + 64
		}
		if s.Error != nil {
			n += len(s.Error.Name) + len(s.Error.Message) + len(s.Error.Stack) + 64
		}
	}
	return n
}

// capExecution drops the values and logs of a record that is still over
// maxExecutionRecord with each value capped (many steps, many exports).
func capExecution(rec *model.Execution) {
	if recordSize(rec) <= maxExecutionRecord {
		return
	}
	rec.Truncated = true
	for i := range rec.Steps {
		s := &rec.Steps[i]
		if s.ReturnValue != nil || s.Exports != nil || s.Logs != nil {
			s.Truncated = true
		}
		s.ReturnValue, s.Exports, s.Logs = nil, nil, nil
	}
}

// codeFailure is code that failed to load (the engine's CodeError): its
// step is recorded with the JavaScript error it names.
type codeFailure interface {
	error
	CodeFailure() (name, message string)
}
