package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Pages of events on JetStream seek by slot, as bbolt seeks by key: a
// channel's events sit in slots First..Next-1 of its record, in id
// order, so a cursor is found by a binary search over the slots, and a
// page reads its events from there, one slot at a time towards older
// events, or through a consumer from the slot's message towards newer
// ones. What a page costs grows with its size and the log of the
// channel's, not with the events the channel keeps.

// PageEvents returns a page of a channel's events, newest first, with
// each event's Size set, by the rules of kv.EventPage.
func (s *Engine) PageEvents(ctx context.Context, emitterID, channel string, p kv.EventPage) ([]model.Event, error) {
	if p.After != "" && p.Before != "" {
		return nil, fmt.Errorf("store: page events: %w: after and before are mutually exclusive", kv.ErrBadCursor)
	}
	var cursor eventPos
	if c := p.After + p.Before; c != "" {
		ms, seq, err := model.ParseEventID(c)
		if err != nil {
			return nil, fmt.Errorf("store: page events of %q: %w", emitterID, err)
		}
		cursor = eventPos{ms, seq}
	}
	if p.Limit <= 0 {
		p.Limit = kv.DefaultEventLimit
	}
	if emitterID == "" {
		return []model.Event{}, nil
	}
	var ch *jsChannel
	err := s.view(ctx, func(tx *jsTx) error {
		var err error
		ch, err = s.readChannel(tx, emitterID, channel)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: page events of %q: %w", emitterID, err)
	}
	pager := &jsPager{s: s, ctx: ctx, emitterID: emitterID, channel: channel, ch: ch, p: p}
	var out []model.Event
	switch {
	case p.Before != "":
		out, err = pager.newerThan(cursor)
	case p.After != "":
		var from uint64
		if from, _, err = pager.seek(cursor); err == nil {
			out, err = pager.olderFrom(from)
		}
	default:
		out, err = pager.olderFrom(ch.Next)
	}
	if err != nil {
		return nil, fmt.Errorf("store: page events of %q: %w", emitterID, err)
	}
	return out, nil
}

// eventPos is an event id's numbers, in id order.
type eventPos struct{ ms, seq uint64 }

func (a eventPos) after(b eventPos) bool {
	return a.ms > b.ms || (a.ms == b.ms && a.seq > b.seq)
}

// jsPager reads one page of a channel.
type jsPager struct {
	s                  *Engine
	ctx                context.Context
	emitterID, channel string
	ch                 *jsChannel
	p                  kv.EventPage
	size               int
}

// slot reads the event in slot n; found is false for a hole.
func (g *jsPager) slot(n uint64) (e model.Event, rawSeq uint64, found bool, err error) {
	var msg *jetstream.RawStreamMsg
	err = g.s.retry(g.ctx, func() error {
		var err error
		msg, err = g.s.stream.GetLastMsgForSubject(g.ctx, g.s.eventKey(g.emitterID, g.channel, n))
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return model.Event{}, 0, false, nil
	}
	if err != nil || msg.Header.Get(hdrOperation) == opDelete {
		return model.Event{}, 0, false, err
	}
	e, err = kv.DecodeEvent(nil, msg.Data, g.p.Preview)
	return e, msg.Sequence, err == nil, err
}

// seek returns the first slot at or after which every event is at or
// after pos (Next when none is), and the stream sequence of that slot's
// message (0 when it is Next). Holes are passed over upwards.
func (g *jsPager) seek(pos eventPos) (uint64, uint64, error) {
	lo, hi := g.ch.First, g.ch.Next // the answer is in [lo, hi]
	var hiSeq uint64
	for lo < hi {
		mid := lo + (hi-lo)/2
		n, e, rawSeq, err := g.liveFrom(mid, hi)
		if err != nil {
			return 0, 0, err
		}
		if n == hi { // only holes in [mid, hi)
			hi = mid
			continue
		}
		ms, seq, err := model.ParseEventID(e.ID)
		if err != nil {
			return 0, 0, err
		}
		if (eventPos{ms, seq}).after(pos) || (eventPos{ms, seq}) == pos {
			hi, hiSeq = n, rawSeq
		} else {
			lo = n + 1
		}
	}
	if hi != g.ch.Next && hiSeq == 0 { // hi was never a live slot: find the first from it
		n, _, rawSeq, err := g.liveFrom(hi, g.ch.Next)
		return n, rawSeq, err
	}
	return hi, hiSeq, nil
}

// liveFrom returns the first slot in [n, end) that holds an event, with
// it, or end.
func (g *jsPager) liveFrom(n, end uint64) (uint64, model.Event, uint64, error) {
	for ; n < end; n++ {
		e, rawSeq, found, err := g.slot(n)
		if err != nil || found {
			return n, e, rawSeq, err
		}
	}
	return end, model.Event{}, 0, nil
}

// fits adds e to the page's bytes and reports whether the page still
// holds it: a page always holds one event.
func (g *jsPager) fits(page []model.Event, e model.Event) bool {
	g.size += len(e.Data)
	return g.p.MaxBytes <= 0 || len(page) == 0 || g.size <= g.p.MaxBytes
}

// olderFrom returns the page of events in the slots below from, newest
// first.
func (g *jsPager) olderFrom(from uint64) ([]model.Event, error) {
	out := []model.Event{}
	for n := from; n > g.ch.First && len(out) < g.p.Limit; {
		n--
		e, _, found, err := g.slot(n)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if !g.fits(out, e) {
			break
		}
		out = append(out, e)
	}
	return out, nil
}

// newerThan returns the page of the events newer than pos nearest it,
// newest first: read oldest first from the slot seek finds, through a
// consumer from its message on.
func (g *jsPager) newerThan(pos eventPos) ([]model.Event, error) {
	n, rawSeq, err := g.seek(pos)
	if err != nil || n == g.ch.Next {
		return []model.Event{}, err
	}
	// The slot seek found may hold pos itself: read one more.
	entries, err := g.s.scanConsumer(g.ctx, g.s.key(tblEvents, g.emitterID, g.channel)+".*", rawSeq, g.p.Limit+1)
	if err != nil {
		return nil, err
	}
	out := []model.Event{}
	for _, entry := range entries {
		e, err := kv.DecodeEvent(nil, entry.value, g.p.Preview)
		if err != nil {
			return nil, err
		}
		ms, seq, err := model.ParseEventID(e.ID)
		if err != nil {
			return nil, err
		}
		if !(eventPos{ms, seq}).after(pos) {
			continue
		}
		if len(out) == g.p.Limit || !g.fits(out, e) {
			break
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, nil
}
