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
	"strings"
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

// Seal encrypts plain, bound to binding (AEAD additional data: opening it
// needs the same binding); the result is base64 of nonce and ciphertext.
func (s *Sealer) Seal(plain []byte, binding string) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(binding)))
}

// Open decrypts a value from Seal with the binding it was sealed with.
func (s *Sealer) Open(sealed, binding string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, errors.New("secrets: malformed sealed value")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(binding))
	if err != nil {
		return nil, fmt.Errorf("secrets: open: %w", err)
	}
	return plain, nil
}

// PropBinding is what a secret prop value is bound to: its owner, its
// source and its prop. A sealed value copied anywhere else (another
// tenant's source, another prop) does not open.
func PropBinding(ownerID, sourceID, prop string) string {
	return "fount/prop/v2\x00" + ownerID + "\x00" + sourceID + "\x00" + prop
}

// boundPrefix marks a sealed prop value bound with PropBinding; values
// without it were sealed unbound, before bindings existed.
const boundPrefix = "v2."

// SealProp returns the stored form of a secret prop value, bound to
// binding (PropBinding).
func (s *Sealer) SealProp(plain json.RawMessage, binding string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{SealedKey: boundPrefix + s.Seal(plain, binding)})
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

// ErrUnbound is returned by OpenProp for a value sealed before values were
// bound to their prop: it must be resealed (ResealProp) first.
var ErrUnbound = errors.New("secrets: the value was sealed without a binding")

// OpenProp returns the plain value of a sealed prop value; binding must be
// the one it was sealed with.
func (s *Sealer) OpenProp(stored json.RawMessage, binding string) (json.RawMessage, error) {
	sealed, err := sealedString(stored)
	if err != nil {
		return nil, err
	}
	bound, ok := strings.CutPrefix(sealed, boundPrefix)
	if !ok {
		return nil, ErrUnbound
	}
	return s.Open(bound, binding)
}

// ResealProp binds a value sealed before bindings existed: it opens it
// unbound and seals it again with binding. A value already bound is
// returned as it is.
func (s *Sealer) ResealProp(stored json.RawMessage, binding string) (json.RawMessage, error) {
	sealed, err := sealedString(stored)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(sealed, boundPrefix) {
		return stored, nil
	}
	plain, err := s.Open(sealed, "")
	if err != nil {
		return nil, err
	}
	return s.SealProp(plain, binding), nil
}

func sealedString(stored json.RawMessage) (string, error) {
	var m map[string]string
	if err := json.Unmarshal(stored, &m); err != nil || m[SealedKey] == "" {
		return "", errors.New("secrets: stored value is not sealed")
	}
	return m[SealedKey], nil
}

// AccountBinding binds a connected account's credential field to that
// account and field: a sealed value opens for it alone.
func AccountBinding(accountID, field string) string {
	return "fount/account/v1\x00" + accountID + "\x00" + field
}
