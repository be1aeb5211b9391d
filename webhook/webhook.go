// Package webhook signs and verifies fount's webhook deliveries, as
// Standard Webhooks defines them: each POST carries webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature, "v1," and the
// base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" under the webhook's
// signing secret (whsec_ and base64). A receiver written in Go checks a
// delivery with a Verifier; fount signs with Sign.
//
// While a secret is rotated, fount signs with both the new and the
// previous one, space-separated; a Verifier built with either accepts
// the delivery.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a signed delivery.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix starts every signing secret.
const secretPrefix = "whsec_"

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock: Standard Webhooks' five minutes, against replays.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify.
var (
	ErrMissingHeaders = errors.New("webhook: the delivery lacks webhook-id, webhook-timestamp or webhook-signature")
	ErrBadTimestamp   = errors.New("webhook: the delivery's timestamp is not Unix seconds")
	ErrTooOld         = errors.New("webhook: the delivery's timestamp is outside the tolerance")
	ErrNoMatch        = errors.New("webhook: no signature of the delivery matches the secret")
)

// NewSecret returns a fresh signing secret: whsec_ and 24 random bytes
// in base64.
func NewSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails since Go 1.24
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// key is the HMAC key of a signing secret.
func key(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("webhook: a signing secret is whsec_ and base64 bytes")
	}
	return k, nil
}

// Sign returns the webhook-signature value of a delivery: "v1," and the
// base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" under secret.
func Sign(secret, id, timestamp string, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(k, id, timestamp, body)), nil
}

func mac(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return m.Sum(nil)
}

// Verifier checks deliveries against one or more signing secrets (a
// secret and the one it replaces, during a rotation).
type Verifier struct {
	keys [][]byte
	// Tolerance bounds the timestamp's distance from Now; 0 means
	// DefaultTolerance.
	Tolerance time.Duration
	// Now is the receiver's clock; nil means time.Now.
	Now func() time.Time
}

// NewVerifier returns a Verifier of the given secrets.
func NewVerifier(secrets ...string) (*Verifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("webhook: a verifier needs a signing secret")
	}
	v := &Verifier{}
	for _, s := range secrets {
		k, err := key(s)
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, k)
	}
	return v, nil
}

// Verify checks a delivery's headers and body: its timestamp within the
// tolerance, and one of its signatures made with one of the secrets.
// Read the whole body before calling it, and compare nothing else.
func (v *Verifier) Verify(header http.Header, body []byte) error {
	id, ts, sigs := header.Get(HeaderID), header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	now, tolerance := time.Now, v.Tolerance
	if v.Now != nil {
		now = v.Now
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := now().Sub(time.Unix(secs, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	for _, sig := range strings.Fields(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			continue
		}
		for _, k := range v.keys {
			if hmac.Equal(got, mac(k, id, ts, body)) {
				return nil
			}
		}
	}
	return ErrNoMatch
}
