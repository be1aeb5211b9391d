package store

import (
	"crypto/rand"
	"encoding/base64"
)

// idBytes is the randomness of an id: 128 bits.
const idBytes = 16

// NewID returns prefix followed by 128 random bits from crypto/rand in
// unpadded base64url, e.g. NewID("dc_") = "dc_" + 22 characters. The
// suffix is URL-safe and unguessable.
func NewID(prefix string) string {
	b := make([]byte, idBytes)
	_, _ = rand.Read(b) // never fails since Go 1.24; it crashes the program instead
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}
