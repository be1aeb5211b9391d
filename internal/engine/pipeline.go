package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// Channels of the specification.
const (
	channelErrors = model.ChannelErrors
	channelLogs   = "$logs"
)

// Kinds of invocation (model.Invocation.Kind), and of the hooks' runs.
const (
	kindHTTP    = model.InvocationHTTP
	kindTimer   = model.InvocationTimer
	kindManual  = model.InvocationManual
	kindEvent   = model.InvocationEvent
	kindRelease = model.InvocationRelease
	kindResume  = model.InvocationResume
	// kindHook and the hook's name are the kind of a hook's run, which is
	// never queued: it names the trigger of the hook's $errors event.
	kindHook model.InvocationKind = "hook:"
)

// hookKind is the kind of a run of the hook named hook.
func hookKind(hook string) model.InvocationKind { return kindHook + model.InvocationKind(hook) }

// uniqueCacheSize is the specification's dedupe cache of 100 ids.
const uniqueCacheSize = 100

// maxDelay is how far ahead delivery_ts may be: a year.
const maxDelay = 366 * 24 * time.Hour

type pipelineOut struct {
	events []model.Event
	dedupe *model.DedupeState // nil: no strategy, or the run failed
	// dedupeAfter is the dedupe state once the first n events are
	// stored (store.RunCommit.DedupeAfter); nil when dedupe is.
	dedupeAfter func(n int) *model.DedupeState
}

// pipeline turns what a run emitted and logged into events: the emits
// ordered by ts and deduplicated, an $errors event when the run failed or
// the channel limits dropped emits, and one $logs event per console line.
func pipeline(strategy string, inv model.Invocation, c *collector, runErr error, dedupe model.DedupeState, now time.Time) pipelineOut {
	var out pipelineOut
	if runErr == nil {
		emits := orderByTS(c.emits)
		kept, state, err := applyDedupe(strategy, emits, dedupe)
		if err == nil {
			out.dedupe = state
			out.events, err = emitEvents(kept, now)
		}
		if err != nil {
			runErr = err
			out.events, out.dedupe = nil, nil
		}
		if err == nil {
			out.dedupeAfter = dedupeAfter(strategy, kept, dedupe, state)
			if dropped := c.dropped(); dropped != nil {
				out.events = append(out.events, errorEvent(dropped, inv))
			}
			c.keepChannels()
		}
	}
	if runErr != nil {
		out.events = append(out.events, errorEvent(runErr, inv))
	}
	for _, line := range c.logs {
		data, _ := json.Marshal(map[string]any{"level": line.Level, "message": line.Text, "ts": line.Time.UnixMilli()})
		out.events = append(out.events, model.Event{Name: channelLogs, EmitID: newEmitID(), Summary: truncate(line.Text, 120), Data: data})
	}
	return out
}

// dedupeAfter returns the dedupe state after each prefix of the events of
// kept (one event per emit, first in a run's events): the state that
// initial and the emits of the prefix make; final after all of them.
// It is nil when final is (no strategy).
func dedupeAfter(strategy string, kept []abi.Emit, initial model.DedupeState, final *model.DedupeState) func(n int) *model.DedupeState {
	if final == nil {
		return nil
	}
	return func(n int) *model.DedupeState {
		if n >= len(kept) {
			return final
		}
		_, st, _ := applyDedupe(strategy, kept[:n], initial) // kept passed it whole: a prefix does too
		return st
	}
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
		return cmpInt64(*a.TS, *b.TS)
	})
	return out
}

func cmpInt64(a, b int64) int {
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
func applyDedupe(strategy string, emits []abi.Emit, st model.DedupeState) ([]abi.Emit, *model.DedupeState, error) {
	if strategy == "" {
		return emits, nil, nil
	}
	for _, em := range emits {
		if len(em.ID) == 0 {
			return nil, nil, errNoID
		}
	}
	st.Unique = slices.Clone(st.Unique) // st shares it with the caller
	var kept []abi.Emit
	switch strategy {
	case component.DedupeUnique:
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
	case component.DedupeGreatest:
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
	case component.DedupeLast:
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

// emitEvents makes the events of emits: each on its channel, or, with a
// future delivery_ts, a delayedRecord waiting on the $in channel.
func emitEvents(emits []abi.Emit, now time.Time) ([]model.Event, error) {
	var out []model.Event
	for _, em := range emits {
		if em.DeliveryTS == nil || *em.DeliveryTS <= now.UnixMilli() {
			out = append(out, emitEvent(em))
			continue
		}
		if *em.DeliveryTS > now.Add(maxDelay).UnixMilli() {
			return nil, fmt.Errorf("delivery_ts %d is more than a year ahead", *em.DeliveryTS)
		}
		data, _ := json.Marshal(newDelayedRecord(em))
		out = append(out, model.Event{Name: model.ChannelDelayed, EmitID: newEmitID(), DedupeID: em.IDString(), Data: data,
			Summary: "until " + time.UnixMilli(*em.DeliveryTS).UTC().Format(time.RFC3339) + ": " + em.Summary})
	}
	return out, nil
}

func emitEvent(em abi.Emit) model.Event {
	data := em.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return model.Event{Name: em.Name, EmitID: newEmitID(), DedupeID: em.IDString(), Summary: em.Summary, Data: data}
}

func newEmitID() string { return ids.Random() }

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
