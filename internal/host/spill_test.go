package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// TestSpillSealsAndOpens: a spilled file opens to what was written and
// shows none of it; a changed, swapped or cut file does not open; stale
// folders go at start and the folder at close.
func TestSpillSealsAndOpens(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	stale := filepath.Join(parent, spillPrefix+"left-by-a-crash")
	other := filepath.Join(parent, "not-a-spill-folder")
	for _, d := range []string{stale, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sp, err := newSpill(parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale spill folder is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a folder that is not the spill's went: %v", err)
	}
	secret := []byte("the value of a secret prop, repeated: s3cr3t s3cr3t s3cr3t")
	a, aSize, err := sp.write(secret)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := sp.write([]byte("another snapshot"))
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
	// The budget: a write that would pass it is refused; removing a file
	// gives its bytes back.
	used := sp.used.Load()
	sp.budget = used + aSize/2
	if _, _, err := sp.write(secret); !errors.Is(err, errSpillFull) {
		t.Errorf("a write past the budget: %v, want errSpillFull", err)
	}
	sp.remove(a, aSize)
	if sp.used.Load() != used-aSize {
		t.Errorf("used %d after removing %d of %d", sp.used.Load(), aSize, used)
	}
	if _, _, err := sp.write(secret); err != nil {
		t.Errorf("a write within the budget again: %v", err)
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
	h := newSpillingHost(t)
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
	if inMemory, file := s.snap.spillState(); s.WarmInstances() != 0 || inMemory != 0 || file == "" {
		t.Fatalf("after eviction: %d warm, %d packed bytes in memory, file %q", s.WarmInstances(), inMemory, file)
	}
	h.EvictIdle(time.Now().Add(2 * time.Hour)) // a second tick packs nothing again
	if inMemory, _ := s.snap.spillState(); inMemory != 0 {
		t.Fatal("a spilled snapshot was packed again")
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
	// A call that raced the close, past acquire, is refused, not failed.
	if _, err := h.fromSnapshot(ctx, s.snap); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("restoring a closed source's snapshot: %v, want sandbox.ErrClosed", err)
	}
	dir := h.spill.dir
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the spill folder outlived the host: %v", err)
	}
}

// TestLostSpillIsReported: a spilled snapshot whose file is gone answers
// sandbox.ErrLost (the engine then loads the source anew), and the error
// does not name the file.
func TestLostSpillIsReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newSpillingHost(t)
	s := deploy(t, h, src(`run() { return 1 }`), `{}`)
	h.EvictIdle(time.Now().Add(time.Hour))
	_, file := s.snap.spillState()
	if file == "" {
		t.Fatal("the snapshot did not spill")
	}
	if err := os.Remove(filepath.Join(h.spill.dir, file)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Invoke(ctx, sandbox.Request{Op: abi.OpRun}, sandbox.Capabilities{})
	if !errors.Is(err, sandbox.ErrLost) || strings.Contains(err.Error(), h.spill.dir) {
		t.Fatalf("run after the file went: %v, want sandbox.ErrLost without the path", err)
	}
}

// TestClosedSourceDoesNotSpill: a source closed while the evict loop is
// about to pack and spill it leaves no file.
func TestClosedSourceDoesNotSpill(t *testing.T) {
	t.Parallel()
	h := newSpillingHost(t)
	s := deploy(t, h, src(`run() { return 1 }`), `{}`)
	s.evictIdle(time.Now().Add(time.Hour))
	s.snap.drop() // what Close does, before the loop reaches the snapshot
	s.snap.pack()
	s.snap.spillTo(h.spill)
	if inMemory, _ := s.snap.spillState(); inMemory != 0 {
		t.Fatal("a dropped snapshot was packed")
	}
	if files, _ := os.ReadDir(h.spill.dir); len(files) != 0 {
		t.Fatalf("a dropped snapshot was packed or spilled: %d files", len(files))
	}
}

// spillState is the packed bytes the snapshot holds in memory and the
// name of its file, if spilled.
func (s *snapshot) spillState() (int, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.packed), s.spilled
}

// newSpillingHost is a host of its own with a SpillDir, closed when the
// test ends.
func newSpillingHost(t *testing.T) *Host {
	t.Helper()
	h, err := New(context.Background(), testConfig(Config{SpillDir: t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}
