package model

import (
	"math/bits"
	"slices"
	"time"
)

// Stats are what a source, workflow or webhook did in a span of time: a
// minute, as the store keeps them, or the sum of a step's minutes, as
// the API returns them. They are counted in the transactions that commit
// what they count (a run, a delivery attempt), so a crash loses none.
type Stats struct {
	// Events emitted on the resource's channels; $errors, $logs and the
	// events still waiting in $in are not counted.
	Events int64
	// Errors are the events emitted on $errors (a failed run, a hook's
	// or a step's error).
	Errors int64
	// Runs are the runs of a source, or the executions of a workflow,
	// that ended; RunsFailed those of them that failed.
	Runs, RunsFailed int64
	// Delivered counts deliveries to the resource (a webhook, or a
	// workflow's $.send.http) answered with a 2xx; DeliveryFailures the
	// attempts that were not.
	Delivered, DeliveryFailures int64
	// RunTime is the distribution of the runs' durations; Latency that
	// of the time from a delivery's queueing to the 2xx that delivered
	// it, retries included.
	RunTime, Latency Histogram
}

// MaxStatsPoints bounds the points one read of statistics returns: a
// week at a minute each.
const MaxStatsPoints = 7 * 24 * 60

// IsZero reports whether s counts nothing.
func (s *Stats) IsZero() bool {
	return s.Events == 0 && s.Errors == 0 && s.Runs == 0 && s.RunsFailed == 0 &&
		s.Delivered == 0 && s.DeliveryFailures == 0 && s.RunTime.Count() == 0 && s.Latency.Count() == 0
}

// Add adds o's counters to s's.
func (s *Stats) Add(o *Stats) {
	s.Events += o.Events
	s.Errors += o.Errors
	s.Runs += o.Runs
	s.RunsFailed += o.RunsFailed
	s.Delivered += o.Delivered
	s.DeliveryFailures += o.DeliveryFailures
	s.RunTime.Merge(o.RunTime)
	s.Latency.Merge(o.Latency)
}

// RunOutcome is how a run ended, as a commit reports it for statistics.
type RunOutcome struct {
	Failed   bool
	Duration time.Duration
}

// Histogram counts durations in log-linear buckets of microseconds:
// four to each power of two, so a quantile read back is within about 12%
// of the true value, while a minute's histogram of a thousand runs stays
// a handful of buckets. The zero value is empty.
type Histogram struct {
	buckets []HistogramBucket // ascending Index, Count > 0
}

// HistogramBucket is one bucket of a Histogram: Index as
// HistogramIndex gives it, and how many values fell in it.
type HistogramBucket struct {
	Index uint8
	Count uint64
}

// HistogramBuckets is how many bucket indexes there are: durations from
// 2^40 µs (12 days) up share the last.
const HistogramBuckets = 1 + 4*40 + 4

// HistogramIndex is the bucket of a duration of us microseconds: 0 for
// us <= 0; then, for us in [2^k, 2^(k+1)), 1 + 4k + the two bits below
// the leading one.
func HistogramIndex(us int64) uint8 {
	if us <= 0 {
		return 0
	}
	v := uint64(min(us, 1<<41-1))
	k := bits.Len64(v) - 1
	var sub uint64
	if k >= 2 {
		sub = (v >> (k - 2)) & 3
	} else if k == 1 {
		sub = (v & 1) << 1 // 2 and 3 land in buckets of their own
	}
	return uint8(min(1+4*uint64(k)+sub, HistogramBuckets-1))
}

// histogramValue is the value a bucket stands for: its exact value for
// the small ones, otherwise the middle of its range.
func histogramValue(index uint8) int64 {
	if index == 0 {
		return 0
	}
	k, sub := uint(index-1)/4, int64(index-1)%4
	if k < 2 {
		return (4 + sub) << k >> 2
	}
	low, high := (4+sub)<<k>>2, (5+sub)<<k>>2
	return (low + high) / 2
}

// Add counts one duration.
func (h *Histogram) Add(d time.Duration) { h.AddCount(HistogramIndex(d.Microseconds()), 1) }

// AddCount counts n values in bucket index (clamped to the last).
func (h *Histogram) AddCount(index uint8, n uint64) {
	if n == 0 {
		return
	}
	index = min(index, HistogramBuckets-1)
	i, found := slices.BinarySearchFunc(h.buckets, index, func(b HistogramBucket, t uint8) int { return int(b.Index) - int(t) })
	if found {
		h.buckets[i].Count += n
		return
	}
	h.buckets = slices.Insert(h.buckets, i, HistogramBucket{Index: index, Count: n})
}

// Merge adds o's counts to h's.
func (h *Histogram) Merge(o Histogram) {
	for _, b := range o.buckets {
		h.AddCount(b.Index, b.Count)
	}
}

// Buckets returns h's non-empty buckets in ascending order; the slice is
// h's own.
func (h Histogram) Buckets() []HistogramBucket { return h.buckets }

// Count is how many values h holds.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, b := range h.buckets {
		n += b.Count
	}
	return n
}

// Quantile returns the duration below which a fraction q (0 to 1) of
// h's values lie, as its bucket stands for it; 0 for an empty h.
func (h Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n) + 0.5)
	rank = min(max(rank, 1), n)
	var seen uint64
	for _, b := range h.buckets {
		seen += b.Count
		if seen >= rank {
			return time.Duration(histogramValue(b.Index)) * time.Microsecond
		}
	}
	return time.Duration(histogramValue(h.buckets[len(h.buckets)-1].Index)) * time.Microsecond
}
