package engine

import (
	"context"
	"strconv"
	"sync"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// maxLogLines bounds the console lines kept from one run. Each becomes an
// event of its own, and the sandbox's cap on console output counts bytes,
// so a run printing empty lines would otherwise make millions of events.
const maxLogLines = 1000

// collector gathers what a run emits and logs, for the commit after it.
// It is the run's sandbox.EmitSink and sandbox.LogSink. With a channel
// budget, emits to channels past the limits are dropped and counted.
type collector struct {
	channels *channelBudget // nil: no channel limits

	mu        sync.Mutex
	emits     []abi.Emit
	logs      []sandbox.LogEntry
	logsCut   bool
	added     map[string]bool // channels this run adds
	droppedBy map[string]int  // emits dropped, per channel

	goneAccounts goneAccounts // app props whose connected account is gone
}

func (c *collector) Emit(ctx context.Context, em abi.Emit) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.channels != nil {
		if c.added == nil {
			c.added = map[string]bool{}
		}
		ok, err := c.channels.admit(ctx, em.Name, c.added)
		if err != nil {
			return err
		}
		if !ok {
			if c.droppedBy == nil {
				c.droppedBy = map[string]int{}
			}
			c.droppedBy[em.Name]++
			return nil
		}
	}
	c.emits = append(c.emits, em)
	return nil
}

func (c *collector) Log(_ context.Context, l sandbox.LogEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case len(c.logs) < maxLogLines:
		c.logs = append(c.logs, l)
	case !c.logsCut:
		c.logsCut = true
		c.logs = append(c.logs, sandbox.LogEntry{Time: l.Time, Level: "warn",
			Text: "[fount: console lines past " + strconv.Itoa(maxLogLines) + " in one run were dropped]"})
	}
	return nil
}

// dropped describes the emits the channel limits dropped; nil when none.
func (c *collector) dropped() *channelLimitError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.droppedBy) == 0 {
		return nil
	}
	return &channelLimitError{dropped: c.droppedBy, perSource: c.channels.perSource, perRun: c.channels.perRun}
}

// keepChannels records in the budget the channels the run added, once it
// has succeeded.
func (c *collector) keepChannels() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.channels != nil {
		c.channels.keep(c.added)
	}
}
