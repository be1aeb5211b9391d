package host

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// guestMemory is an instance's linear memory when the platform lets the
// host map it itself (memory_linux.go): the maximum size is reserved as
// address space up front, so growing never copies; pages cost physical
// memory only once touched; and closing the instance returns them to the
// OS at once, instead of leaving megabytes of Go heap for the collector.
//
// Unmapping memory that guest code or the host still uses would crash the
// process, and wazero frees a module's memory when the runtime closes, in
// the middle of a call if one is running. So whoever touches the memory
// holds it (hold/unhold), and a free while it is held waits for the last
// unhold.
type guestMemory struct {
	mu    sync.Mutex
	buf   []byte // the whole reservation; nil once unmapped
	held  int
	freed bool
	unmap func([]byte)
}

var _ experimental.LinearMemory = (*guestMemory)(nil)

// Reallocate grows the memory in place: the reservation is the maximum.
func (m *guestMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

// Free unmaps the memory now, or at the last unhold if it is held.
func (m *guestMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.freed = true
	m.release()
}

// hold keeps the memory mapped until the matching unhold, and reports
// false, holding nothing, once the memory has been freed: the instance was
// closed (the host closing, say) and must not be touched. A nil
// guestMemory (Go-allocated memory) needs no holding.
func (m *guestMemory) hold() bool {
	if m == nil {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed {
		return false
	}
	m.held++
	return true
}

func (m *guestMemory) unhold() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held--
	m.release()
}

// release unmaps the memory once it is freed and no longer held. m.mu is
// held.
func (m *guestMemory) release() {
	if m.freed && m.held == 0 && m.buf != nil {
		m.unmap(m.buf)
		m.buf = nil
	}
}

// sliceMemory is linear memory in a Go slice, as wazero keeps it by
// default: the fallback when mapping is not possible.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	grown := make([]byte, size, min(max(size, 2*uint64(cap(m.buf))), m.max))
	copy(grown, m.buf)
	m.buf = grown
	return m.buf
}

// Free leaves the slice to the garbage collector: wazero keeps its own
// reference, and the guest may still be running on it.
func (m *sliceMemory) Free() {}
