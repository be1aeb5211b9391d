package jetstream

import (
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// txMaxWrites bounds the writes of one transaction of CompleteRuns,
// well under the server's bound of an atomic batch (jsMaxBatch): the
// trimming of each channel adds up to as many deletes (jsMaxTrim), and a
// run's last writes (its channels' records, dedupe, usage...) come after.
// A run that emits more commits its first events in transactions of their
// own, as CompleteRuns does in bbolt.
const txMaxWrites = jsMaxBatch / 4

// release removes the event id from the source's ChannelDelayed; false
// when it is not there (cancelled). It finds the event by a scan of the
// channel, which only the source's own commits change, and each of them
// rewrites the channel's record, whose revision this transaction checks.
func (s *Engine) release(tx *jsTx, a *jsAppender, id string) (bool, error) {
	if _, _, err := model.ParseEventID(id); err != nil {
		return false, fmt.Errorf("release: %w", err)
	}
	ch, err := a.channel(model.ChannelDelayed)
	if err != nil {
		return false, err
	}
	stored, err := s.channelEvents(tx.ctx, a.emitterID, model.ChannelDelayed)
	if err != nil {
		return false, err
	}
	for _, st := range stored {
		e, err := kv.DecodeEvent(nil, st.data, 0)
		if err != nil {
			return false, err
		}
		if e.ID != id {
			continue
		}
		k := s.eventKey(a.emitterID, model.ChannelDelayed, st.n)
		if live, err := tx.has(k); err != nil || !live {
			return false, err
		}
		tx.del(k)
		ch.hole(st.n)
		ch.Count -= min(ch.Count, 1)
		a.released = true
		return true, nil // the appender writes the channel's record
	}
	return false, nil
}
