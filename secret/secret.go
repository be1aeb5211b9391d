// Package secret seals secret prop values at rest: AES-256-GCM under a key
// kept in the data directory. A sealed prop is stored as
// {"$sealed": "<base64 nonce+ciphertext>"}; responses show Marker instead,
// and only the engine opens them, to hand the component its real value.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Sealer encrypts secret prop values at rest with AES-256-GCM under a key
// kept in the data directory (secret.key, mode 0600). Sealed values never
// leave the server: responses show Marker instead.
type Sealer struct {
	aead cipher.AEAD
}

// Marker replaces a secret prop's value in every response. Sending it back
// unchanged in an update keeps the stored secret.
const Marker = "[redacted]"

// SealedKey is the key of a sealed prop value's one-field object.
const SealedKey = "$sealed"

// LoadOrCreateSealer reads the key at path, creating it on first use.
func LoadOrCreateSealer(path string) (*Sealer, error) {
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("secrets: generate key: %w", err)
		}
		if err := os.WriteFile(path, key, 0o600); err != nil {
			return nil, fmt.Errorf("secrets: write key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("secrets: read key: %w", err)
	}
	return NewSealer(key)
}

// NewSealer returns a Sealer for a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secrets: key is %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain; the result is base64 of nonce and ciphertext.
func (s *Sealer) Seal(plain []byte) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil))
}

// Open decrypts a value from Seal.
func (s *Sealer) Open(sealed string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, errors.New("secrets: malformed sealed value")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, fmt.Errorf("secrets: open: %w", err)
	}
	return plain, nil
}

// SealProp returns the stored form of a secret prop value.
func (s *Sealer) SealProp(plain json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(map[string]string{SealedKey: s.Seal(plain)})
	return b
}

// IsSealed reports whether a stored value has the shape of a sealed one.
// Shape alone cannot tell a secret from an object prop that looks like one,
// so fount opens only the values its records name as sealed; this is for
// the store's upgrade of records from before they did.
func IsSealed(stored json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(stored, &m) == nil && len(m) == 1 && m[SealedKey] != nil
}

// OpenProp returns the plain value of a sealed prop value.
func (s *Sealer) OpenProp(stored json.RawMessage) (json.RawMessage, error) {
	var m map[string]string
	if err := json.Unmarshal(stored, &m); err != nil || m[SealedKey] == "" {
		return nil, errors.New("secrets: stored value is not sealed")
	}
	return s.Open(m[SealedKey])
}
