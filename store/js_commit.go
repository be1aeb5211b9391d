package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/ids"
	"github.com/fount-dev/fount/model"
)

// jsTxMaxWrites bounds the writes of one transaction of CompleteRuns,
// well under the server's bound of an atomic batch (jsMaxBatch): the
// trimming of each channel adds up to as many deletes (jsMaxTrim), and a
// run's last writes (its channels' records, dedupe, usage...) come after.
// A run that emits more commits its first events in transactions of their
// own, as CompleteRuns does in bbolt.
const jsTxMaxWrites = jsMaxBatch / 4

// CompleteRun removes inv from the queue and applies c, in one
// transaction, as Bolt.CompleteRun does.
func (s *JetStream) CompleteRun(ctx context.Context, inv model.Invocation, c RunCommit) ([]model.Event, error) {
	if len(c.Events) > jsTxMaxWrites { // more than one batch takes: in parts
		out, err := s.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: c}})
		if err == nil && out[0] == nil {
			err = fmt.Errorf("invocation %q: %w", inv.ID, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("store: complete run of %q: %w", inv.SourceID, err)
		}
		return out[0], nil
	}
	var out []model.Event
	err := s.update(ctx, func(tx *jsTx) error {
		if err := s.dequeue(tx, inv); err != nil {
			return fmt.Errorf("invocation %q: %w", inv.ID, err)
		}
		var err error
		out, err = s.applyCommit(tx, inv.SourceID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: complete run of %q: %w", inv.SourceID, err)
	}
	return out, nil
}

// CompleteRuns commits runs in order, as many in one transaction (one
// atomic batch) as fit in jsTxMaxWrites, as Bolt.CompleteRuns commits up
// to its budget in one: the records the runs share (the source's channels
// and clock, the account's usage) are read once per batch, and the batch
// costs one replicated write however many runs it holds. A run larger
// than one batch commits in several: its completion is committed with its
// last events, and each earlier part with the dedupe state c.DedupeAfter
// gives. Once begun, it goes on whatever ctx says.
func (s *JetStream) CompleteRuns(ctx context.Context, runs []CompletedRun) ([][]model.Event, error) {
	detached := context.WithoutCancel(ctx)
	return completeInParts(ctx, runs, func(at commitPos) (next commitPos, stored [][]model.Event, err error) {
		err = s.update(detached, func(tx *jsTx) error {
			var err error
			next, stored, err = s.completeRuns(tx, runs, at)
			return err
		})
		return next, stored, err
	})
}

// completeRuns commits runs from at on, in tx, until it holds
// jsTxMaxWrites messages, and returns where the next transaction starts
// and the events stored for runs[at.run], runs[at.run+1], ...
func (s *JetStream) completeRuns(tx *jsTx, runs []CompletedRun, at commitPos) (commitPos, [][]model.Event, error) {
	var stored [][]model.Event
	for at.run < len(runs) && (len(stored) == 0 || tx.messages() < jsTxMaxWrites) {
		events, end, done, err := s.completePart(tx, runs[at.run], at.event)
		if err != nil {
			return at, nil, err
		}
		stored = append(stored, events)
		if !done { // the run goes on in the next transaction
			return commitPos{run: at.run, event: end}, stored, nil
		}
		at = commitPos{run: at.run + 1}
	}
	return at, stored, nil
}

// completePart commits run r's events from on, in tx, up to the bound of
// one transaction, and its completion once they are all stored. It
// returns the events stored, where the next part starts and whether the
// run is done. A run whose invocation is gone is done with nothing.
func (s *JetStream) completePart(tx *jsTx, r CompletedRun, from int) ([]model.Event, int, bool, error) {
	k, err := s.invocationKey(tx, r.Invocation)
	if errors.Is(err, ErrNotFound) {
		return nil, 0, true, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if err := checkRelease(r.Commit); err != nil {
		return nil, 0, false, err
	}
	nowMs := s.now().UnixMilli()
	events, end, err := s.applyEvents(tx, nowMs, r.Invocation.SourceID, r.Commit, from, jsTxMaxWrites)
	if err != nil {
		return nil, 0, false, err
	}
	if end < len(r.Commit.Events) {
		if f := r.Commit.DedupeAfter; f != nil {
			if err := s.putDedupe(tx, r.Invocation.SourceID, f(end)); err != nil {
				return nil, 0, false, err
			}
		}
		return events, end, false, nil
	}
	tx.del(k)
	return events, end, true, s.finishCommit(tx, r.Invocation.SourceID, r.Commit)
}

// CommitEvents applies c for sourceID as CompleteRun does, without an
// invocation to remove.
func (s *JetStream) CommitEvents(ctx context.Context, sourceID string, c RunCommit) ([]model.Event, error) {
	if sourceID == "" {
		return nil, errors.New("store: commit events: empty source id")
	}
	var out []model.Event
	err := s.update(ctx, func(tx *jsTx) error {
		var err error
		out, err = s.applyCommit(tx, sourceID, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: commit events of %q: %w", sourceID, err)
	}
	return out, nil
}

// applyCommit applies all of c for the source in tx and returns the
// stored events.
func (s *JetStream) applyCommit(tx *jsTx, sourceID string, c RunCommit) ([]model.Event, error) {
	if err := checkRelease(c); err != nil {
		return nil, err
	}
	out, _, err := s.applyEvents(tx, s.now().UnixMilli(), sourceID, c, 0, 0)
	if err != nil {
		return nil, err
	}
	return out, s.finishCommit(tx, sourceID, c)
}

// applyEvents stores c.Events[from:] for the source, releasing and routing
// each, until tx holds maxWrites writes (<= 0: no bound; at least one
// event is stored). It returns the stored events and the index of the
// first event left for later (len(c.Events) when none).
func (s *JetStream) applyEvents(tx *jsTx, nowMs int64, sourceID string, c RunCommit, from, maxWrites int) ([]model.Event, int, error) {
	if from >= len(c.Events) {
		return nil, from, nil
	}
	a, err := s.newAppender(tx, nowMs, sourceID, c.Keep)
	if err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	var out []model.Event
	i := from
	for ; i < len(c.Events) && (i == from || maxWrites <= 0 || tx.messages() < maxWrites); i++ {
		if len(c.Release) > 0 {
			ok, err := s.release(tx, a, c.Release[i])
			if err != nil {
				return nil, from, err
			}
			if !ok {
				continue // cancelled meanwhile
			}
		}
		e := c.Events[i]
		if _, err := a.add(&e); err != nil {
			return nil, from, fmt.Errorf("append events: %w", err)
		}
		if c.Route != nil {
			if err := s.enqueueRouted(tx, nowMs, c.Route(e)); err != nil {
				return nil, from, fmt.Errorf("route event %s: %w", e.ID, err)
			}
		}
		out = append(out, e)
	}
	if err := a.close(); err != nil {
		return nil, from, fmt.Errorf("append events: %w", err)
	}
	return out, i, nil
}

// finishCommit writes what a commit changes besides its events.
func (s *JetStream) finishCommit(tx *jsTx, sourceID string, c RunCommit) error {
	if err := s.putDedupe(tx, sourceID, c.Dedupe); err != nil {
		return err
	}
	if c.Execution != nil {
		if err := s.putExecution(tx, c.Execution, c.ExecutionsKept); err != nil {
			return err
		}
	}
	if len(c.Deliveries) > 0 {
		if err := s.enqueueRouted(tx, s.now().UnixMilli(), Routed{Deliveries: c.Deliveries}); err != nil {
			return err
		}
	}
	if c.UsageAccount != "" {
		day := c.UsageDay
		if day == "" {
			day = s.now().UTC().Format(time.DateOnly)
		}
		if err := s.addUsage(tx, c.UsageAccount, day, model.Usage{Invocations: c.Invocations, ComputeMs: c.ComputeMs}); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	return nil
}

// putDedupe replaces the source's dedupe state with st, unless st is nil.
func (s *JetStream) putDedupe(tx *jsTx, sourceID string, st *model.DedupeState) error {
	if st == nil {
		return nil
	}
	if err := tx.putJSON(s.key(tblDedupe, sourceID), st); err != nil {
		return fmt.Errorf("dedupe: %w", err)
	}
	return nil
}

// enqueueRouted queues what routing one event returned.
func (s *JetStream) enqueueRouted(tx *jsTx, nowMs int64, r Routed) error {
	for _, inv := range r.Invocations {
		if _, err := s.putInvocation(tx, nowMs, inv); err != nil {
			return fmt.Errorf("enqueue invocation for %q: %w", inv.SourceID, err)
		}
	}
	for _, d := range r.Deliveries {
		if ids.Is(d.ListenerID, ids.Webhook) {
			ok, err := tx.has(s.key(tblWebhooks, d.ListenerID))
			if err != nil {
				return err
			}
			if !ok {
				continue // deleted since the route was computed: nobody to deliver to
			}
		}
		if _, err := s.createDelivery(tx, nowMs, d); err != nil {
			return fmt.Errorf("enqueue delivery to %q: %w", d.ListenerID, err)
		}
	}
	return nil
}

// release removes the event id from the source's ChannelDelayed; false
// when it is not there (cancelled). It finds the event by a scan of the
// channel, which only the source's own commits change, and each of them
// rewrites the channel's record, whose revision this transaction checks.
func (s *JetStream) release(tx *jsTx, a *jsAppender, id string) (bool, error) {
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
		e, err := decodeEvent(nil, st.data, 0)
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
		return true, nil // the appender writes the channel's record
	}
	return false, nil
}
