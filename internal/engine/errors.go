package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/scheduler"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Errors of the lifecycle operations, for callers (the API) to map to
// answers. Besides these, a configured value that does not fit its prop is
// a *component.PropError, and a missing source or component wraps
// model.ErrNotFound.
var (
	// ErrStopped is returned when the engine is not running: its
	// scheduler's, which refuses work once stopped.
	ErrStopped = scheduler.ErrStopped
)

// BusyError is an operation that found no worker free within
// Config.LifecycleWait, and did nothing: the account's earlier calls or
// runs hold its share of the workers (Account), or every worker is busy.
// RetryAfter is when one should be free.
type BusyError struct {
	Account    bool
	Share      int // workers one account may hold
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	if e.Account {
		return fmt.Sprintf("engine: the account's %d workers are busy", e.Share)
	}
	return "engine: every worker is busy"
}

// CodeError is component code that cannot be deployed: it does not parse,
// throws or runs out of time or memory while loading, or describes itself
// in a way fount cannot use. The message says why, for the component's
// author.
type CodeError struct {
	Name    string // the JavaScript error's name, e.g. SyntaxError
	Message string
	Line    int // 1-based; 0 when unknown
	Column  int // 1-based; 0 when unknown
}

// CodeFailure is the JavaScript error the code failed with, for the
// record and the $errors event of a workflow step that did not load.
func (e *CodeError) CodeFailure() (name, message string) { return e.Name, e.Message }

func (e *CodeError) Error() string {
	msg := e.Name + ": " + e.Message
	if e.Line > 0 {
		msg += fmt.Sprintf(" (line %d", e.Line)
		if e.Column > 0 {
			msg += fmt.Sprintf(", column %d", e.Column)
		}
		msg += ")"
	}
	return msg
}

// codeError turns a sandbox failure to load code into a *CodeError; other
// errors (the host failing) are returned as they are.
func codeError(err error) error {
	var se *sandbox.ScriptError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return &CodeError{Name: se.Name, Message: se.Message, Line: se.Line, Column: se.Column}
	case errors.Is(err, sandbox.ErrTimeout):
		return &CodeError{Name: "TimeoutError", Message: "the component did not finish loading in time; remove long-running top-level code"}
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return &CodeError{Name: "RangeError", Message: "the component ran out of memory while loading"}
	case errors.Is(err, component.ErrInvalidMetadata):
		return &CodeError{Name: "TypeError", Message: "the component's description is not usable: " + err.Error()}
	}
	return err
}

// HookError is a lifecycle hook (deploy, activate, deactivate) that threw,
// timed out or ran out of memory.
type HookError struct {
	Hook string
	Name string // the JavaScript error's name
	Msg  string
}

func (e *HookError) Error() string {
	return fmt.Sprintf("the %s hook failed: %s: %s", e.Hook, e.Name, e.Msg)
}

// JSError is the JavaScript error the hook threw, for its $errors event.
func (e *HookError) JSError() (name, message string) { return e.Name, e.Msg }

// hookError describes a failed hook; errors that are not the component's
// (the host failing) are returned as they are.
func hookError(hook string, err error) error {
	if name, msg, ok := scriptFailure(err, "hook"); ok {
		return &HookError{Hook: hook, Name: name, Msg: msg}
	}
	return err
}

// scriptFailure names the component's part in a failed call: the error
// its code threw, or the limit it hit ("the <what> did not finish..."),
// as a JavaScript error name and message; false when the host failed.
func scriptFailure(err error, what string) (name, msg string, ok bool) {
	var se *sandbox.ScriptError
	switch {
	case errors.As(err, &se):
		return se.Name, se.Message, true
	case errors.Is(err, sandbox.ErrTimeout):
		return "TimeoutError", "the " + what + " did not finish within its time limit", true
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return "RangeError", "the " + what + " ran out of memory", true
	}
	return "", "", false
}

// NameTakenError is a source name whose slug another source of the same
// owner has.
type NameTakenError struct{ Slug string }

func (e *NameTakenError) Error() string {
	return "a source named " + e.Slug + " already exists"
}
