package kv

import "errors"

// NotFound is ErrNotFound for a record that does not exist, or nil.
func NotFound(exists bool) error {
	if exists {
		return nil
	}
	return ErrNotFound
}

// Errors returned by Store methods.
var (
	// ErrNotFound is returned when the record does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict is returned when a unique value (a name slug, a
	// component key, an API key) is taken.
	ErrConflict = errors.New("store: conflict")
	// ErrBadCursor is returned when a page cursor was not produced by the
	// store for that list.
	ErrBadCursor = errors.New("store: bad cursor")
	// ErrComponentDropped is returned by a source write naming a component
	// that is no longer stored: a save past the owner's limit of
	// components dropped it after it was saved (see CreateComponent).
	ErrComponentDropped = errors.New("store: the component was dropped")
	// ErrTooLarge is returned by a write of a record larger than the
	// store holds: on JetStream, one message of the servers' max_payload.
	ErrTooLarge = errors.New("store: record too large")
)
