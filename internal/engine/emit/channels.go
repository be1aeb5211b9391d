package emit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fount-dev/fount/internal/model"
)

// Channel limits. Each channel of a source is a bucket of its own in the
// store, and a component names them freely: one run emitting to 100,000
// channels made a commit that held the store's writer for seconds, and
// every channel is kept for good. A source may have at most
// the engine's Config.MaxChannels channels (default DefaultMaxChannels), and one run
// may add at most NewChannelsPerRun of them; emits to channels past
// either are dropped, and the run gets an $errors event that says so.
//
// The per-run figure is far above what a component uses (a handful of
// fixed names); it bounds what one commit creates whatever the per-source
// figure is set to, and a component that names channels after its data
// meets it, and its $errors event, on its first run.
const (
	DefaultMaxChannels = 100
	NewChannelsPerRun  = 20
)

// ReservedChannel reports whether name is the default channel or one
// fount writes itself: those never count against the limits.
func ReservedChannel(name string) bool {
	switch name {
	case "", model.ChannelErrors, ChannelLogs, model.ChannelDelayed:
		return true
	}
	return false
}

// Budget is what a source may still add of channels: it knows the
// channels the source has (stored, or added by earlier runs of the batch)
// and the limits. The stored ones are read on first need. Runs of one
// batch share a budget, one at a time; a hook has one of its own.
type Budget struct {
	perSource, perRun int
	load              func(ctx context.Context) ([]string, error)
	known             map[string]bool // nil until loaded; reserved channels left out
}

// NewBudget is the budget of a source of at most perSource channels,
// whose stored channels load reads.
func NewBudget(perSource int, load func(ctx context.Context) ([]string, error)) *Budget {
	return &Budget{perSource: perSource, perRun: min(NewChannelsPerRun, perSource), load: load}
}

// admit reports whether a run that has added the channels in added so
// far may emit to name; when name is a channel the run adds, admit adds
// it to added.
func (b *Budget) admit(ctx context.Context, name string, added map[string]bool) (bool, error) {
	if ReservedChannel(name) || added[name] {
		return true, nil
	}
	if b.known == nil {
		stored, err := b.load(ctx)
		if err != nil {
			return false, fmt.Errorf("engine: channels of the source: %w", err)
		}
		b.known = map[string]bool{}
		for _, ch := range stored {
			if !ReservedChannel(ch) {
				b.known[ch] = true
			}
		}
	}
	switch {
	case b.known[name]:
		return true, nil
	case len(added) >= b.perRun, len(b.known)+len(added) >= b.perSource:
		return false, nil
	}
	added[name] = true
	return true, nil
}

// keep records the channels a run that succeeded added.
func (b *Budget) keep(added map[string]bool) {
	for ch := range added {
		b.known[ch] = true // admit loaded known before it added any
	}
}

// LimitError reports the emits of a run that the channel limits
// dropped.
type LimitError struct {
	dropped           map[string]int // emits per channel
	perSource, perRun int
}

// maxNamedChannels is how many dropped channels the message names.
const maxNamedChannels = 5

func (e *LimitError) Error() string {
	names := make([]string, 0, len(e.dropped))
	emits := 0
	for ch, n := range e.dropped {
		names = append(names, ch)
		emits += n
	}
	slices.Sort(names)
	shown := names[:min(len(names), maxNamedChannels)]
	for i, ch := range shown {
		shown[i] = strconv.Quote(Truncate(ch, 40))
	}
	list := strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("%d emits to %d new channels were dropped (%s): a source may have at most %d channels besides the default one, $errors and $logs, and one run may add at most %d",
		emits, len(names), list, e.perSource, e.perRun)
}
