package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/store"
)

// Channels of the spec.
const (
	channelErrors = "$errors"
	channelLogs   = "$logs"
)

// Kinds of invocation.
const (
	kindHTTP    = "http"
	kindTimer   = "timer"
	kindManual  = "manual"
	kindEvent   = "event"
	kindRelease = "release" // emit delayed events whose time has come
)

// uniqueCacheSize is the spec's dedupe cache of 100 ids.
const uniqueCacheSize = 100

type pipelineOut struct {
	events []store.Event
	dedupe *store.DedupeState
}

// pipeline turns what a run emitted and logged into events: the emits
// ordered by ts and deduplicated, an $errors event when the run failed, and
// one $logs event per console line.
func (e *Engine) pipeline(l *live, inv store.Invocation, c *collector, runErr error, dedupe store.DedupeState) pipelineOut {
	var out pipelineOut
	if runErr == nil {
		emits := orderByTS(c.emits)
		kept, state, err := applyDedupe(l.meta.Dedupe, emits, dedupe)
		if err == nil {
			out.dedupe = state
			out.events, err = e.emitEvents(kept, time.Now())
		}
		if err != nil {
			runErr = err
			out.events, out.dedupe = nil, nil
		}
	}
	if runErr != nil {
		out.events = append(out.events, errorEvent(runErr, inv))
	}
	for _, line := range c.logs {
		data, _ := json.Marshal(map[string]any{"level": line.Level, "message": line.Text, "ts": line.Time.UnixMilli()})
		out.events = append(out.events, store.Event{Name: channelLogs, EmitID: newEmitID(), Summary: truncate(line.Text, 120), Data: data})
	}
	return out
}

// orderByTS sorts emits oldest to newest when any carries ts; emits without
// ts keep their order, after those with one.
func orderByTS(emits []abi.Emit) []abi.Emit {
	if !slices.ContainsFunc(emits, func(em abi.Emit) bool { return em.TS != nil }) {
		return emits
	}
	out := slices.Clone(emits)
	slices.SortStableFunc(out, func(a, b abi.Emit) int {
		switch {
		case a.TS == nil && b.TS == nil:
			return 0
		case a.TS == nil:
			return 1
		case b.TS == nil:
			return -1
		}
		return compareInt64(*a.TS, *b.TS)
	})
	return out
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var errNoID = errors.New("an emit without an id on a source with a dedupe strategy")

// applyDedupe filters emits by the source's strategy and returns the new
// state. It returns a nil state when the strategy is none.
func applyDedupe(strategy string, emits []abi.Emit, st store.DedupeState) ([]abi.Emit, *store.DedupeState, error) {
	if strategy == "" {
		return emits, nil, nil
	}
	for _, em := range emits {
		if len(em.ID) == 0 {
			return nil, nil, errNoID
		}
	}
	var kept []abi.Emit
	switch strategy {
	case "unique":
		seen := map[string]bool{}
		for _, id := range st.Unique {
			seen[id] = true
		}
		for _, em := range emits {
			id := em.IDString()
			if seen[id] {
				continue
			}
			seen[id] = true
			kept = append(kept, em)
			st.Unique = append(st.Unique, id)
		}
		if n := len(st.Unique); n > uniqueCacheSize {
			st.Unique = slices.Clone(st.Unique[n-uniqueCacheSize:]) // the oldest ids go first
		}
	case "greatest":
		for _, em := range emits {
			n, err := strconv.ParseFloat(em.IDString(), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("dedupe greatest needs numeric ids, got %q", em.IDString())
			}
			if st.Greatest == nil || n > *st.Greatest {
				kept = append(kept, em)
				st.Greatest = &n
			}
		}
	case "last":
		start := 0
		for i, em := range emits {
			if st.Last != "" && em.IDString() == st.Last {
				start = i + 1
			}
		}
		kept = emits[start:]
		if len(kept) > 0 {
			st.Last = kept[len(kept)-1].IDString()
		}
	default:
		return nil, nil, fmt.Errorf("unknown dedupe strategy %q", strategy)
	}
	return kept, &st, nil
}

// maxDelay is how far ahead delivery_ts may be: a year.
const maxDelay = 366 * 24 * time.Hour

// emitEvents makes the events of emits: each on its channel, or, with a
// future delivery_ts, waiting on the $in channel until then.
func (e *Engine) emitEvents(emits []abi.Emit, now time.Time) ([]store.Event, error) {
	var out []store.Event
	for _, em := range emits {
		if em.DeliveryTS == nil || *em.DeliveryTS <= now.UnixMilli() {
			out = append(out, emitEvent(em))
			continue
		}
		if *em.DeliveryTS > now.Add(maxDelay).UnixMilli() {
			return nil, fmt.Errorf("delivery_ts %d is more than a year ahead", *em.DeliveryTS)
		}
		data, _ := json.Marshal(em)
		out = append(out, store.Event{Name: store.ChannelDelayed, EmitID: newEmitID(), Data: data,
			Summary: "until " + time.UnixMilli(*em.DeliveryTS).UTC().Format(time.RFC3339) + ": " + em.Summary})
	}
	return out, nil
}

func emitEvent(em abi.Emit) store.Event {
	data := em.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return store.Event{Name: em.Name, EmitID: newEmitID(), Summary: em.Summary, Data: data}
}

// errorEvent describes a failed run on the $errors channel.
func errorEvent(err error, inv store.Invocation) store.Event {
	desc := map[string]any{"name": "Error", "message": err.Error()}
	var se *host.ScriptError
	switch {
	case errors.As(err, &se):
		desc = map[string]any{"name": se.Name, "message": se.Message, "stack": se.Stack}
	case errors.Is(err, host.ErrTimeout):
		desc["name"], desc["message"] = "TimeoutError", "the run did not finish within its time limit"
	case errors.Is(err, host.ErrOutOfMemory):
		desc["name"], desc["message"] = "OutOfMemoryError", "the run ran out of memory"
	}
	original := inv.Event
	if len(original) == 0 {
		original = json.RawMessage("null")
	}
	data, _ := json.Marshal(map[string]any{"error": desc, "original_event": original, "trigger": inv.Kind})
	return store.Event{Name: channelErrors, EmitID: newEmitID(), Summary: truncate(fmt.Sprint(desc["name"], ": ", desc["message"]), 120), Data: data}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func newEmitID() string { return store.NewID("") }
