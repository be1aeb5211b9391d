package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// channelName is the bucket name of a channel inside its emitter's bucket;
// the prefix makes the default channel "" a valid name.
func channelName(channel string) []byte {
	return append([]byte("c"), channel...)
}

// channelBucket returns the bucket of a channel, or nil.
func channelBucket(tx *bbolt.Tx, emitterID, channel string) *bbolt.Bucket {
	if emitterID == "" {
		return nil
	}
	em := tx.Bucket(bucketEvents).Bucket([]byte(emitterID))
	if em == nil {
		return nil
	}
	return em.Bucket(channelName(channel))
}

// AppendEvents stores events for emitterID and returns them with ID,
// IndexedAtMs and EmitterID set. Ids are "<ms>-<seq>" with ms the later of
// now and the emitter's last ms, and seq counting up within that ms, so
// they increase strictly per emitter across its channels. Then each
// channel touched keeps only its newest keep events (keep <= 0: 100).
// The returned events include any trimmed right away.
func (b *Engine) AppendEvents(ctx context.Context, emitterID string, events []model.Event, keep int) ([]model.Event, error) {
	if emitterID == "" {
		return nil, errors.New("store: append events: empty emitter id")
	}
	out := make([]model.Event, len(events))
	copy(out, events)
	if len(out) == 0 {
		return out, nil
	}
	err := b.update(ctx, func(tx *bbolt.Tx) error {
		return appendEvents(tx, b.now().UnixMilli(), emitterID, out, keep)
	})
	if err != nil {
		return nil, fmt.Errorf("store: append events of %q: %w", emitterID, err)
	}
	return out, nil
}

// appendEvents is AppendEvents inside tx, at clock nowMs: it sets ID,
// IndexedAtMs and EmitterID of each of out in place, stores them,
// advances the emitter's id clock and trims the channels touched to keep
// (<= 0: 100). No events: nothing changes.
func appendEvents(tx *bbolt.Tx, nowMs int64, emitterID string, out []model.Event, keep int) error {
	if len(out) == 0 {
		return nil
	}
	a, err := newAppender(tx, nowMs, emitterID, keep)
	if err != nil {
		return err
	}
	for i := range out {
		if _, err := a.Add(&out[i]); err != nil {
			return err
		}
	}
	return a.Close()
}

// appender stores events of one emitter inside a write transaction, one
// at a time; close records the emitter's id clock and trims the channels
// touched. An appender that added nothing changes nothing.
type appender struct {
	tx        *bbolt.Tx
	now       uint64
	emitterID string
	keep      int

	em              *bbolt.Bucket // created on the first add
	lastMs, lastSeq uint64
	seen            bool
	touched         map[string]*bbolt.Bucket
	added           map[string]uint64 // events added, per channel touched
}

// newAppender reads the emitter's id clock; keep <= 0 means 100.
func newAppender(tx *bbolt.Tx, nowMs int64, emitterID string, keep int) (*appender, error) {
	if emitterID == "" {
		return nil, errors.New("empty emitter id")
	}
	if keep <= 0 {
		keep = kv.DefaultEventLimit
	}
	a := &appender{tx: tx, now: uint64(max(nowMs, 0)), emitterID: emitterID, keep: keep, touched: map[string]*bbolt.Bucket{}, added: map[string]uint64{}}
	if v := tx.Bucket(bucketEventClocks).Get([]byte(emitterID)); len(v) == 16 {
		a.lastMs, a.lastSeq, a.seen = binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), true
	}
	return a, nil
}

// Add stores e with ID, IndexedAtMs and EmitterID set in place, and
// returns the bytes it wrote. Ids are "<ms>-<seq>" with ms the later of
// now and the emitter's last ms, and seq counting up within that ms.
func (a *appender) Add(e *model.Event) (int, error) {
	if a.em == nil {
		em, err := a.tx.Bucket(bucketEvents).CreateBucketIfNotExists([]byte(a.emitterID))
		if err != nil {
			return 0, err
		}
		a.em = em
	}
	ms, seq := kv.NextEventID(a.now, a.lastMs, a.lastSeq, a.seen)
	a.lastMs, a.lastSeq, a.seen = ms, seq, true
	e.ID, e.IndexedAtMs, e.EmitterID = model.FormatEventID(ms, seq), int64(ms), a.emitterID
	ch := a.touched[e.Name]
	if ch == nil {
		var err error
		if ch, err = a.em.CreateBucketIfNotExists(channelName(e.Name)); err != nil {
			return 0, err
		}
		a.touched[e.Name] = ch
	}
	data, err := json.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("encode event: %w", err)
	}
	key := kv.EventKey(ms, seq)
	a.added[e.Name]++
	return len(key) + len(data), ch.Put(key, data)
}

// Close records the emitter's id clock and trims every channel touched,
// $in included, to keep.
func (a *appender) Close() error {
	if a.em == nil {
		return nil
	}
	if err := a.tx.Bucket(bucketEventClocks).Put([]byte(a.emitterID), kv.EventKey(a.lastMs, a.lastSeq)); err != nil {
		return err
	}
	for name, ch := range a.touched {
		n, counted := eventCount(a.em, name)
		if counted {
			n += a.added[name]
		} else {
			n = countEvents(ch) // once per channel stored without a count
		}
		left, err := trim(ch, n, uint64(a.keep))
		if err != nil {
			return err
		}
		if err := setEventCount(a.em, name, left); err != nil {
			return err
		}
	}
	return nil
}

// trim deletes the oldest events of ch, which holds n, beyond the newest
// keep, and returns how many are left. It visits only what it deletes, so
// a channel that keeps many events costs no more to append to than one
// that keeps few.
func trim(ch *bbolt.Bucket, n, keep uint64) (uint64, error) {
	c := ch.Cursor()
	for k, _ := c.First(); k != nil && n > keep; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return n, err
		}
		n--
	}
	return n, nil
}

// Each channel's event count is kept in its emitter's bucket, beside the
// channel's own bucket, under "n" and the channel's name. A channel
// stored before counts were kept has none until its next append counts
// it once.
func countKey(channel string) []byte {
	return append([]byte("n"), channel...)
}

// eventCount reads a channel's stored count; false when none is stored.
func eventCount(em *bbolt.Bucket, channel string) (uint64, bool) {
	v := em.Get(countKey(channel))
	if len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

func setEventCount(em *bbolt.Bucket, channel string, n uint64) error {
	return em.Put(countKey(channel), binary.BigEndian.AppendUint64(nil, n))
}

// forgetEvents lowers a channel's stored count by n events deleted.
func forgetEvents(em *bbolt.Bucket, channel string, n uint64) error {
	have, ok := eventCount(em, channel)
	if !ok {
		return nil // counted at the next append
	}
	return setEventCount(em, channel, have-min(have, n))
}

// countEvents walks a channel to count its events.
func countEvents(ch *bbolt.Bucket) uint64 {
	var n uint64
	c := ch.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// CountEvents returns how many events a channel of emitterID holds: its
// stored count, or for a channel written before counts were kept, its
// keys counted.
func (b *Engine) CountEvents(ctx context.Context, emitterID, channel string) (int, error) {
	var n uint64
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		n = eventsIn(tx, emitterID, channel)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count the events of %q: %w", emitterID, err)
	}
	return int(n), nil
}

// eventsIn is how many events a channel of emitterID holds in tx: its
// stored count, or for a channel written before counts were kept, its
// keys counted.
func eventsIn(tx *bbolt.Tx, emitterID, channel string) uint64 {
	ch := channelBucket(tx, emitterID, channel)
	if ch == nil {
		return 0
	}
	if n, counted := eventCount(tx.Bucket(bucketEvents).Bucket([]byte(emitterID)), channel); counted {
		return n
	}
	return countEvents(ch)
}

// ListEvents returns up to limit (<= 0: 100) events of a channel of
// emitterID, newest first; none for an unknown emitter or channel.
func (b *Engine) ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]model.Event, error) {
	return b.PageEvents(ctx, emitterID, channel, kv.EventPage{Limit: limit})
}

// Channels returns the names of emitterID's channels that hold events,
// in byte order; none for an unknown emitter.
func (b *Engine) Channels(ctx context.Context, emitterID string) ([]string, error) {
	out := []string{}
	err := b.view(ctx, func(tx *bbolt.Tx) error {
		if emitterID == "" {
			return nil
		}
		em := tx.Bucket(bucketEvents).Bucket([]byte(emitterID))
		if em == nil {
			return nil
		}
		return em.ForEachBucket(func(name []byte) error {
			if k, _ := em.Bucket(name).Cursor().First(); k != nil {
				out = append(out, string(name[1:])) // without channelName's prefix
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: channels of %q: %w", emitterID, err)
	}
	return out, nil
}

// DeleteEvents deletes the events of a channel of emitterID whose ids lie
// in [startID, endID] and returns how many it deleted. An empty startID
// starts at the oldest event, an empty endID ends at the newest.
//
// # Errors
//
// An error wrapping ErrBadEventID when a bound is not an event id.
func (b *Engine) DeleteEvents(ctx context.Context, emitterID, channel, startID, endID string) (int, error) {
	start, end, err := kv.EventBounds(startID, endID)
	if err != nil {
		return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
	}
	n := 0
	err = b.update(ctx, func(tx *bbolt.Tx) error {
		ch := channelBucket(tx, emitterID, channel)
		if ch == nil {
			return nil
		}
		var doomed [][]byte
		c := ch.Cursor()
		k, _ := c.First()
		if start != nil {
			k, _ = c.Seek(start)
		}
		for ; k != nil && (end == nil || bytes.Compare(k, end) <= 0); k, _ = c.Next() {
			doomed = append(doomed, kv.Clone(k))
		}
		for _, k := range doomed {
			if err := ch.Delete(k); err != nil {
				return err
			}
		}
		n = len(doomed)
		return forgetEvents(tx.Bucket(bucketEvents).Bucket([]byte(emitterID)), channel, uint64(n))
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
	}
	return n, nil
}

// deleteEmitter removes every event of emitterID and its id clock.
func deleteEmitter(tx *bbolt.Tx, emitterID string) error {
	if err := deleteNested(tx.Bucket(bucketEvents), emitterID); err != nil {
		return err
	}
	return tx.Bucket(bucketEventClocks).Delete([]byte(emitterID))
}
