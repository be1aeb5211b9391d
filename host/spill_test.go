package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/sandbox"
)

// TestSpillSealsAndOpens: a spilled file opens to what was written and
// shows none of it; a changed, swapped or cut file does not open; stale
// folders go at start and the folder at close.
func TestSpillSealsAndOpens(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	stale := filepath.Join(parent, spillPrefix+"left-by-a-crash")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	sp, err := newSpill(parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale spill folder is still there: %v", err)
	}
	secret := []byte("the value of a secret prop, repeated: s3cr3t s3cr3t s3cr3t")
	a, err := sp.write(secret)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sp.write([]byte("another snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sp.read(a); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("read back: %q, %v", got, err)
	}
	sealed, err := os.ReadFile(filepath.Join(sp.dir, a))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("s3cr3t")) {
		t.Fatal("the file shows the snapshot's contents")
	}
	if info, err := os.Stat(filepath.Join(sp.dir, a)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v, %v", info, err)
	}

	for name, change := range map[string]func(p string){
		"changed":   func(p string) { f := append([]byte(nil), sealed...); f[len(f)-1] ^= 1; _ = os.WriteFile(p, f, 0o600) },
		"cut short": func(p string) { _ = os.WriteFile(p, sealed[:5], 0o600) },
		"swapped":   func(p string) { other, _ := os.ReadFile(filepath.Join(sp.dir, b)); _ = os.WriteFile(p, other, 0o600) },
	} {
		change(filepath.Join(sp.dir, a))
		if _, err := sp.read(a); err == nil {
			t.Errorf("a %s file opened", name)
		}
	}
	sp.close()
	if _, err := os.Stat(sp.dir); !os.IsNotExist(err) {
		t.Errorf("the spill folder outlived close: %v", err)
	}
}

// TestIdleSnapshotsSpill: with SpillDir, an idle source's snapshot leaves
// memory for a sealed file, the source still runs from it, and the file
// goes with the source.
func TestIdleSnapshotsSpill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, Config{SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	const secret = "s3cr3t-prop-value"
	s := deploy(t, h, src(`props: { token: { type: "string", secret: true } }, run() { return this.token }`), `{"token":"`+secret+`"}`)
	run := func() string {
		out, err := s.Invoke(ctx, sandbox.Request{Op: abi.OpRun}, sandbox.Capabilities{})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		var v string
		_ = json.Unmarshal(out.Value, &v)
		return v
	}
	if got := run(); got != secret {
		t.Fatalf("run = %q", got)
	}
	h.EvictIdle(time.Now().Add(time.Hour)) // past IdleTimeout and packAfter
	if s.WarmInstances() != 0 || s.snap.held() != 0 || !s.snap.isPacked() {
		t.Fatalf("after eviction: %d warm, %d bytes held", s.WarmInstances(), s.snap.held())
	}
	files, err := os.ReadDir(h.spill.dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("spill folder: %v, %v", files, err)
	}
	sealed, err := os.ReadFile(filepath.Join(h.spill.dir, files[0].Name()))
	if err != nil || bytes.Contains(sealed, []byte(secret)) {
		t.Fatalf("the spilled file shows the secret, or cannot be read: %v", err)
	}
	if got := run(); got != secret {
		t.Fatalf("run from the spilled snapshot = %q", got)
	}
	s.Close(ctx)
	if files, _ := os.ReadDir(h.spill.dir); len(files) != 0 {
		t.Fatalf("files left after the source closed: %v", files)
	}
}
