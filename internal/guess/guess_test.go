package guess

import (
	"net/http/httptest"
	"testing"
	"time"
)

// TestThrottle: a bucket that fails burst times must wait, one try per
// every after that; other buckets are not held back; a try refused is
// not counted.
func TestThrottle(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	const burst, every = 20, 3 * time.Second
	th := New(burst, every, func() time.Time { return now })
	for i := range burst {
		if d := th.Refuse("addr a", "key x"); d != 0 {
			t.Fatalf("failure %d held back %v", i+1, d)
		}
	}
	if d := th.Wait("addr a"); d <= 0 || d > every {
		t.Errorf("after %d failures: wait %v, want up to %v", burst, d, every)
	}
	if d := th.Wait("key x", "addr b"); d <= 0 {
		t.Error("a bucket shared with a failing one is not held back")
	}
	if d := th.Wait("addr b", "key y"); d != 0 {
		t.Errorf("other buckets wait %v", d)
	}
	for range 5 { // refused tries cost nothing
		if th.Refuse("addr a") <= 0 {
			t.Fatal("a failure past the budget was not refused")
		}
	}
	now = now.Add(every)
	if d := th.Refuse("addr a"); d != 0 {
		t.Errorf("after %v: refused for %v, want one more try", every, d)
	}
	if d := th.Wait("addr a"); d <= 0 {
		t.Error("the try after the refill was not counted")
	}
	now = now.Add(burst * every)
	if d := th.Wait("addr a", "key x"); d != 0 {
		t.Errorf("refilled buckets wait %v", d)
	}
}

// TestThrottleBoundsItsMemory: a throttle past its most buckets drops
// the ones that refilled, then half of the rest.
func TestThrottleBoundsItsMemory(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	th := New(2, time.Second, func() time.Time { return now })
	for i := range maxBuckets + 10 {
		th.Failed(string(rune(i)) + "bucket")
	}
	if n := len(th.buckets); n > maxBuckets {
		t.Errorf("%d buckets after %d failures, want at most %d", n, maxBuckets+10, maxBuckets)
	}
}

// TestClientAddr: the peer's address, by /64 for IPv6; X-Forwarded-For
// only from a trusted proxy, read from its end past the proxies.
func TestClientAddr(t *testing.T) {
	t.Parallel()
	proxies, err := ParseProxies("10.0.0.0/8, 192.0.2.7, ::ffff:198.51.100.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, peer string
		xff        []string
		proxies    Proxies
		want       string
	}{
		{"no proxies: the peer", "203.0.113.5:1", []string{"198.51.100.9"}, nil, "203.0.113.5"},
		{"an untrusted peer's header is ignored", "203.0.113.5:1", []string{"198.51.100.9"}, proxies, "203.0.113.5"},
		{"a trusted proxy: the client it names", "10.1.2.3:1", []string{"198.51.100.9"}, proxies, "198.51.100.9"},
		{"a chain of proxies", "192.0.2.7:1", []string{"6.6.6.6, 198.51.100.9", "10.9.9.9"}, proxies, "198.51.100.9"},
		{"the client's own entries are not believed", "10.1.2.3:1", []string{"10.0.0.1, 198.51.100.9"}, proxies, "198.51.100.9"},
		{"a proxy without the header", "10.1.2.3:1", nil, proxies, "10.1.2.3"},
		{"only proxies in the header", "10.1.2.3:1", []string{"10.4.4.4"}, proxies, "10.4.4.4"},
		{"garbage ends the walk", "10.1.2.3:1", []string{"not-an-ip, 10.4.4.4"}, proxies, "10.4.4.4"},
		{"a mapped proxy", "[::ffff:198.51.100.1]:1", []string{"203.0.113.8"}, proxies, "203.0.113.8"},
		{"IPv6 by its /64", "[2001:db8::1]:1", nil, nil, "2001:db8::/64"},
		{"a forwarded IPv6 by its /64", "10.1.2.3:1", []string{"2001:db8:0:0:ffff::1"}, proxies, "2001:db8::/64"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := c.proxies.ClientAddr(r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseProxiesRefusesGarbage(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/"} {
		if _, err := ParseProxies(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	if p, err := ParseProxies(" "); err != nil || len(p) != 0 {
		t.Errorf("blank: %v, %v", p, err)
	}
}
