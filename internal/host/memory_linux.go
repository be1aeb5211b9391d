package host

import (
	"golang.org/x/sys/unix"

	"github.com/tetratelabs/wazero/experimental"
)

// memoryAllocator maps each instance's linear memory (see guestMemory),
// recording it with record so that the instance can hold it. It falls
// back to wazero's Go slices when the mapping fails (a strict overcommit
// policy may refuse to reserve the maximum).
func memoryAllocator(record func(*guestMemory)) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		buf, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
		if err != nil {
			return &sliceMemory{max: max}
		}
		// With transparent huge pages set to "always", the kernel could back
		// the reservation with 2 MiB pages and make a small guest large.
		_ = unix.Madvise(buf, unix.MADV_NOHUGEPAGE)
		m := &guestMemory{buf: buf, unmap: func(b []byte) { _ = unix.Munmap(b) }}
		record(m)
		return m
	})
}
