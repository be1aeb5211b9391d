package emit

import (
	"errors"

	"github.com/fount-dev/fount/internal/sandbox"
)

// ErrorClass names the kind of a run's error for logs, without its
// message: the JavaScript error's name, or what limit it hit.
func ErrorClass(err error) string {
	var se *sandbox.ScriptError
	var ce *LimitError
	switch {
	case errors.As(err, &se):
		return se.Name
	case errors.Is(err, sandbox.ErrTimeout):
		return "timeout"
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return "out_of_memory"
	case errors.As(err, &ce):
		return "channel_limit"
	case errors.Is(err, sandbox.ErrTrap):
		return "trap"
	}
	return "error"
}

// Outcome is how a call ended, for metrics: "ok", or its error's class.
func Outcome(err error) string {
	if err != nil {
		return ErrorClass(err)
	}
	return "ok"
}
