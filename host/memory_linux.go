package host

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetratelabs/wazero/experimental"
)

// memoryImage is the memory every instance restored from a snapshot
// starts from (the host's base image), in a memory file that instances
// map copy-on-write: an instance then copies only the pages it writes,
// and the pages it never writes stay shared by all of them.
type memoryImage struct {
	fd   int
	size int
}

func newMemoryImage(image []byte) (*memoryImage, error) {
	if len(image) == 0 || len(image)%unix.Getpagesize() != 0 {
		return nil, fmt.Errorf("host: a memory image of %d bytes is not whole pages", len(image))
	}
	fd, err := unix.MemfdCreate("fount-base-image", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("host: memory image: %w", err)
	}
	for written := 0; written < len(image); {
		n, err := unix.Write(fd, image[written:])
		if err != nil {
			_ = unix.Close(fd)
			return nil, fmt.Errorf("host: memory image: %w", err)
		}
		written += n
	}
	return &memoryImage{fd: fd, size: len(image)}, nil
}

// close closes the file; mappings of it stay valid.
func (im *memoryImage) close() {
	if im != nil {
		_ = unix.Close(im.fd)
	}
}

// memoryAllocator maps each instance's linear memory (see guestMemory),
// over image when it is not nil, recording it with record so that the
// instance can hold it. It falls back to wazero's Go slices when the
// mapping fails (a strict overcommit policy may refuse to reserve the
// maximum); then nothing is recorded and the instance starts from zeros.
func memoryAllocator(image *memoryImage, record func(*guestMemory)) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		buf, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
		if err != nil {
			return &sliceMemory{max: max}
		}
		m := &guestMemory{buf: buf, unmap: func(b []byte) { _ = unix.Munmap(b) }}
		if image != nil && image.size <= len(buf) {
			// The image replaces the start of the reservation; unmapping the
			// reservation later unmaps it too.
			_, err := unix.MmapPtr(image.fd, 0, unsafe.Pointer(unsafe.SliceData(buf)), uintptr(image.size),
				unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED)
			m.imaged = err == nil
		}
		record(m)
		return m
	})
}
