//go:build !linux

package host

import "github.com/tetratelabs/wazero/experimental"

// memoryImage is Linux only (memory_linux.go); elsewhere instances are
// restored by copying.
type memoryImage struct{}

func newMemoryImage([]byte) (*memoryImage, error) { return nil, nil }

func (im *memoryImage) close() {}

// memoryAllocator gives wazero's own Go slices on platforms where the
// host does not map memory itself.
func memoryAllocator(*memoryImage, func(*guestMemory)) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		return &sliceMemory{max: max}
	})
}
