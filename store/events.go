package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ErrBadEventID is returned when an event id is not "<epoch_ms>-<seq>".
var ErrBadEventID = errors.New("store: bad event id")

// ChannelDelayed is the channel where emits with a future delivery time
// wait ("$in"). It is never trimmed: its events leave it when released.
const ChannelDelayed = "$in"

// defaultEventLimit is the keep of AppendEvents and the limit of
// ListEvents when given <= 0.
const defaultEventLimit = 100

// ParseEventID splits an event id "<epoch_ms>-<seq>" (both unsigned
// decimal) into its parts.
//
// # Errors
//
// An error wrapping ErrBadEventID for any other form.
func ParseEventID(id string) (ms, seq uint64, err error) {
	a, b, ok := strings.Cut(id, "-")
	if ok {
		ms, err = strconv.ParseUint(a, 10, 64)
	}
	if ok && err == nil {
		seq, err = strconv.ParseUint(b, 10, 64)
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%w: %q", ErrBadEventID, id)
	}
	return ms, seq, nil
}

// eventID formats the id of (ms, seq).
func eventID(ms, seq uint64) string {
	return strconv.FormatUint(ms, 10) + "-" + strconv.FormatUint(seq, 10)
}

// eventKey is 8-byte big-endian ms then seq, so byte order is id order.
func eventKey(ms, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(be8(ms), seq)
}

// channelName is the bucket name of a channel inside its emitter's bucket;
// the prefix makes the default channel "" a valid name.
func channelName(channel string) []byte {
	return append([]byte("c"), channel...)
}

// channelBucket returns the bucket of a channel, or nil.
func channelBucket(tx *bolt.Tx, emitterID, channel string) *bolt.Bucket {
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
func (b *Bolt) AppendEvents(ctx context.Context, emitterID string, events []Event, keep int) ([]Event, error) {
	if emitterID == "" {
		return nil, errors.New("store: append events: empty emitter id")
	}
	out := make([]Event, len(events))
	copy(out, events)
	if len(out) == 0 {
		return out, nil
	}
	err := b.update(ctx, func(tx *bolt.Tx) error {
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
func appendEvents(tx *bolt.Tx, nowMs int64, emitterID string, out []Event, keep int) error {
	if len(out) == 0 {
		return nil
	}
	if emitterID == "" {
		return errors.New("empty emitter id")
	}
	if keep <= 0 {
		keep = defaultEventLimit
	}
	now := uint64(max(nowMs, 0))
	clocks := tx.Bucket(bucketEventClocks)
	var lastMs, lastSeq uint64
	seen := false
	if v := clocks.Get([]byte(emitterID)); len(v) == 16 {
		lastMs, lastSeq, seen = binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), true
	}
	em, err := tx.Bucket(bucketEvents).CreateBucketIfNotExists([]byte(emitterID))
	if err != nil {
		return err
	}
	touched := map[string]*bolt.Bucket{}
	for i := range out {
		ms, seq := max(now, lastMs), uint64(0)
		if seen && ms == lastMs {
			seq = lastSeq + 1
		}
		lastMs, lastSeq, seen = ms, seq, true
		e := &out[i]
		e.ID, e.IndexedAtMs, e.EmitterID = eventID(ms, seq), int64(ms), emitterID
		ch := touched[e.Name]
		if ch == nil {
			if ch, err = em.CreateBucketIfNotExists(channelName(e.Name)); err != nil {
				return err
			}
			touched[e.Name] = ch
		}
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		if err := ch.Put(eventKey(ms, seq), data); err != nil {
			return err
		}
	}
	if err := clocks.Put([]byte(emitterID), eventKey(lastMs, lastSeq)); err != nil {
		return err
	}
	for name, ch := range touched {
		if name == ChannelDelayed {
			continue // delayed emits wait for their time, whatever their number
		}
		if err := trim(ch, keep); err != nil {
			return err
		}
	}
	return nil
}

// trim deletes the oldest events of ch beyond the newest keep.
func trim(ch *bolt.Bucket, keep int) error {
	var old [][]byte
	c := ch.Cursor()
	n := 0
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		if n++; n > keep {
			old = append(old, clone(k))
		}
	}
	for _, k := range old {
		if err := ch.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// ListEvents returns up to limit (<= 0: 100) events of a channel of
// emitterID, newest first; none for an unknown emitter or channel.
func (b *Bolt) ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = defaultEventLimit
	}
	out := []Event{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		ch := channelBucket(tx, emitterID, channel)
		if ch == nil {
			return nil
		}
		c := ch.Cursor()
		for k, v := c.Last(); k != nil && len(out) < limit; k, v = c.Prev() {
			var e Event
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("decode event %x: %w", k, err)
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list events of %q: %w", emitterID, err)
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
func (b *Bolt) DeleteEvents(ctx context.Context, emitterID, channel, startID, endID string) (int, error) {
	var start, end []byte
	for _, bound := range []struct {
		id  string
		key *[]byte
	}{{startID, &start}, {endID, &end}} {
		if bound.id == "" {
			continue
		}
		ms, seq, err := ParseEventID(bound.id)
		if err != nil {
			return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
		}
		*bound.key = eventKey(ms, seq)
	}
	n := 0
	err := b.update(ctx, func(tx *bolt.Tx) error {
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
			doomed = append(doomed, clone(k))
		}
		for _, k := range doomed {
			if err := ch.Delete(k); err != nil {
				return err
			}
		}
		n = len(doomed)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete events of %q: %w", emitterID, err)
	}
	return n, nil
}

// deleteEmitter removes every event of emitterID and its id clock.
func deleteEmitter(tx *bolt.Tx, emitterID string) error {
	if err := deleteNested(tx.Bucket(bucketEvents), emitterID); err != nil {
		return err
	}
	return tx.Bucket(bucketEventClocks).Delete([]byte(emitterID))
}
