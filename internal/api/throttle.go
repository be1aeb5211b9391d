package api

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Wrong API keys are throttled, so that guessing one is slow: each client
// address, and each key prefix (what a guess at one known key varies
// least), may fail keyFailBurst times at once and then once every
// keyFailEvery. A client past it is answered 429 with Retry-After for
// every key, right or wrong, until it may try again: answering a right
// key would tell a guesser which guess was right. Keys that work cost
// nothing. Behind a proxy every client shares its address; the proxy
// should throttle by client then.
const (
	keyFailBurst = 20
	keyFailEvery = 3 * time.Second
	// keyPrefixLen is the part of a presented key that is throttled as
	// one: "fount_" and 6 characters of the random part.
	keyPrefixLen = 12
	// maxThrottleBuckets bounds the throttle's memory; past it the full
	// buckets (nobody failing lately) are dropped first.
	maxThrottleBuckets = 100_000
)

// keyThrottle counts wrong keys by client address and by key prefix.
type keyThrottle struct {
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*failBucket
}

// failBucket holds the tries left, refilled one per keyFailEvery.
type failBucket struct {
	left float64
	at   time.Time
}

func newKeyThrottle(now func() time.Time) *keyThrottle {
	if now == nil {
		now = time.Now
	}
	return &keyThrottle{now: now, buckets: map[string]*failBucket{}}
}

// throttleKeys are the buckets a try of key from r counts in.
func throttleKeys(r *http.Request, key string) [2]string {
	prefix := key
	if len(prefix) > keyPrefixLen {
		prefix = prefix[:keyPrefixLen]
	}
	return [2]string{"addr " + clientAddr(r), "key " + prefix}
}

// clientAddr is the client's address, an IPv6 one by its /64 (what one
// host is usually given).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.Unmap().String()
}

// wait is how long a client must wait before it may try a key again; 0
// when it may now.
func (t *keyThrottle) wait(r *http.Request, key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range throttleKeys(r, key) {
		b := t.buckets[k]
		if b == nil {
			continue
		}
		b.refill(now)
		if b.left < 1 {
			longest = max(longest, time.Duration((1-b.left)*float64(keyFailEvery)))
		}
	}
	return longest
}

// failed counts a wrong key.
func (t *keyThrottle) failed(r *http.Request, key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.buckets) >= maxThrottleBuckets {
		t.prune(now)
	}
	for _, k := range throttleKeys(r, key) {
		b := t.buckets[k]
		if b == nil {
			b = &failBucket{left: keyFailBurst, at: now}
			t.buckets[k] = b
		}
		b.refill(now)
		b.left = max(b.left-1, 0)
	}
}

func (b *failBucket) refill(now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.left = min(keyFailBurst, b.left+float64(d)/float64(keyFailEvery))
	}
	b.at = now
}

// prune drops the buckets that have refilled, and then, if the throttle
// is still full, half of the rest. Called with t.mu held.
func (t *keyThrottle) prune(now time.Time) {
	for k, b := range t.buckets {
		if b.refill(now); b.left >= keyFailBurst {
			delete(t.buckets, k)
		}
	}
	for k := range t.buckets {
		if len(t.buckets) < maxThrottleBuckets/2 {
			break
		}
		delete(t.buckets, k)
	}
}

// throttled answers 429 when the client must wait before trying a key,
// and reports whether it did.
func (s *Server) throttled(w http.ResponseWriter, r *http.Request, key string) bool {
	d := s.keyThrottle.wait(r, key)
	if d <= 0 {
		return false
	}
	secs := int((d + time.Second - 1) / time.Second)
	s.writeError(w, r, &Error{Status: http.StatusTooManyRequests, Code: "too_many_attempts", RetryAfter: secs,
		Message: "Too many wrong API keys were tried from this address, or like this key; try again in " + strconv.Itoa(secs) + " seconds."})
	return true
}
