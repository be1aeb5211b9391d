package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
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
	if m.hold() {
		t.Fatal("a freed memory was held")
	}
	var nilMemory *guestMemory
	if !nilMemory.hold() { // Go-allocated memory: holding is a no-op
		t.Fatal("Go-allocated memory refused a hold")
	}
	nilMemory.unhold()
}

// TestHostClosedBetweenAcquireAndCall: an instance taken for a call just
// before the host closes is refused (sandbox.ErrClosed), not run on
// unmapped memory, which would crash the process.
func TestHostClosedBetweenAcquireAndCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, testConfig(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s := deploy(t, h, src(`run() { return 1 }`), `{}`)
	in, err := s.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.invoke(ctx, in, abi.Call{Op: abi.OpRun}, h.cfg.Limits, sandbox.Capabilities{}); !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("a call on an instance of a closed host: %v, want sandbox.ErrClosed", err)
	}
	if _, err := h.fromSnapshot(ctx, s.snap); err == nil {
		t.Fatal("a closed host restored an instance")
	}
}

// TestHostClosedMidCall: closing the host while a call runs stops the call
// at its next poll, and frees its memory only once it has ended, so the
// process does not crash.
func TestHostClosedMidCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, testConfig(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s := deploy(t, h, src(`run() { let x = 0; for (;;) { x++ } }`), `{}`)
	done := make(chan error, 1)
	go func() {
		_, err := s.Invoke(ctx, sandbox.Request{Op: abi.OpRun, Limits: sandbox.Limits{Timeout: 5 * time.Minute}}, sandbox.Capabilities{})
		done <- err
	}()
	// The call took the warm instance: it has started.
	wait.Until(t, "the call to start", wait.Short, func() bool { return s.WarmInstances() == 0 })
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an endless loop returned no error")
		}
	case <-time.After(60 * time.Second): // its deadline is 5 minutes away
		t.Fatal("the call did not stop within 60s of the host closing")
	}
}
