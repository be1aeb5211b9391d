package engine

import (
	"context"
	"time"

	"github.com/fount-dev/fount/internal/engine/emit"
)

// channelBudget is a new budget of the source's channels, for a batch of
// its runs or one hook.
func (e *Engine) channelBudget(sourceID string) *emit.Budget {
	return emit.NewBudget(e.cfg.MaxChannels, func(ctx context.Context) ([]string, error) {
		return e.store.Channels(ctx, sourceID)
	})
}

// DeleteEvents deletes events of a source's channel, from startID to
// endID (either empty: no bound), after it returns: a large channel takes
// a while. The deletion is the engine's work, which Stop waits for.
func (e *Engine) DeleteEvents(sourceID, channel, startID, endID string) error {
	end, err := e.beginOp()
	if err != nil {
		return err
	}
	go func() {
		defer end()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.store.DeleteEvents(ctx, sourceID, channel, startID, endID); err != nil {
			e.log.Error("delete events", "source", sourceID, "err", err)
		}
	}()
	return nil
}
