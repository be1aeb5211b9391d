package emit

import (
	"context"
	"strconv"
	"sync"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// MaxLogLines bounds the console lines kept from one run. Each becomes an
// event of its own, and the sandbox's cap on console output counts bytes,
// so a run printing empty lines would otherwise make millions of events.
const MaxLogLines = 1000

// Collector gathers what a run emits and logs, for the commit after it.
// It is the run's sandbox.EmitSink and sandbox.LogSink. With a channel
// budget, emits to channels past the limits are dropped and counted.
type Collector struct {
	channels *Budget // nil: no channel limits

	mu        sync.Mutex
	emits     []abi.Emit
	logs      []sandbox.LogEntry
	logsCut   bool
	added     map[string]bool // channels this run adds
	droppedBy map[string]int  // emits dropped, per channel
}

// NewCollector is a collector whose emits budget admits (nil: no channel
// limits, as for an action run on its own).
func NewCollector(budget *Budget) *Collector { return &Collector{channels: budget} }

// Emits are what the run emitted, in order, within the budget.
func (c *Collector) Emits() []abi.Emit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.emits
}

// Logs are the run's console lines.
func (c *Collector) Logs() []sandbox.LogEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs
}

func (c *Collector) Emit(ctx context.Context, em abi.Emit) error {
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

func (c *Collector) Log(_ context.Context, l sandbox.LogEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case len(c.logs) < MaxLogLines:
		c.logs = append(c.logs, l)
	case !c.logsCut:
		c.logsCut = true
		c.logs = append(c.logs, sandbox.LogEntry{Time: l.Time, Level: "warn",
			Text: "[fount: console lines past " + strconv.Itoa(MaxLogLines) + " in one run were dropped]"})
	}
	return nil
}

// Dropped describes the emits the channel limits dropped; nil when none.
func (c *Collector) Dropped() *LimitError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.droppedBy) == 0 {
		return nil
	}
	return &LimitError{dropped: c.droppedBy, perSource: c.channels.perSource, perRun: c.channels.perRun}
}

// KeepChannels records in the budget the channels the run added, once
// it has succeeded.
func (c *Collector) KeepChannels() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.channels != nil {
		c.channels.keep(c.added)
	}
}
