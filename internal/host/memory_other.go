//go:build !linux

package host

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator gives wazero's own Go slices on platforms where the
// host does not map memory itself.
func memoryAllocator(func(*guestMemory)) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		return &sliceMemory{max: max}
	})
}
