package bolt

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// PageEvents returns a page of a channel's events, newest first, with
// each event's Size set. An events list may hold megabytes per event:
// PageEvents decodes one event at a time and keeps only what p asks for,
// so that a page costs about p.MaxBytes of memory, not Limit events.
//
// # Errors
//
// An error wrapping ErrBadEventID when a cursor is not an event id, and
// kv.ErrBadCursor when both are given.
func (b *Engine) PageEvents(ctx context.Context, emitterID, channel string, p kv.EventPage) ([]model.Event, error) {
	if p.After != "" && p.Before != "" {
		return nil, fmt.Errorf("store: page events: %w: after and before are mutually exclusive", kv.ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = kv.DefaultEventLimit
	}
	out := []model.Event{}
	err := b.view(ctx, func(tx *bbolt.Tx) error {
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
			e, err := kv.DecodeEvent(k, v, p.Preview)
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
func startPage(c *bbolt.Cursor, p kv.EventPage) (k, v []byte, next func() ([]byte, []byte), err error) {
	cursor := p.After + p.Before // one of them, or neither
	if cursor == "" {
		k, v = c.Last()
		return k, v, c.Prev, nil
	}
	ms, seq, err := model.ParseEventID(cursor)
	if err != nil {
		return nil, nil, nil, err
	}
	at := kv.EventKey(ms, seq)
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
