package kv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
)

// DefaultEventLimit is the keep of AppendEvents and the limit of
// ListEvents when given <= 0.
const DefaultEventLimit = 100

// NextEventID is the id of an emitter's next event at clock now, after
// its last (lastMs, lastSeq; seen false: none): ms the later of now and
// lastMs, seq counting up within that ms, so that ids increase strictly.
func NextEventID(now, lastMs, lastSeq uint64, seen bool) (ms, seq uint64) {
	ms = max(now, lastMs)
	if seen && ms == lastMs {
		return ms, lastSeq + 1
	}
	return ms, 0
}

// EventKey is 8-byte big-endian ms then seq, so byte order is id order.
func EventKey(ms, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(BE8(ms), seq)
}

// EventBounds returns the keys of the bounds of a range of event ids; an
// empty id is an open bound (nil).
func EventBounds(startID, endID string) (start, end []byte, err error) {
	for _, bound := range []struct {
		id  string
		key *[]byte
	}{{startID, &start}, {endID, &end}} {
		if bound.id == "" {
			continue
		}
		ms, seq, err := model.ParseEventID(bound.id)
		if err != nil {
			return nil, nil, err
		}
		*bound.key = EventKey(ms, seq)
	}
	return start, end, nil
}

// EventPage asks PageEvents for a page of a channel's events.
type EventPage = model.EventPage

// DecodeEvent decodes a stored event, keeping only the first preview
// bytes of its data when preview is above 0.
func DecodeEvent(k, v []byte, preview int) (model.Event, error) {
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
