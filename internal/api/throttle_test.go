package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestKeyThrottle: a client address, or a key prefix, that fails
// keyFailBurst times must wait, one try per keyFailEvery after that;
// other addresses and prefixes are not held back.
func TestKeyThrottle(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	th := newKeyThrottle(func() time.Time { return now })
	req := func(addr string) *http.Request {
		r := httptest.NewRequest("GET", "/v1/users/me", nil)
		r.RemoteAddr = addr
		return r
	}
	guesser, other := req("198.51.100.7:4000"), req("198.51.100.8:4000")
	for i := range keyFailBurst {
		if d := th.wait(guesser, "fount_guess"+string(rune('a'+i%26))+"zz"); d != 0 {
			t.Fatalf("try %d held back %v", i+1, d)
		}
		th.failed(guesser, "fount_"+string(rune('a'+i%26))+"-guess")
	}
	if d := th.wait(guesser, "fount_right-key"); d <= 0 || d > keyFailEvery {
		t.Errorf("after %d wrong keys: wait %v, want up to %v (a right key too)", keyFailBurst, d, keyFailEvery)
	}
	if d := th.wait(other, "fount_someone"); d != 0 {
		t.Errorf("another address waits %v", d)
	}
	now = now.Add(keyFailEvery)
	if d := th.wait(guesser, "fount_right-key"); d != 0 {
		t.Errorf("after %v: wait %v, want one more try", keyFailEvery, d)
	}
	th.failed(guesser, "fount_zzzzzz-x")
	if d := th.wait(guesser, "fount_right-key"); d <= 0 {
		t.Error("the try after the refill was not counted")
	}
	// Wrong keys sharing a prefix, from many addresses.
	for i := range keyFailBurst {
		th.failed(req("203.0.113."+string(rune('0'+i%10))+":1"), "fount_sameprefix"+string(rune('a'+i)))
	}
	if d := th.wait(req("192.0.2.99:1"), "fount_sameprefix-right"); d <= 0 {
		t.Error("a prefix tried from many addresses is not held back")
	}
	// IPv6 clients count by /64.
	th.failed(req("[2001:db8::1]:1"), "fount_v6-a")
	if a, b := clientAddr(req("[2001:db8::1]:1")), clientAddr(req("[2001:db8::ffff]:2")); a != b {
		t.Errorf("one /64: %s and %s", a, b)
	}
}
