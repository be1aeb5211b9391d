package kv

import (
	"errors"

	"github.com/fount-dev/fount/internal/model"
)

// NotFound is ErrNotFound for a record that does not exist, or nil.
func NotFound(exists bool) error {
	if exists {
		return nil
	}
	return ErrNotFound
}

// Errors returned by Store methods: the model's, so that a reader tells
// them apart without the store.
var (
	ErrNotFound         = model.ErrNotFound
	ErrConflict         = model.ErrConflict
	ErrBadCursor        = model.ErrBadCursor
	ErrComponentDropped = model.ErrComponentDropped
	ErrTooLarge         = model.ErrTooLarge
	// ErrQueueFull is returned by a bounded enqueue whose target holds
	// its most queued invocations already.
	ErrQueueFull = errors.New("store: the queue is full")
)
