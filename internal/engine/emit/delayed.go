package emit

import (
	"encoding/json"
	"fmt"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/model"
)

// Delayed emits wait on a source's $in channel (model.ChannelDelayed) as
// Delayed records. The delayed scheduler (package delayed) keeps, per source, the earliest
// due time it knows of; when it comes, a release invocation is queued, and
// the source's worker moves every due event from $in to its channel in one
// commit (package source's release). A restart rebuilds the due times from the stored
// $in channels, so delays survive it; an event deleted from $in before its
// time is cancelled.

// DelayedVersion is the version of Delayed this code writes.
const DelayedVersion = 1

// Delayed is a delayed emit as the engine stores it on $in: the
// engine's own record, versioned, so that the ABI's wire type can change
// without touching stored data.
type Delayed struct {
	Version int             `json:"v"`
	DueMs   int64           `json:"due_ms"`
	Name    string          `json:"name,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Event   json.RawMessage `json:"event,omitempty"`
	ID      string          `json:"id,omitempty"` // the emit's dedupe id
}

// NewDelayed records em, due at em.DeliveryTS.
func NewDelayed(em abi.Emit) Delayed {
	return Delayed{Version: DelayedVersion, DueMs: *em.DeliveryTS, Name: em.Name, Summary: em.Summary, Event: em.Event, ID: em.IDString()}
}

// DecodeDelayed reads a stored delayed emit: a Delayed record, or the
// abi.Emit that fount stored before the record existed.
func DecodeDelayed(data []byte) (Delayed, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Delayed{}, fmt.Errorf("delayed emit: %w", err)
	}
	switch head.Version {
	case DelayedVersion:
		var r Delayed
		if err := json.Unmarshal(data, &r); err != nil {
			return r, fmt.Errorf("delayed emit: %w", err)
		}
		return r, nil
	case 0: // the ABI's Emit, written before records were versioned
		var em abi.Emit
		if err := json.Unmarshal(data, &em); err != nil || em.DeliveryTS == nil {
			return Delayed{}, fmt.Errorf("delayed emit without a version or delivery time")
		}
		return NewDelayed(em), nil
	}
	return Delayed{}, fmt.Errorf("delayed emit of unknown version %d", head.Version)
}

// Released is the event of the emit the record releases.
func (r Delayed) Released() model.Event {
	data := r.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return model.Event{Name: r.Name, EmitID: NewID(), DedupeID: r.ID, Summary: r.Summary, Data: data}
}
