//go:build wasm2go && linux

package host

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// memoryImage is an image of linear memory in a memory file, which
// instances map copy-on-write at the start of their reservation: a new
// instance then shares the image's pages until it writes them, instead of
// copying megabytes it may never touch.
type memoryImage struct {
	fd    int
	image []byte // what the file holds, for memory that cannot map it
}

// newMemoryImage puts image in a memory file; it fails where the kernel
// has none (memfd_create), and the caller copies instead.
func newMemoryImage(image []byte) (*memoryImage, error) {
	fd, err := unix.MemfdCreate("fount-guest-image", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("host: a memory file for the base image: %w", err)
	}
	for rest := image; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err != nil {
			_ = unix.Close(fd)
			return nil, fmt.Errorf("host: write the base image: %w", err)
		}
		rest = rest[n:]
	}
	return &memoryImage{fd: fd, image: image}, nil
}

// mapInto maps the image, private and writable, over the first bytes of
// m's reservation, which must be untouched (a new instance's).
func (img *memoryImage) mapInto(m *guestMemory) bool {
	if m == nil || len(m.buf) < len(img.image) {
		return false
	}
	_, err := unix.MmapPtr(img.fd, 0, unsafe.Pointer(unsafe.SliceData(m.buf)), uintptr(len(img.image)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED)
	return err == nil
}

func (img *memoryImage) close() { _ = unix.Close(img.fd) }
