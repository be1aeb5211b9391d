package model

import (
	"errors"
	"fmt"
)

// What a reader of stored records names: pages of lists, the errors a
// read or a write returns, and the limits of an account. They are
// defined here, beside the records, so that the API asks for pages and
// tells errors apart without importing the store that produces them.

// Page asks for one page of a list. Cursors are opaque strings the store
// produced; After and Before are mutually exclusive. MaxBytes, when above
// 0, ends the page early once its records' stored size would pass it
// (it always holds at least one); the page then keeps the records
// nearest the cursor, so that paging on from it misses none.
type Page struct {
	Limit    int
	After    string
	Before   string
	MaxBytes int
}

// PageOf is one page of a list in a stable order.
type PageOf[T any] struct {
	Items       []T
	Cursors     []string // Cursors[i] is the cursor of Items[i]
	TotalCount  int
	StartCursor string
	EndCursor   string
}

// EventPage asks for a page of a channel's events. After and Before are
// event ids, mutually exclusive.
type EventPage struct {
	Limit  int    // at most this many events (<= 0: 100)
	After  string // only events older than this id: the newest of them
	Before string // only events newer than this id: the oldest of them, those nearest it
	// MaxBytes, when above 0, ends the page before its events' data (as
	// kept, see Preview) would pass it. A page always holds at least one
	// event, and keeps those nearest its cursor (the newest without one),
	// so that paging on from it misses none.
	MaxBytes int
	// Preview, when above 0, keeps only the first Preview bytes of each
	// event's data (which is then no longer JSON when it was longer);
	// Event.Size says how long the whole data is.
	Preview int
}

// Errors of reads and writes of stored records.
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
	// components dropped it after it was saved.
	ErrComponentDropped = errors.New("store: the component was dropped")
	// ErrTooLarge is returned by a write of a record larger than the
	// store holds: on JetStream, one message of the servers' max_payload.
	ErrTooLarge = errors.New("store: record too large")
)

// Counted names a kind of record whose number an account is limited in.
type Counted string

// The kinds an account's limits cap. All but CountOrgs are counted per
// owner (a user or an organization).
const (
	CountSources    Counted = "sources"
	CountComponents Counted = "components"
	CountWebhooks   Counted = "webhooks"
	CountWorkflows  Counted = "workflows"
	CountAccounts   Counted = "connected accounts"
	CountDataStores Counted = "data stores"
	// CountSubscriptions counts subscriptions and auto-subscriptions
	// together.
	CountSubscriptions Counted = "subscriptions"
	// CountOrgs counts the organizations a user belongs to: each is one
	// more account the user's resources can spread over.
	CountOrgs Counted = "organizations"
)

// LimitError is returned by a write that would take an account past its
// limit; nothing is stored then.
type LimitError struct {
	Kind    Counted
	Account string // the owner; for CountOrgs, the user
	Max     int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("store: %s already has %d %s, the limit", e.Account, e.Max, e.Kind)
}
