package jetstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Events on JetStream. Each event is the one message of its subject
// ev.<emitter>.<channel>.<n>, n counting the channel's appends from 1, so
// a channel's events in stream order are in id order, and trimming
// deletes from its oldest n on, with no scan. A channel's record
// (evch.<emitter>.<channel>) holds the oldest n still kept, the next n
// and how many are live; the emitter's id clock (evclock.<emitter>)
// makes ids increase per emitter. Both are read and rewritten by every
// append, so appends of one emitter take turns, as in bbolt.
const (
	tblEvents      = "ev"      // emitter, channel, n → Event
	tblEventChans  = "evch"    // emitter, channel → jsChannel
	tblEventClocks = "evclock" // emitter → jsClock
)

// jsMaxTrim bounds the slots one transaction trims from a channel.
const jsMaxTrim = jsMaxBatch / 4

// jsChannel is the record of a channel of an emitter.
type jsChannel struct {
	First uint64 `json:"first"` // the oldest n that may hold an event
	Next  uint64 `json:"next"`  // the n of the next event
	Count uint64 `json:"count"` // events kept
	// HolesBelow bounds the slots deleted out of turn (by DeleteEvents,
	// or a delayed emit's release): every slot from it to Next holds an
	// event, so trimming past it deletes without reading. Records from
	// before it was kept lack it (Bounded false): any slot may be a hole.
	HolesBelow uint64 `json:"holes_below,omitempty"`
	Bounded    bool   `json:"bounded,omitempty"`
}

// hole notes that slot n was deleted out of turn.
func (ch *jsChannel) hole(n uint64) {
	ch.HolesBelow = max(ch.HolesBelow, n+1)
}

// jsClock is an emitter's last event id.
type jsClock struct {
	Ms  uint64 `json:"ms"`
	Seq uint64 `json:"seq"`
}

// jsAppender stores events of one emitter in a transaction; close writes
// the clock and the channels' records, trimming each to keep.
type jsAppender struct {
	s         *Engine
	tx        *jsTx
	now       uint64
	emitterID string
	keep      uint64
	// released: a delayed event left; its channel's record is written
	// even when nothing was added.
	released bool
	clock    jsClock
	seen     bool
	chans    map[string]*jsChannel
	added    map[string][]uint64 // the n of each event added, per channel
}

func (s *Engine) newAppender(tx *jsTx, nowMs int64, emitterID string, keep int) (*jsAppender, error) {
	if emitterID == "" {
		return nil, errors.New("empty emitter id")
	}
	if keep <= 0 {
		keep = kv.DefaultEventLimit
	}
	a := &jsAppender{s: s, tx: tx, now: uint64(max(nowMs, 0)), emitterID: emitterID, keep: uint64(keep),
		chans: map[string]*jsChannel{}, added: map[string][]uint64{}}
	err := tx.getJSON(s.key(tblEventClocks, emitterID), &a.clock)
	switch {
	case err == nil:
		a.seen = true
	case !errors.Is(err, kv.ErrNotFound):
		return nil, err
	}
	return a, nil
}

// channel reads the record of a channel once per transaction.
func (a *jsAppender) channel(name string) (*jsChannel, error) {
	if ch, ok := a.chans[name]; ok {
		return ch, nil
	}
	ch, err := a.s.readChannel(a.tx, a.emitterID, name)
	if err != nil {
		return nil, err
	}
	a.chans[name] = ch
	return ch, nil
}

// readChannel reads a channel's record; a channel never written starts
// at n = 1.
func (s *Engine) readChannel(tx *jsTx, emitterID, name string) (*jsChannel, error) {
	var ch jsChannel
	err := tx.getJSON(s.key(tblEventChans, emitterID, name), &ch)
	switch {
	case errors.Is(err, kv.ErrNotFound):
		return &jsChannel{First: 1, Next: 1, Bounded: true}, nil
	case err != nil:
		return nil, err
	}
	if !ch.Bounded {
		ch.HolesBelow, ch.Bounded = ch.Next, true
	}
	return &ch, nil
}

// Add stores e with ID, IndexedAtMs and EmitterID set in place, and
// returns the bytes it wrote.
func (a *jsAppender) Add(e *model.Event) (int, error) {
	ms, seq := kv.NextEventID(a.now, a.clock.Ms, a.clock.Seq, a.seen)
	a.clock, a.seen = jsClock{Ms: ms, Seq: seq}, true
	e.ID, e.IndexedAtMs, e.EmitterID = model.FormatEventID(ms, seq), int64(ms), a.emitterID
	ch, err := a.channel(e.Name)
	if err != nil {
		return 0, err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("encode event: %w", err)
	}
	a.tx.put(a.s.eventKey(a.emitterID, e.Name, ch.Next), data)
	a.added[e.Name] = append(a.added[e.Name], ch.Next)
	ch.Next++
	ch.Count++
	return len(data), nil
}

func (s *Engine) eventKey(emitterID, channel string, n uint64) string {
	return s.key(tblEvents, emitterID, channel, strconv.FormatUint(n, 10))
}

// Close writes the clock and trims every channel touched to keep.
func (a *jsAppender) Close() error {
	if len(a.added) == 0 && !a.released {
		return nil
	}
	if err := a.tx.putJSON(a.s.key(tblEventClocks, a.emitterID), a.clock); err != nil {
		return err
	}
	for name, ch := range a.chans {
		keep := a.keep
		if len(a.added[name]) == 0 {
			keep = math.MaxUint64 // only released from: nothing came to trim, only its record to write
		}
		if err := a.s.trim(a.tx, a.emitterID, name, ch, keep, a.added[name]); err != nil {
			return err
		}
	}
	return nil
}

// trim deletes a channel's oldest events beyond keep, then writes its
// record. An event added by this transaction and trimmed at once is never
// written at all (fresh holds the n added by this appender; tx.fresh tells
// those of the transaction's earlier runs).
func (s *Engine) trim(tx *jsTx, emitterID, name string, ch *jsChannel, keep uint64, fresh []uint64) error {
	// At most jsMaxTrim slots a transaction, holes included, so that the
	// batch stays in bounds; a channel left over keep is trimmed further
	// by its next appends.
	for visited := 0; ch.Count > keep && ch.First < ch.Next && visited < jsMaxTrim; ch.First++ {
		visited++
		k := s.eventKey(emitterID, name, ch.First)
		if slices.Contains(fresh, ch.First) || tx.fresh(k) {
			tx.unput(k)
			ch.Count--
			continue
		}
		live := true
		if ch.First < ch.HolesBelow {
			var err error
			if live, err = tx.has(k); err != nil {
				return err
			}
		}
		if live {
			tx.del(k)
			ch.Count--
		}
	}
	return tx.putJSON(s.key(tblEventChans, emitterID, name), ch)
}

// AppendEvents stores events for emitterID and returns them with ID,
// IndexedAtMs and EmitterID set, as Bolt.AppendEvents does.
func (s *Engine) AppendEvents(ctx context.Context, emitterID string, events []model.Event, keep int) ([]model.Event, error) {
	if emitterID == "" {
		return nil, errors.New("store: append events: empty emitter id")
	}
	out := slices.Clone(events)
	if len(out) == 0 {
		return []model.Event{}, nil
	}
	err := s.update(ctx, func(tx *jsTx) error {
		a, err := s.newAppender(tx, s.now().UnixMilli(), emitterID, keep)
		if err != nil {
			return err
		}
		for i := range out {
			out[i] = events[i] // a retry starts again from what was given
			if _, err := a.Add(&out[i]); err != nil {
				return err
			}
		}
		return a.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("store: append events of %q: %w", emitterID, err)
	}
	return out, nil
}

// jsStoredEvent is an event as scanned, with the n of its subject.
type jsStoredEvent struct {
	n    uint64
	data []byte
}

// channelEvents returns a channel's stored events, oldest first. It is a
// scan of the channel's subjects, for what must see all of them
// (DeleteEvents, a release from ChannelDelayed); pages seek instead
// (events_page.go).
func (s *Engine) channelEvents(ctx context.Context, emitterID, channel string) ([]jsStoredEvent, error) {
	entries, err := s.scan(ctx, s.key(tblEvents, emitterID, channel)+".*")
	if err != nil {
		return nil, err
	}
	out := make([]jsStoredEvent, 0, len(entries))
	for _, e := range entries {
		parts, err := s.keyParts(tblEvents, e.subject)
		if err != nil || len(parts) != 3 {
			return nil, fmt.Errorf("event key %s: %w", e.subject, err)
		}
		n, err := strconv.ParseUint(parts[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("event key %s: %w", e.subject, err)
		}
		out = append(out, jsStoredEvent{n: n, data: e.value})
	}
	slices.SortFunc(out, func(a, b jsStoredEvent) int { return compareUint(a.n, b.n) })
	return out, nil
}

// ListEvents returns up to limit (<= 0: 100) events of a channel of
// emitterID, newest first; none for an unknown emitter or channel.
func (s *Engine) ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]model.Event, error) {
	return s.PageEvents(ctx, emitterID, channel, kv.EventPage{Limit: limit})
}

// CountEvents returns how many events a channel of emitterID holds: the
// count its record keeps.
func (s *Engine) CountEvents(ctx context.Context, emitterID, channel string) (int, error) {
	if emitterID == "" {
		return 0, nil
	}
	ch, err := s.readChannel(s.begin(ctx), emitterID, channel)
	if err != nil {
		return 0, fmt.Errorf("store: count the events of %q: %w", emitterID, err)
	}
	return int(ch.Count), nil
}

// Channels returns the names of emitterID's channels that hold events,
// in byte order; none for an unknown emitter.
func (s *Engine) Channels(ctx context.Context, emitterID string) ([]string, error) {
	out := []string{}
	if emitterID == "" {
		return out, nil
	}
	entries, err := s.scan(ctx, s.key(tblEventChans, emitterID)+".*")
	if err != nil {
		return nil, fmt.Errorf("store: channels of %q: %w", emitterID, err)
	}
	for _, e := range entries {
		var ch jsChannel
		if err := json.Unmarshal(e.value, &ch); err != nil {
			return nil, fmt.Errorf("store: channels of %q: %w", emitterID, err)
		}
		parts, err := s.keyParts(tblEventChans, e.subject)
		if errors.Is(err, errHashedPart) {
			continue // a name too long to list
		}
		if err != nil || len(parts) != 2 {
			return nil, fmt.Errorf("store: channels of %q: key %s: %w", emitterID, e.subject, err)
		}
		if ch.Count > 0 {
			out = append(out, parts[1])
		}
	}
	slices.Sort(out)
	return out, nil
}

// DeleteEvents deletes the events of a channel of emitterID whose ids lie
// in [startID, endID] and returns how many it deleted, as
// Bolt.DeleteEvents does. A range of more events than one batch holds is
// deleted over several transactions.
func (s *Engine) DeleteEvents(ctx context.Context, emitterID, channel, startID, endID string) (int, error) {
	start, end, err := kv.EventBounds(startID, endID)
	if err != nil {
		return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
	}
	if emitterID == "" {
		return 0, nil
	}
	stored, err := s.channelEvents(ctx, emitterID, channel)
	if err != nil {
		return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
	}
	var doomed []uint64
	for _, st := range stored {
		var e model.Event
		if err := json.Unmarshal(st.data, &e); err != nil {
			return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
		}
		ms, seq, err := model.ParseEventID(e.ID)
		if err != nil {
			return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
		}
		k := kv.EventKey(ms, seq)
		if (start == nil || bytes.Compare(k, start) >= 0) && (end == nil || bytes.Compare(k, end) <= 0) {
			doomed = append(doomed, st.n)
		}
	}
	deleted := 0
	for chunk := range slices.Chunk(doomed, jsMaxBatch/2) {
		n := 0
		err := s.update(ctx, func(tx *jsTx) error {
			n = 0
			ch, err := s.readChannel(tx, emitterID, channel)
			if err != nil {
				return err
			}
			for _, at := range chunk {
				k := s.eventKey(emitterID, channel, at)
				if live, err := tx.has(k); err != nil || !live {
					if err != nil {
						return err
					}
					continue // trimmed or deleted meanwhile
				}
				tx.del(k)
				ch.hole(at)
				n++
			}
			ch.Count -= min(ch.Count, uint64(n))
			return tx.putJSON(s.key(tblEventChans, emitterID, channel), ch)
		})
		if err != nil {
			return deleted, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
		}
		deleted += n
	}
	return deleted, nil
}

// deleteEmitterAfter removes every event of emitterID, with its channels'
// records and its clock: after the transaction that deleted the emitter
// committed, as purges, since an emitter may keep more events than one
// batch holds.
func (s *Engine) deleteEmitterAfter(ctx context.Context, emitterID string) error {
	for _, table := range []string{tblEvents, tblEventChans} {
		if err := s.purge(ctx, s.key(table, emitterID)+".>"); err != nil {
			return err
		}
	}
	return s.purge(ctx, s.key(tblEventClocks, emitterID))
}
