package store

import (
	"log/slog"
	"time"
)

// Option configures OpenBolt and OpenJetStream.
type Option func(*options)

// options are what Options set, shared by both backends.
type options struct {
	now      func() time.Time
	limits   Limits
	onCommit func(d time.Duration, pageWrites int64)
	// statsKept is how long per-minute statistics are kept; 0: none.
	statsKept time.Duration
	log       *slog.Logger
}

func applyOptions(opts []Option) options {
	o := options{now: time.Now, statsKept: DefaultStatsKept, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithClock makes now the clock of event ids and queue times instead of
// time.Now. A caller with its own clock (the engine's tests) shares it
// with the store, so what the store stamps is due by that clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithCommitObserver has observe told of each write transaction's commit:
// how long it took, its write and fsync included, and how many page writes
// it made (a write is one page, or one run of overflow pages). A group of
// enqueues (EnqueueInvocation) is one commit.
func WithCommitObserver(observe func(d time.Duration, pageWrites int64)) Option {
	return func(o *options) { o.onCommit = observe }
}

// WithLogger has the store log what it does on its own (moving records
// when it opens a file of an older layout) to log; by default nothing
// is logged.
func WithLogger(log *slog.Logger) Option {
	return func(o *options) { o.log = log }
}
