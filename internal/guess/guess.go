// Package guess slows down the guessing of secrets that travel in
// requests: API keys, and the secret part of a paused execution's resume
// and cancel URLs. A Throttle counts failed tries in buckets (a client's
// address, a key's prefix, a workflow) and says how long a bucket that
// failed too often must wait. Only failures are counted and only failures
// are refused: a secret that is right is always answered, so that no
// client, and nobody who can make a bucket fail, locks out the holder of
// a right secret. The secrets are random and long enough that refusing a
// right one would buy nothing.
//
// ClientAddr names the client a request comes from, trusting
// X-Forwarded-For only from the proxies the operator configured.
package guess

import (
	"sync"
	"time"
)

// maxBuckets bounds a throttle's memory; past it the full buckets (no
// failure lately) are dropped first.
const maxBuckets = 100_000

// Throttle counts failed tries per bucket: each bucket may fail Burst
// times at once, then once every Every.
type Throttle struct {
	burst float64
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket holds the tries left, refilled one per Every.
type bucket struct {
	left float64
	at   time.Time
}

// New returns a throttle that lets each bucket fail burst times at once
// and then once every every; nil now is time.Now.
func New(burst int, every time.Duration, now func() time.Time) *Throttle {
	if now == nil {
		now = time.Now
	}
	return &Throttle{burst: float64(burst), every: every, now: now, buckets: map[string]*bucket{}}
}

// Wait is how long a try counted in buckets must wait before it may
// fail again: 0 when it may now. Call it once a try has failed, before
// Failed: a failure past the budget is refused, never counted.
func (t *Throttle) Wait(buckets ...string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range buckets {
		b := t.buckets[k]
		if b == nil {
			continue
		}
		t.refill(b, now)
		if b.left < 1 {
			longest = max(longest, time.Duration((1-b.left)*float64(t.every)))
		}
	}
	return longest
}

// Failed counts a failed try in each of buckets.
func (t *Throttle) Failed(buckets ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.buckets) >= maxBuckets {
		t.prune(now)
	}
	for _, k := range buckets {
		b := t.buckets[k]
		if b == nil {
			b = &bucket{left: t.burst, at: now}
			t.buckets[k] = b
		}
		t.refill(b, now)
		b.left = max(b.left-1, 0)
	}
}

// Refuse is Wait then Failed: the wait before a failed try may be
// answered, or 0 once it has been counted.
func (t *Throttle) Refuse(buckets ...string) time.Duration {
	if d := t.Wait(buckets...); d > 0 {
		return d
	}
	t.Failed(buckets...)
	return 0
}

// RetryAfter is a wait as a Retry-After header gives it: whole seconds,
// rounded up.
func RetryAfter(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

func (t *Throttle) refill(b *bucket, now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.left = min(t.burst, b.left+float64(d)/float64(t.every))
	}
	b.at = now
}

// prune drops the buckets that have refilled, and then, if the throttle
// is still full, half of the rest. Called with t.mu held.
func (t *Throttle) prune(now time.Time) {
	for k, b := range t.buckets {
		if t.refill(b, now); b.left >= t.burst {
			delete(t.buckets, k)
		}
	}
	for k := range t.buckets {
		if len(t.buckets) < maxBuckets/2 {
			break
		}
		delete(t.buckets, k)
	}
}
