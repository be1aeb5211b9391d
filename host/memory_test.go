package host

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/sandbox"
)

// TestGuestMemoryUnmapsAfterTheLastHold: a free while the memory is held
// (a call in flight) waits for the call to end; then the mapping goes.
func TestGuestMemoryUnmapsAfterTheLastHold(t *testing.T) {
	t.Parallel()
	unmapped := 0
	m := &guestMemory{buf: make([]byte, 4*wasmPage), unmap: func([]byte) { unmapped++ }}
	if b := m.Reallocate(2 * wasmPage); len(b) != 2*wasmPage {
		t.Fatalf("Reallocate to 2 pages: %d bytes", len(b))
	}
	if b := m.Reallocate(5 * wasmPage); b != nil {
		t.Fatal("Reallocate past the reservation succeeded")
	}
	m.hold()
	m.hold()
	m.Free()
	m.unhold()
	if unmapped != 0 {
		t.Fatal("unmapped while still held")
	}
	m.unhold()
	if unmapped != 1 {
		t.Fatalf("unmapped %d times after the last unhold, want 1", unmapped)
	}
	m.Free()
	if unmapped != 1 || m.Reallocate(wasmPage) != nil {
		t.Fatal("a second free unmapped again, or a freed memory grew")
	}
	var nilMemory *guestMemory
	nilMemory.hold() // Go-allocated memory: holding is a no-op
	nilMemory.unhold()
}

// TestHostClosedMidCall: closing the host while a call runs frees its
// memory only once the call has ended, so the process does not crash.
func TestHostClosedMidCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := deploy(t, h, src(`run() { let x = 0; for (;;) { x++ } }`), `{}`)
	done := make(chan error, 1)
	go func() {
		_, err := s.Invoke(ctx, sandbox.Request{Op: abi.OpRun, Limits: sandbox.Limits{Timeout: 2 * time.Second}}, sandbox.Capabilities{})
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); s.WarmInstances() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) { // the call took the warm instance: it has started
			t.Fatal("the call did not start within 30s")
		}
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an endless loop returned no error")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call did not end within 60s")
	}
}

// TestImagedRestoreIsExact: an instance mapped over the base image and
// one restored by copying hold the same bytes: the base image, the
// source's snapshot over it, and nothing of what instantiation wrote.
func TestImagedRestoreIsExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newTestHost(t)
	if runtime.GOOS == "linux" && h.image == nil {
		t.Fatal("no memory image on Linux")
	}
	s := deploy(t, h, src(`props: { greeting: { type: "string" } }, run() { return this.greeting }`), `{"greeting":"hello"}`)
	want := make([]byte, int(s.snap.pages)*wasmPage)
	copy(want, h.baseImage)
	for _, c := range s.snap.chunks {
		copy(want[c.off:], c.data)
	}

	imaged, err := h.fromSnapshot(ctx, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	defer imaged.close(ctx)
	if runtime.GOOS == "linux" && !imaged.mem.imaged {
		t.Fatal("the instance was not mapped over the image")
	}
	copied, err := newInstance(ctx, h.rt, h.compiled, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.close(ctx)
	if err := s.snap.restore(copied.mod.Memory(), nil); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]*instance{"imaged": imaged, "copied": copied} {
		got, _ := in.mod.Memory().Read(0, in.memoryBytes())
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: %d bytes, want %d; first difference at %d", name, len(got), len(want), i)
		}
	}
	in, err := h.fromSnapshot(ctx, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	in.inbox, in.inboxCap = h.inbox[0], h.inbox[1]
	res, err := h.invoke(ctx, in, abi.Call{Op: abi.OpRun}, h.cfg.Limits, sandbox.Capabilities{})
	in.close(ctx)
	if err != nil || string(res.Value) != `"hello"` {
		t.Fatalf("run on the imaged instance: %s, %v", res.Value, err)
	}
}
