package abi

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Ops of a StoreRequest, as a data store prop's methods are named.
const (
	StoreGet     = "get"
	StoreSet     = "set"
	StoreHas     = "has"
	StoreDelete  = "delete"
	StoreKeys    = "keys"
	StoreEntries = "entries"
	StoreClear   = "clear"
)

// Bounds of a StoreRequest.
const (
	MaxStoreKey   = 512      // bytes of a key
	MaxStoreValue = 64 << 10 // bytes of a value, as JSON
	MaxStoreTTL   = 366 * 24 * 3600
	maxStoreProp  = 256
)

// StoreRequest is what the guest passes to FuncStore: one operation on
// the data store its prop Prop names.
type StoreRequest struct {
	Op   string `json:"op"`
	Prop string `json:"prop"`
	Key  string `json:"key,omitempty"`
	// Value (set) is JSON; TTL (set) is how many seconds it lives, 0 for
	// ever.
	Value json.RawMessage `json:"value,omitempty"`
	TTL   int64           `json:"ttl,omitempty"`
}

// StoreEntry is one key and its value.
type StoreEntry struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// StoreReply is the host's answer: the value of get (Found false when
// the key has none), has's Found, the keys or entries, or why the
// operation failed (a limit, a store that is gone).
type StoreReply struct {
	Found   bool            `json:"found,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Keys    []string        `json:"keys,omitempty"`
	Entries []StoreEntry    `json:"entries,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// DecodeStoreRequest decodes and validates a StoreRequest.
func DecodeStoreRequest(b []byte) (StoreRequest, error) {
	var r StoreRequest
	if err := decodeStrictMax(b, &r, MaxStoreValue+MaxStoreKey+1024); err != nil {
		return r, err
	}
	if r.Prop == "" || len(r.Prop) > maxStoreProp {
		return r, fmt.Errorf("%w: a data store request names no prop", ErrDecode)
	}
	keyed := false
	switch r.Op {
	case StoreGet, StoreHas, StoreDelete:
		keyed = true
	case StoreSet:
		keyed = true
		if len(r.Value) == 0 || !json.Valid(r.Value) {
			return r, fmt.Errorf("%w: set needs a JSON value", ErrDecode)
		}
		if len(r.Value) > MaxStoreValue {
			return r, fmt.Errorf("%w: a value of %d bytes is over the %d a data store keeps", ErrDecode, len(r.Value), MaxStoreValue)
		}
		if r.TTL < 0 || r.TTL > MaxStoreTTL {
			return r, fmt.Errorf("%w: ttl %d is outside 0 to %d seconds", ErrDecode, r.TTL, MaxStoreTTL)
		}
	case StoreKeys, StoreEntries, StoreClear:
	default:
		return r, fmt.Errorf("%w: unknown data store op %q", ErrDecode, r.Op)
	}
	if r.Op != StoreSet && (len(r.Value) > 0 || r.TTL != 0) {
		return r, fmt.Errorf("%w: only set carries a value and a ttl", ErrDecode)
	}
	if keyed {
		if err := ValidStoreKey(r.Key); err != nil {
			return r, fmt.Errorf("%w: %w", ErrDecode, err)
		}
	} else if r.Key != "" {
		return r, fmt.Errorf("%w: %s takes no key", ErrDecode, r.Op)
	}
	return r, nil
}

// ValidStoreKey says why key cannot be a data store's key: empty, over
// MaxStoreKey bytes, not UTF-8, or holding a control character.
func ValidStoreKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("a data store key cannot be empty")
	case len(key) > MaxStoreKey:
		return fmt.Errorf("a data store key is %d bytes, over %d", len(key), MaxStoreKey)
	case !utf8.ValidString(key):
		return fmt.Errorf("a data store key must be UTF-8")
	}
	for _, c := range key {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("a data store key cannot hold control characters")
		}
	}
	return nil
}
