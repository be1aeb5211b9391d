package sandbox

import (
	"errors"

	"github.com/fount-dev/fount/abi"
)

// Errors of an invocation. Every one but *ScriptError ends the instance it
// happened in; the Source replaces it from its snapshot on the next call.
var (
	// ErrTimeout is returned when an invocation ran past its deadline or its
	// context was cancelled; the guest was interrupted.
	ErrTimeout = errors.New("sandbox: invocation timed out")
	// ErrOutOfMemory is returned when the guest ran out of memory.
	ErrOutOfMemory = errors.New("sandbox: invocation ran out of memory")
	// ErrTrap is returned when the guest trapped (a wasm-level fault) or
	// broke the ABI; the instance is discarded.
	ErrTrap = errors.New("sandbox: guest trapped")
	// ErrClosed is returned when the Host or Source was closed.
	ErrClosed = errors.New("sandbox: closed")
	// ErrLost is returned when a Source's saved state (an idle snapshot
	// kept on disk) can no longer be read: the Source cannot run again and
	// must be loaded anew.
	ErrLost = errors.New("sandbox: the source's saved state was lost; it must be loaded again")
	// ErrNotFound is what a capability returns for what is not there (a
	// connected account deleted under its app prop); the guest sees the
	// ABI's not-found code.
	ErrNotFound = errors.New("sandbox: not found")
)

// ScriptError is an error thrown by component code: a JavaScript exception
// with its name, message and stack, or a syntax error with its position.
// The instance stays usable.
type ScriptError struct {
	abi.GuestError
}

func (e *ScriptError) Error() string { return e.GuestError.Error() }
