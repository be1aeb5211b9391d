package store

import "github.com/fount-dev/fount/internal/store/internal/kv"

// What callers of the store name, defined with the engines' contract
// (store/internal/kv) so that the engines share them.
type (
	// Page asks for one page of a list (see kv.Page).
	Page = kv.Page
	// PageOf is one page of a list in a stable order.
	PageOf[T any] = kv.PageOf[T]
	// EventPage asks PageEvents for a page of a channel's events.
	EventPage = kv.EventPage
)

// Errors returned by Store methods.
var (
	// ErrNotFound is returned when the record does not exist.
	ErrNotFound = kv.ErrNotFound
	// ErrConflict is returned when a unique value (a name slug, a
	// component key, an API key) is taken.
	ErrConflict = kv.ErrConflict
	// ErrBadCursor is returned when a page cursor was not produced by the
	// store for that list.
	ErrBadCursor = kv.ErrBadCursor
	// ErrComponentDropped is returned by a source write naming a component
	// that is no longer stored: a save past the owner's limit of
	// components dropped it after it was saved (see CreateComponent).
	ErrComponentDropped = kv.ErrComponentDropped
	// ErrTooLarge is returned by a write of a record larger than the
	// store holds: on JetStream, one message of the servers' max_payload.
	ErrTooLarge = kv.ErrTooLarge
	// ErrQueueFull is returned by EnqueueInvocationWithin when the target
	// holds its most queued invocations already.
	ErrQueueFull = kv.ErrQueueFull
)
