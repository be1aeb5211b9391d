package engine

import (
	"encoding/json"
	"fmt"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/model"
)

// Delayed emits wait on a source's $in channel (store.ChannelDelayed) as
// delayedRecords. The delayed scheduler (package delayed) keeps, per source, the earliest
// due time it knows of; when it comes, a release invocation is queued, and
// the source's worker moves every due event from $in to its channel in one
// commit (releaseCommit). A restart rebuilds the due times from the stored
// $in channels, so delays survive it; an event deleted from $in before its
// time is cancelled.

// delayedVersion is the version of delayedRecord this code writes.
const delayedVersion = 1

// delayedRecord is a delayed emit as the engine stores it on $in: the
// engine's own record, versioned, so that the ABI's wire type can change
// without touching stored data.
type delayedRecord struct {
	Version int             `json:"v"`
	DueMs   int64           `json:"due_ms"`
	Name    string          `json:"name,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Event   json.RawMessage `json:"event,omitempty"`
	ID      string          `json:"id,omitempty"` // the emit's dedupe id
}

// newDelayedRecord records em, due at em.DeliveryTS.
func newDelayedRecord(em abi.Emit) delayedRecord {
	return delayedRecord{Version: delayedVersion, DueMs: *em.DeliveryTS, Name: em.Name, Summary: em.Summary, Event: em.Event, ID: em.IDString()}
}

// decodeDelayed reads a stored delayed emit: a delayedRecord, or the
// abi.Emit that fount stored before the record existed.
func decodeDelayed(data []byte) (delayedRecord, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return delayedRecord{}, fmt.Errorf("delayed emit: %w", err)
	}
	switch head.Version {
	case delayedVersion:
		var r delayedRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return r, fmt.Errorf("delayed emit: %w", err)
		}
		return r, nil
	case 0: // the ABI's Emit, written before records were versioned
		var em abi.Emit
		if err := json.Unmarshal(data, &em); err != nil || em.DeliveryTS == nil {
			return delayedRecord{}, fmt.Errorf("delayed emit without a version or delivery time")
		}
		return newDelayedRecord(em), nil
	}
	return delayedRecord{}, fmt.Errorf("delayed emit of unknown version %d", head.Version)
}

// event is the emit the record releases.
func (r delayedRecord) event() model.Event {
	data := r.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return model.Event{Name: r.Name, EmitID: newEmitID(), DedupeID: r.ID, Summary: r.Summary, Data: data}
}
