//go:build wasm2go && !linux

package host

// memoryImage is an image of linear memory that new instances copy: only
// Linux maps it copy-on-write (image_linux.go).
type memoryImage struct {
	image []byte
}

func newMemoryImage(image []byte) (*memoryImage, error) { return &memoryImage{image: image}, nil }

func (*memoryImage) mapInto(*guestMemory) bool { return false }

func (*memoryImage) close() {}
