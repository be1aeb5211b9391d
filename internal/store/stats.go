package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// A resource's statistics are kept a record per hour, under (id, unix
// hour), and an index of the hours kept, under (id, "hours"). An hour's
// record is its minutes that counted something, in ascending order, each
// a block a write can replace or append without decoding the others:
//
//	version byte (1)
//	per minute: minute (0-59) byte, uvarint payload length, payload
//	payload: uvarint Events, Errors, Runs, RunsFailed, Delivered,
//	         DeliveryFailures; then RunTime and Latency, each a uvarint
//	         bucket count and (index byte, uvarint count) per bucket
//
// The bytes a resource takes are bounded by the hours kept: at most
// statsKept/1h + 1 records of at most 60 blocks, each at most about 2 KiB
// (both histograms full), in practice tens of bytes.

const (
	statsVersion  = 1
	statsIndexKey = "hours"
	// DefaultStatsKept is how long per-minute statistics are kept.
	DefaultStatsKept = 7 * 24 * time.Hour
)

// WithStatsKept sets how long each resource's per-minute statistics are
// kept (DefaultStatsKept when not set); 0 counts none, which the
// benchmarks use to measure what counting costs.
func WithStatsKept(d time.Duration) Option {
	return func(o *options) { o.statsKept = max(d, 0) }
}

// statsTally gathers the statistics of one transaction by resource, so
// that a batch of runs of one source writes its minute once.
type statsTally map[string]*model.Stats

// of returns id's tally, made on first use.
func (t statsTally) of(id string) *model.Stats {
	s := t[id]
	if s == nil {
		s = &model.Stats{}
		t[id] = s
	}
	return s
}

// countEvents counts stored events by their channel: $errors as errors,
// the component's own channels as events, and the other channels of
// fount's ($in, $logs) not at all.
func (t statsTally) countEvents(id string, events []model.Event) {
	s := t.of(id)
	for _, e := range events {
		switch {
		case e.Name == model.ChannelErrors:
			s.Errors++
		case strings.HasPrefix(e.Name, "$"):
		default:
			s.Events++
		}
	}
}

// countRun counts the run a commit ends: a source's as the engine
// reports it, a workflow's execution once it is no longer paused.
func (t statsTally) countRun(id string, c RunCommit) {
	o := c.Outcome
	if o == nil && c.Execution != nil && c.Execution.Status != model.ExecutionPaused {
		o = &model.RunOutcome{Failed: c.Execution.Status == model.ExecutionError, Duration: time.Duration(c.Execution.DurationMs) * time.Millisecond}
	}
	if o == nil {
		return
	}
	s := t.of(id)
	s.Runs++
	if o.Failed {
		s.RunsFailed++
	}
	s.RunTime.Add(o.Duration)
}

// writeStats adds every tally to its resource's minute of now.
func (r rules) writeStats(tx kv.Tx, now time.Time, t statsTally) error {
	if r.statsKept <= 0 {
		return nil
	}
	for id, s := range t {
		if err := r.addStats(tx, id, now, s); err != nil {
			return fmt.Errorf("statistics of %q: %w", id, err)
		}
	}
	return nil
}

// addStats adds s to id's minute of at. A record that does not decode
// is started again rather than fail the commit it is part of: a damaged
// hour of statistics must not stop a source's runs.
func (r rules) addStats(tx kv.Tx, id string, at time.Time, s *model.Stats) error {
	if r.statsKept <= 0 || s.IsZero() {
		return nil
	}
	sec := at.Unix()
	hour, minute := sec/3600, uint8(sec/60%60)
	key := strconv.FormatInt(hour, 10)
	data, found, err := tx.Value(kv.Stats, id, key)
	if err != nil {
		return err
	}
	if !found {
		if err := r.openStatsHour(tx, id, hour); err != nil {
			return err
		}
	}
	updated, err := addToHour(data, minute, s)
	if errors.Is(err, errBadStats) {
		if err := r.openStatsHour(tx, id, hour); err != nil { // the index may be damaged too
			return err
		}
		updated, err = addToHour(nil, minute, s)
	}
	if err != nil {
		return err
	}
	return tx.PutValue(kv.Stats, updated, id, key)
}

// maxStatsTrim bounds the old hours one write deletes, so that a
// resource idle for longer than the statistics are kept adds a bounded
// number of deletes to the commit that wakes it (an atomic batch on
// JetStream holds 1,000 messages); the rest go at the next hours' writes,
// and reads skip them meanwhile.
const maxStatsTrim = 24

// openStatsHour adds hour to id's index of hours, and deletes the hours
// older than the statistics are kept, at most maxStatsTrim of them.
func (r rules) openStatsHour(tx kv.Tx, id string, hour int64) error {
	hours, err := statsHours(tx, id)
	if errors.Is(err, errBadStats) {
		hours, err = nil, nil // a damaged index starts again; the hours it named age out of reads
	}
	if err != nil {
		return err
	}
	if i, found := slices.BinarySearch(hours, hour); !found {
		hours = slices.Insert(hours, i, hour)
	}
	oldest := hour - int64(r.statsKept/time.Hour)
	keep := 0
	for keep < len(hours) && hours[keep] < oldest && keep < maxStatsTrim {
		if err := tx.DeleteValue(kv.Stats, id, strconv.FormatInt(hours[keep], 10)); err != nil {
			return err
		}
		keep++
	}
	return putStatsHours(tx, id, hours[keep:])
}

// deleteStats deletes every statistic of id: with the resource. No
// record is read: a damaged one goes as well.
func deleteStats(tx kv.Tx, id string) error {
	return tx.DeleteValuesUnder(kv.Stats, id)
}

// statsHours reads id's index of hours, ascending.
func statsHours(tx kv.Tx, id string) ([]int64, error) {
	data, found, err := tx.Value(kv.Stats, id, statsIndexKey)
	if err != nil || !found {
		return nil, err
	}
	var hours []int64
	for len(data) > 0 {
		h, n := binary.Varint(data)
		if n <= 0 {
			return nil, fmt.Errorf("statistics index of %q: %w", id, errBadStats)
		}
		hours = append(hours, h)
		data = data[n:]
	}
	return hours, nil
}

func putStatsHours(tx kv.Tx, id string, hours []int64) error {
	data := make([]byte, 0, len(hours)*binary.MaxVarintLen32)
	for _, h := range hours {
		data = binary.AppendVarint(data, h)
	}
	return tx.PutValue(kv.Stats, data, id, statsIndexKey)
}

// StatsOf returns id's statistics from from (inclusive) to to
// (exclusive), a point per step, each the sum of the minutes in it: point
// i covers [from+i*step, from+(i+1)*step). from is taken down to its
// minute; step is a whole number of minutes.
//
// # Errors
//
// An error names a step that is not a positive whole number of minutes,
// a range that is empty, or one of more than model.MaxStatsPoints points.
func (r rules) StatsOf(ctx context.Context, id string, from, to time.Time, step time.Duration) ([]model.Stats, error) {
	from = from.Truncate(time.Minute)
	if step < time.Minute || step%time.Minute != 0 {
		return nil, fmt.Errorf("store: statistics of %q: step %s is not a whole number of minutes", id, step)
	}
	if !to.After(from) {
		return nil, fmt.Errorf("store: statistics of %q: the range from %s to %s is empty", id, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	n := (to.Sub(from) + step - 1) / step
	if n > model.MaxStatsPoints {
		return nil, fmt.Errorf("store: statistics of %q: %d points of %s asked, at most %d", id, n, step, model.MaxStatsPoints)
	}
	points := make([]model.Stats, n)
	fromSec, toSec, stepSec := from.Unix(), to.Unix(), int64(step/time.Second)
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		hours, err := statsHours(tx, id)
		if errors.Is(err, errBadStats) {
			return nil // a damaged index reads as no statistics; the next hour's write starts it again
		}
		if err != nil {
			return err
		}
		expired := r.now().Unix()/3600 - int64(r.statsKept/time.Hour) // hours not yet trimmed, but past keeping
		for _, h := range hours {
			if h*3600+3600 <= fromSec || h*3600 >= toSec || h < expired {
				continue
			}
			data, found, err := tx.Value(kv.Stats, id, strconv.FormatInt(h, 10))
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			var hour [60]*model.Stats
			if eachMinute(data, func(minute uint8, s *model.Stats) { hour[minute] = s }) != nil {
				continue // a damaged hour reads as empty; its next write starts it again
			}
			for minute, s := range hour {
				at := h*3600 + int64(minute)*60
				if s != nil && at >= fromSec && at < toSec {
					points[(at-fromSec)/stepSec].Add(s)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: statistics of %q: %w", id, err)
	}
	return points, nil
}

var errBadStats = errors.New("malformed statistics record")

// addToHour returns the hour record data with s added to its minute. A
// write to the newest minute, or past it, touches only the last block.
func addToHour(data []byte, minute uint8, s *model.Stats) ([]byte, error) {
	if len(data) == 0 {
		data = []byte{statsVersion}
	}
	if data[0] != statsVersion {
		return nil, fmt.Errorf("%w: version %d", errBadStats, data[0])
	}
	lastAt, lastMinute := -1, -1
	for at := 1; at < len(data); {
		m, _, next, err := nextBlock(data, at)
		if err != nil {
			return nil, err
		}
		lastAt, lastMinute = at, int(m)
		at = next
	}
	switch {
	case int(minute) > lastMinute:
		return appendBlock(data, minute, s), nil
	case int(minute) == lastMinute:
		_, payload, _, _ := nextBlock(data, lastAt)
		var sum model.Stats
		if err := decodeMinute(payload, &sum); err != nil {
			return nil, err
		}
		sum.Add(s)
		return appendBlock(data[:lastAt], minute, &sum), nil
	}
	// An earlier minute (a commit whose clock runs behind another's):
	// rewrite the hour.
	var minutes [60]*model.Stats
	err := eachMinute(data, func(m uint8, ms *model.Stats) { minutes[m] = ms })
	if err != nil {
		return nil, err
	}
	if minutes[minute] == nil {
		minutes[minute] = &model.Stats{}
	}
	minutes[minute].Add(s)
	out := []byte{statsVersion}
	for m, ms := range minutes {
		if ms != nil {
			out = appendBlock(out, uint8(m), ms)
		}
	}
	return out, nil
}

// eachMinute decodes an hour record, calling fn for each minute in order.
func eachMinute(data []byte, fn func(minute uint8, s *model.Stats)) error {
	if len(data) == 0 || data[0] != statsVersion {
		return fmt.Errorf("%w: no version %d header", errBadStats, statsVersion)
	}
	last := -1
	for at := 1; at < len(data); {
		m, payload, next, err := nextBlock(data, at)
		if err != nil {
			return err
		}
		if int(m) <= last {
			return fmt.Errorf("%w: minute %d after %d", errBadStats, m, last)
		}
		last = int(m)
		var s model.Stats
		if err := decodeMinute(payload, &s); err != nil {
			return err
		}
		fn(m, &s)
		at = next
	}
	return nil
}

// nextBlock reads the minute block at data[at:]: its minute, payload, and
// where the next block starts.
func nextBlock(data []byte, at int) (minute uint8, payload []byte, next int, err error) {
	minute = data[at]
	if minute >= 60 {
		return 0, nil, 0, fmt.Errorf("%w: minute %d", errBadStats, minute)
	}
	n, w := binary.Uvarint(data[at+1:])
	if w <= 0 || n > uint64(len(data)-at-1-w) {
		return 0, nil, 0, fmt.Errorf("%w: block of minute %d is cut short", errBadStats, minute)
	}
	start := at + 1 + w
	return minute, data[start : start+int(n)], start + int(n), nil
}

// appendBlock appends minute's block of s to data.
func appendBlock(data []byte, minute uint8, s *model.Stats) []byte {
	payload := encodeMinute(make([]byte, 0, 64), s)
	data = append(data, minute)
	data = binary.AppendUvarint(data, uint64(len(payload)))
	return append(data, payload...)
}

func encodeMinute(b []byte, s *model.Stats) []byte {
	for _, v := range [...]int64{s.Events, s.Errors, s.Runs, s.RunsFailed, s.Delivered, s.DeliveryFailures} {
		b = binary.AppendUvarint(b, uint64(max(v, 0)))
	}
	for _, h := range [...]*model.Histogram{&s.RunTime, &s.Latency} {
		buckets := h.Buckets()
		b = binary.AppendUvarint(b, uint64(len(buckets)))
		for _, bk := range buckets {
			b = append(b, bk.Index)
			b = binary.AppendUvarint(b, bk.Count)
		}
	}
	return b
}

// maxStatsCount bounds a decoded counter, so that sums over a week of
// minutes cannot overflow.
const maxStatsCount = 1 << 48

func decodeMinute(b []byte, s *model.Stats) error {
	read := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > maxStatsCount {
			return 0, fmt.Errorf("%w: bad counter", errBadStats)
		}
		b = b[n:]
		return v, nil
	}
	for _, dst := range [...]*int64{&s.Events, &s.Errors, &s.Runs, &s.RunsFailed, &s.Delivered, &s.DeliveryFailures} {
		v, err := read()
		if err != nil {
			return err
		}
		*dst = int64(v)
	}
	for _, h := range [...]*model.Histogram{&s.RunTime, &s.Latency} {
		n, err := read()
		if err != nil || n > model.HistogramBuckets {
			return fmt.Errorf("%w: bad bucket count", errBadStats)
		}
		last := -1
		for range n {
			if len(b) == 0 {
				return fmt.Errorf("%w: histogram cut short", errBadStats)
			}
			index := b[0]
			b = b[1:]
			if int(index) <= last || index >= model.HistogramBuckets {
				return fmt.Errorf("%w: bucket %d after %d", errBadStats, index, last)
			}
			last = int(index)
			count, err := read()
			if err != nil || count == 0 {
				return fmt.Errorf("%w: bad bucket count", errBadStats)
			}
			h.AddCount(index, count)
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after a minute", errBadStats, len(b))
	}
	return nil
}
