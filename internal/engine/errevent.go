package engine

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
	maxErrorName     = 256
	maxErrorMessage  = 8 << 10
	maxErrorStack    = 16 << 10
	maxOriginalEvent = 64 << 10
)

// errorEvent describes a failed run on the $errors channel: the error's
// name, message, stack and own code (when it had one), the event that
// triggered the run, and the kind of trigger, each within its cap.
func errorEvent(err error, inv model.Invocation) model.Event {
	name, message, stack := "Error", err.Error(), ""
	var se *sandbox.ScriptError
	var he *HookError
	var ce *channelLimitError
	switch {
	case errors.As(err, &se):
		name, message, stack = se.Name, se.Message, se.Stack
	case errors.As(err, &he):
		name, message = he.Name, he.Msg
	case errors.As(err, &ce):
		name = "ChannelLimitError"
	case errors.Is(err, sandbox.ErrTimeout):
		name, message = "TimeoutError", "the run did not finish within its time limit"
	case errors.Is(err, sandbox.ErrOutOfMemory):
		name, message = "OutOfMemoryError", "the run ran out of memory"
	}
	desc := map[string]any{"name": capText(name, maxErrorName), "message": capText(message, maxErrorMessage)}
	if se != nil {
		desc["stack"] = capText(stack, maxErrorStack)
		if se.Code != "" {
			desc["code"] = capText(se.Code, maxErrorName)
		}
	}
	data, _ := json.Marshal(map[string]any{"error": desc, "original_event": capEvent(inv.Event, maxOriginalEvent), "trigger": inv.Kind})
	return model.Event{Name: channelErrors, EmitID: newEmitID(), Summary: truncate(fmt.Sprint(desc["name"], ": ", desc["message"]), 120), Data: data}
}

// capText returns s when it has at most n bytes, else its first bytes up
// to a character boundary (at most n; bytes that are no UTF-8 are cut
// anywhere, JSON encoding replaces them), marked with how long s was.
func capText(s string, n int) string {
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

// capEvent returns the JSON event ev (null when empty) when it has at
// most n bytes, else a marker that says how large it was: valid JSON that
// a listener can tell from any event, {"truncated": true, "bytes": N}.
func capEvent(ev json.RawMessage, n int) json.RawMessage {
	switch {
	case len(ev) == 0:
		return json.RawMessage("null")
	case len(ev) <= n:
		return ev
	}
	return json.RawMessage(`{"truncated":true,"bytes":` + strconv.Itoa(len(ev)) + `}`)
}
