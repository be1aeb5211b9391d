package emit

import (
	"cmp"
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

// ChannelLogs is the channel of a run's console lines.
const ChannelLogs = "$logs"

// UniqueCacheSize is the specification's dedupe cache of 100 ids.
const UniqueCacheSize = 100

// MaxDelay is how far ahead delivery_ts may be: a year.
const MaxDelay = 366 * 24 * time.Hour

// Out is what the pipeline made of a run.
type Out struct {
	Events []model.Event
	Dedupe *model.DedupeState // nil: no strategy, or the run failed
	// DedupeAfter is the dedupe state once the first n events are
	// stored (store.RunCommit.DedupeAfter); nil when Dedupe is.
	DedupeAfter func(n int) *model.DedupeState
}

// Pipeline turns what a run emitted and logged into events: the emits
// ordered by ts and deduplicated, an $errors event when the run failed or
// the channel limits dropped emits, and one $logs event per console line.
func Pipeline(strategy string, inv model.Invocation, c *Collector, runErr error, dedupe model.DedupeState, now time.Time) Out {
	var out Out
	if runErr == nil {
		emits := OrderByTS(c.Emits())
		kept, state, err := ApplyDedupe(strategy, emits, dedupe)
		if err == nil {
			out.Dedupe = state
			out.Events, err = Events(kept, now)
		}
		if err != nil {
			runErr = err
			out.Events, out.Dedupe = nil, nil
		}
		if err == nil {
			out.DedupeAfter = dedupeAfter(strategy, kept, dedupe, state)
			if dropped := c.Dropped(); dropped != nil {
				out.Events = append(out.Events, ErrorEvent(dropped, inv))
			}
			c.KeepChannels()
		}
	}
	if runErr != nil {
		out.Events = append(out.Events, ErrorEvent(runErr, inv))
	}
	for _, line := range c.Logs() {
		data, _ := json.Marshal(map[string]any{"level": line.Level, "message": line.Text, "ts": line.Time.UnixMilli()})
		out.Events = append(out.Events, model.Event{Name: ChannelLogs, EmitID: NewID(), Summary: Truncate(line.Text, 120), Data: data})
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
		_, st, _ := ApplyDedupe(strategy, kept[:n], initial) // kept passed it whole: a prefix does too
		return st
	}
}

// OrderByTS sorts emits oldest to newest when any carries ts; emits without
// ts keep their order, after those with one.
func OrderByTS(emits []abi.Emit) []abi.Emit {
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
		return cmp.Compare(*a.TS, *b.TS)
	})
	return out
}

var errNoID = errors.New("an emit without an id on a source with a dedupe strategy")

// ApplyDedupe filters emits by the source's strategy and returns the new
// state. It returns a nil state when the strategy is none.
func ApplyDedupe(strategy string, emits []abi.Emit, st model.DedupeState) ([]abi.Emit, *model.DedupeState, error) {
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
		if n := len(st.Unique); n > UniqueCacheSize {
			st.Unique = slices.Clone(st.Unique[n-UniqueCacheSize:]) // the oldest ids go first
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

// Events makes the events of emits: each on its channel, or, with a
// future delivery_ts, a Delayed record waiting on the $in channel.
func Events(emits []abi.Emit, now time.Time) ([]model.Event, error) {
	var out []model.Event
	for _, em := range emits {
		if em.DeliveryTS == nil || *em.DeliveryTS <= now.UnixMilli() {
			out = append(out, Event(em))
			continue
		}
		if *em.DeliveryTS > now.Add(MaxDelay).UnixMilli() {
			return nil, fmt.Errorf("delivery_ts %d is more than a year ahead", *em.DeliveryTS)
		}
		data, _ := json.Marshal(NewDelayed(em))
		out = append(out, model.Event{Name: model.ChannelDelayed, EmitID: NewID(), DedupeID: em.IDString(), Data: data,
			Summary: "until " + time.UnixMilli(*em.DeliveryTS).UTC().Format(time.RFC3339) + ": " + em.Summary})
	}
	return out, nil
}

// Event is the event of an emit, on its channel.
func Event(em abi.Emit) model.Event {
	data := em.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return model.Event{Name: em.Name, EmitID: NewID(), DedupeID: em.IDString(), Summary: em.Summary, Data: data}
}

// NewID is a new emit id: what tells apart the events a run stores.
func NewID() string { return ids.Random() }

// Truncate is s cut to n characters, marked when cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
