package webhook

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestSignMatchesStandardWebhooks: the Standard Webhooks
// specification's own example signs alike, and a malformed secret is
// refused.
func TestSignMatchesStandardWebhooks(t *testing.T) {
	t.Parallel()
	sig, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if sig != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("signature %s", sig)
	}
	if _, err := Sign("whsec_***", "id", "1", nil); err == nil {
		t.Fatal("a malformed secret was accepted")
	}
}

// TestVerify: a delivery signed with the secret, or during a rotation
// with the old one beside it, verifies; a changed body, another secret, a
// stale timestamp or missing headers do not, each with its error.
func TestVerify(t *testing.T) {
	t.Parallel()
	secret, old, other := NewSecret(), NewSecret(), NewSecret()
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"event":{"n":1}}`)
	signed := func(ts time.Time, body []byte, secrets ...string) http.Header {
		h := http.Header{}
		stamp := strconv.FormatInt(ts.Unix(), 10)
		h.Set(HeaderID, "1-wh_x")
		h.Set(HeaderTimestamp, stamp)
		var sigs []string
		for _, s := range secrets {
			sig, err := Sign(s, "1-wh_x", stamp, body)
			if err != nil {
				t.Fatal(err)
			}
			sigs = append(sigs, sig)
		}
		for i, s := range sigs {
			if i == 0 {
				h.Set(HeaderSignature, s)
			} else {
				h.Set(HeaderSignature, h.Get(HeaderSignature)+" "+s)
			}
		}
		return h
	}
	v, err := NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return now }
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		want   error
	}{
		{"signed", signed(now, body, secret), body, nil},
		{"rotation: new and old", signed(now, body, secret, old), body, nil},
		{"rotation: old first", signed(now, body, old, secret), body, nil},
		{"another secret", signed(now, body, other), body, ErrNoMatch},
		{"body changed", signed(now, body, secret), []byte(`{"event":{"n":2}}`), ErrNoMatch},
		{"too old", signed(now.Add(-6*time.Minute), body, secret), body, ErrTooOld},
		{"from the future", signed(now.Add(6*time.Minute), body, secret), body, ErrTooOld},
		{"no headers", http.Header{}, body, ErrMissingHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := v.Verify(tt.header, tt.body); !errors.Is(err, tt.want) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := NewVerifier("whsec_not base64!"); err == nil {
		t.Error("a secret that is not base64 was accepted")
	}
}

// FuzzVerify: any headers and body are refused or accepted without a
// panic, and a refusal is one of Verify's errors.
func FuzzVerify(f *testing.F) {
	f.Add("1-wh_x", "1800000000", "v1,AAAA", []byte("{}"))
	v, _ := NewVerifier(NewSecret())
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		err := v.Verify(h, body)
		if err != nil && !errors.Is(err, ErrMissingHeaders) && !errors.Is(err, ErrBadTimestamp) && !errors.Is(err, ErrTooOld) && !errors.Is(err, ErrNoMatch) {
			t.Fatalf("Verify: %v", err)
		}
	})
}
