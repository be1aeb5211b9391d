package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealAndOpen(t *testing.T) {
	t.Parallel()
	s, err := NewSealer(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	bind := PropBinding("u_a", "dc_1", "token")
	sealed := s.SealProp(json.RawMessage(`"hunter2"`), bind)
	if strings.Contains(string(sealed), "hunter2") || !IsSealed(sealed) {
		t.Fatalf("sealed = %s", sealed)
	}
	if again := s.SealProp(json.RawMessage(`"hunter2"`), bind); string(again) == string(sealed) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	plain, err := s.OpenProp(sealed, bind)
	if err != nil || string(plain) != `"hunter2"` {
		t.Fatalf("open prop: %s %v", plain, err)
	}
	for _, other := range []string{PropBinding("u_b", "dc_1", "token"), PropBinding("u_a", "dc_2", "token"), PropBinding("u_a", "dc_1", "other"), ""} {
		if _, err := s.OpenProp(sealed, other); err == nil {
			t.Errorf("the value opened under the binding %q", other)
		}
	}
	if _, err := s.OpenProp(json.RawMessage(`{"b":1}`), bind); err == nil {
		t.Error("a value that is not sealed opened")
	}
	otherKey, _ := NewSealer(bytes.Repeat([]byte{2}, 32))
	if _, err := otherKey.OpenProp(sealed, bind); err == nil {
		t.Error("another key opened the value")
	}
	var m map[string]string
	_ = json.Unmarshal(sealed, &m)
	tampered := []byte(strings.TrimPrefix(m[SealedKey], boundPrefix))
	tampered[len(tampered)-2] ^= 1
	if _, err := s.Open(string(tampered), bind); err == nil {
		t.Error("a tampered value opened")
	}
	if _, err := NewSealer([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

// TestResealBindsLegacyValues: a value sealed before bindings existed does
// not open as it is; resealed with its binding, it does, and only there.
func TestResealBindsLegacyValues(t *testing.T) {
	t.Parallel()
	s, _ := NewSealer(bytes.Repeat([]byte{1}, 32))
	legacy, _ := json.Marshal(map[string]string{SealedKey: s.Seal([]byte(`"old"`), "")})
	bind := PropBinding("u_a", "dc_1", "token")
	if _, err := s.OpenProp(legacy, bind); !errors.Is(err, ErrUnbound) {
		t.Fatalf("an unbound value: %v, want ErrUnbound", err)
	}
	bound, err := s.ResealProp(legacy, bind)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := s.OpenProp(bound, bind); err != nil || string(plain) != `"old"` {
		t.Fatalf("resealed: %s %v", plain, err)
	}
	if again, err := s.ResealProp(bound, bind); err != nil || string(again) != string(bound) {
		t.Errorf("resealing a bound value changed it: %s %v", again, err)
	}
}

func TestLoadOrCreateSealer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secret.key")
	a, err := LoadOrCreateSealer(path)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", info.Mode().Perm())
	}
	b, err := LoadOrCreateSealer(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Open(a.Seal([]byte("x"), "b"), "b"); err != nil || string(got) != "x" {
		t.Fatalf("the reloaded key does not open: %v", err)
	}
}
