package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// EventPage asks PageEvents for a page of a channel's events. After and
// Before are event ids, mutually exclusive.
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

// PageEvents returns a page of a channel's events, newest first, with
// each event's Size set. An events list may hold megabytes per event:
// PageEvents decodes one event at a time and keeps only what p asks for,
// so that a page costs about p.MaxBytes of memory, not Limit events.
//
// # Errors
//
// An error wrapping ErrBadEventID when a cursor is not an event id, and
// ErrBadCursor when both are given.
func (b *Bolt) PageEvents(ctx context.Context, emitterID, channel string, p EventPage) ([]model.Event, error) {
	if p.After != "" && p.Before != "" {
		return nil, fmt.Errorf("store: page events: %w: after and before are mutually exclusive", ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = defaultEventLimit
	}
	out := []model.Event{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ch := channelBucket(tx, emitterID, channel)
		if ch == nil {
			return nil
		}
		c := ch.Cursor()
		k, v, next, err := startPage(c, p)
		if err != nil {
			return err
		}
		size := 0
		for ; k != nil && len(out) < limit; k, v = next() {
			e, err := decodeEvent(k, v, p.Preview)
			if err != nil {
				return err
			}
			size += len(e.Data)
			if p.MaxBytes > 0 && len(out) > 0 && size > p.MaxBytes {
				break
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: page events of %q: %w", emitterID, err)
	}
	if p.Before != "" {
		slices.Reverse(out) // read oldest first, from the cursor up
	}
	return out, nil
}

// startPage places c on the first event of a page, the one nearest the
// page's cursor, and returns the step away from the cursor.
func startPage(c *bolt.Cursor, p EventPage) (k, v []byte, next func() ([]byte, []byte), err error) {
	cursor := p.After + p.Before // one of them, or neither
	if cursor == "" {
		k, v = c.Last()
		return k, v, c.Prev, nil
	}
	ms, seq, err := model.ParseEventID(cursor)
	if err != nil {
		return nil, nil, nil, err
	}
	at := eventKey(ms, seq)
	k, v = c.Seek(at) // the first event at or after the cursor
	if p.Before != "" {
		if k != nil && bytes.Equal(k, at) {
			k, v = c.Next()
		}
		return k, v, c.Next, nil
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	return k, v, c.Prev, nil
}

// decodeEvent decodes a stored event, keeping only the first preview
// bytes of its data when preview is above 0.
func decodeEvent(k, v []byte, preview int) (model.Event, error) {
	var e model.Event
	if err := json.Unmarshal(v, &e); err != nil {
		return model.Event{}, fmt.Errorf("decode event %x: %w", k, err)
	}
	e.Size = len(e.Data)
	if preview > 0 && len(e.Data) > preview {
		e.Data = bytes.Clone(e.Data[:preview]) // let the whole data go
	}
	return e, nil
}
