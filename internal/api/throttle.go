package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/fount-dev/fount/internal/guess"
)

// Wrong API keys are throttled, so that guessing one is slow: each client
// address, and each key prefix (what a guess at one known key varies
// least), may fail keyFailBurst times at once and then once every
// keyFailEvery; a wrong key past that is answered 429 with Retry-After.
// A right key is always answered (package guess says why), so a client
// that shares an address with a guesser, or a key's owner whose prefix
// someone tries, is never locked out. Behind a reverse proxy, the
// client's address is read from X-Forwarded-For when the proxy is one of
// Config.TrustedProxies.
const (
	keyFailBurst = 20
	keyFailEvery = 3 * time.Second
	// keyPrefixLen is the part of a presented key that is throttled as
	// one: "fount_" and 6 characters of the random part.
	keyPrefixLen = 12
)

// throttleKeys are the buckets a wrong key from r counts in.
func (s *Server) throttleKeys(r *http.Request, key string) []string {
	prefix := key
	if len(prefix) > keyPrefixLen {
		prefix = prefix[:keyPrefixLen]
	}
	return []string{"addr " + s.proxies.ClientAddr(r), "key " + prefix}
}

// refuseKey answers a wrong key: refused (401), or 429 with Retry-After
// when its client or its prefix failed too often lately; only the first
// is counted.
func (s *Server) refuseKey(w http.ResponseWriter, r *http.Request, key string, refused error) {
	d := s.keyThrottle.Refuse(s.throttleKeys(r, key)...)
	if d <= 0 {
		s.writeError(w, r, refused)
		return
	}
	secs := guess.RetryAfter(d)
	s.writeError(w, r, &Error{Status: http.StatusTooManyRequests, Code: "too_many_attempts", RetryAfter: secs,
		Message: "Too many wrong API keys were tried from this address, or like this key; try again in " + strconv.Itoa(secs) + " seconds."})
}
