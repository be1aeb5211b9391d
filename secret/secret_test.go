package secret

import (
	"bytes"
	"encoding/json"
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
	sealed := s.SealProp(json.RawMessage(`"hunter2"`))
	if strings.Contains(string(sealed), "hunter2") || !IsSealed(sealed) {
		t.Fatalf("sealed = %s", sealed)
	}
	if again := s.SealProp(json.RawMessage(`"hunter2"`)); string(again) == string(sealed) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	plain, err := s.OpenProp(sealed)
	if err != nil || string(plain) != `"hunter2"` {
		t.Fatalf("open prop: %s %v", plain, err)
	}
	if _, err := s.OpenProp(json.RawMessage(`{"b":1}`)); err == nil {
		t.Error("a value that is not sealed opened")
	}
	other, _ := NewSealer(bytes.Repeat([]byte{2}, 32))
	if _, err := other.OpenProp(sealed); err == nil {
		t.Error("another key opened the value")
	}
	var m map[string]string
	_ = json.Unmarshal(sealed, &m)
	tampered := []byte(m[SealedKey])
	tampered[len(tampered)-2] ^= 1
	if _, err := s.Open(string(tampered)); err == nil {
		t.Error("a tampered value opened")
	}
	if _, err := NewSealer([]byte("short")); err == nil {
		t.Error("a short key was accepted")
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
	if got, err := b.Open(a.Seal([]byte("x"))); err != nil || string(got) != "x" {
		t.Fatalf("the reloaded key does not open: %v", err)
	}
}
