package emit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Caps of what an $errors event copies from a failed run. A component
// may throw an error with a message of megabytes, and the event that
// triggered the run may be as large as a request body or a manual run's
// event; copied whole, they made $errors events larger than the emit cap
// the component itself is held to. With these caps an $errors event is
// under 256 KiB (JSON escaping of the text included).
const (
	MaxErrorName     = 256
	MaxErrorMessage  = 8 << 10
	MaxErrorStack    = 16 << 10
	MaxOriginalEvent = 64 << 10
)

// ErrorEvent describes a failed run on the $errors channel: the error's
// name, message, stack and own code (when it had one), the event that
// triggered the run, and the kind of trigger, each within its cap.
func ErrorEvent(err error, inv model.Invocation) model.Event {
	name, message, stack := "Error", err.Error(), ""
	var se *sandbox.ScriptError
	var je jsError
	var ce *LimitError
	switch {
	case errors.As(err, &se):
		name, message, stack = se.Name, se.Message, se.Stack
	case errors.As(err, &je):
		name, message = je.JSError()
	case errors.As(err, &ce):
		name = "ChannelLimitError"
	case errors.Is(err, sandbox.ErrTimeout):
		name, message = "TimeoutError", "the run did not finish within its time limit"
	case errors.Is(err, sandbox.ErrOutOfMemory):
		name, message = "OutOfMemoryError", "the run ran out of memory"
	}
	desc := map[string]any{"name": CapText(name, MaxErrorName), "message": CapText(message, MaxErrorMessage)}
	if se != nil {
		desc["stack"] = CapText(stack, MaxErrorStack)
		if se.Code != "" {
			desc["code"] = CapText(se.Code, MaxErrorName)
		}
	}
	data, _ := json.Marshal(map[string]any{"error": desc, "original_event": CapEvent(inv.Event, MaxOriginalEvent), "trigger": inv.Kind})
	return model.Event{Name: model.ChannelErrors, EmitID: NewID(), Summary: Truncate(fmt.Sprint(desc["name"], ": ", desc["message"]), 120), Data: data}
}

// CapText returns s when it has at most n bytes, else its first bytes up
// to a character boundary (at most n; bytes that are no UTF-8 are cut
// anywhere, JSON encoding replaces them), marked with how long s was.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			cut = i
			break
		}
	}
	return s[:cut] + "… [truncated: " + strconv.Itoa(len(s)) + " bytes in all]"
}

// CapEvent returns the JSON event ev (null when empty) when it has at
// most n bytes, else a marker that says how large it was: valid JSON that
// a listener can tell from any event, {"truncated": true, "bytes": N}.
func CapEvent(ev json.RawMessage, n int) json.RawMessage {
	switch {
	case len(ev) == 0:
		return json.RawMessage("null")
	case len(ev) <= n:
		return ev
	}
	return json.RawMessage(`{"truncated":true,"bytes":` + strconv.Itoa(len(ev)) + `}`)
}

// jsError is an error that names the JavaScript error behind it (a
// lifecycle hook's that threw): its $errors event shows that name and
// message.
type jsError interface {
	error
	JSError() (name, message string)
}
