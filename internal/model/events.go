package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Event is one stored emit of an emitter.
type Event struct {
	ID          string `json:"id"` // <epoch_ms>-<seq>, increasing per emitter
	IndexedAtMs int64  `json:"indexed_at_ms"`
	EmitterID   string `json:"emitter_id"`
	Name        string `json:"name"` // channel; "" default, "$errors", "$logs", "$in"...
	EmitID      string `json:"emit_id"`
	// DedupeID is the id the component gave the emit ($emit's meta.id),
	// "" when it gave none.
	DedupeID string          `json:"dedupe_id,omitempty"`
	Summary  string          `json:"summary,omitempty"`
	Data     json.RawMessage `json:"data"` // the emitted event
	// Size is the length of Data as stored, set by PageEvents, whose
	// preview may cut Data short (it is no longer JSON then).
	Size int `json:"-"`
}

// ErrBadEventID is returned when an event id is not "<epoch_ms>-<seq>".
var ErrBadEventID = errors.New("model: bad event id")

// ChannelDelayed is the channel where emits with a future delivery time
// wait ("$in"). Its events leave it when released; like every channel it
// keeps only the newest keep events, so that a source cannot make it
// grow without bound: an emit delayed past that many later ones is lost.
const ChannelDelayed = "$in"

// ChannelErrors is the channel of an emitter's errors: a failed run, a
// hook's or a step's error.
const ChannelErrors = "$errors"

// ParseEventID splits an event id "<epoch_ms>-<seq>" (both unsigned
// decimal) into its parts.
//
// # Errors
//
// An error wrapping ErrBadEventID for any other form.
func ParseEventID(id string) (ms, seq uint64, err error) {
	a, b, ok := strings.Cut(id, "-")
	if ok {
		ms, err = strconv.ParseUint(a, 10, 64)
	}
	if ok && err == nil {
		seq, err = strconv.ParseUint(b, 10, 64)
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%w: %q", ErrBadEventID, id)
	}
	return ms, seq, nil
}

// FormatEventID is the id of (ms, seq): what ParseEventID splits.
func FormatEventID(ms, seq uint64) string {
	return strconv.FormatUint(ms, 10) + "-" + strconv.FormatUint(seq, 10)
}
