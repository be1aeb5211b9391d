package host

import (
	"bytes"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// A snapshot is the linear memory of an initialised instance, stored as the
// pages that differ from a freshly instantiated module. Restoring it into a
// new instance of the same compiled module reproduces the initialised one.
//
// It is valid because of two properties of the guest, both checked by
// tests: its only mutable global is the shadow stack pointer, which is back
// at its initial value whenever no export is running; and its state lives
// nowhere but in linear memory. Host-side state (the invocation) is per
// call, not per instance.
//
// A source's snapshot is layered over the host's base snapshot (runtime
// and prelude initialised): it keeps only what differs from the base, and
// restoring it restores the base first. The base's few hundred KiB are
// then held once per host instead of once per source.
type snapshot struct {
	parent *snapshot // restored first; nil: over pristine memory
	pages  uint32    // memory size in 64 KiB pages
	chunks []chunk
	bytes  int // total bytes held in chunks, the parent's not counted
}

type chunk struct {
	off  uint32
	data []byte
}

// snapshotGranule is the unit of comparison with pristine memory.
const snapshotGranule = 4 << 10

var zeroGranule = make([]byte, snapshotGranule)

// takeSnapshot copies the parts of mem that differ from pristine, the
// memory of a module just instantiated, or, for a snapshot over a parent,
// the parent's image (see image).
func takeSnapshot(mem api.Memory, pristine []byte) (*snapshot, error) {
	size := mem.Size()
	view, ok := mem.Read(0, size)
	if !ok {
		return nil, fmt.Errorf("host: snapshot: cannot read %d bytes of memory", size)
	}
	s := &snapshot{pages: size / wasmPage}
	for off := 0; off < len(view); off += snapshotGranule {
		end := min(off+snapshotGranule, len(view))
		base := zeroGranule[:end-off]
		if off < len(pristine) {
			base = pristine[off:min(end, len(pristine))]
			if len(base) < end-off { // pristine ends inside this granule: compare the rest with zeros
				if bytes.Equal(view[off:off+len(base)], base) && bytes.Equal(view[off+len(base):end], zeroGranule[:end-off-len(base)]) {
					continue
				}
				s.add(uint32(off), view[off:end])
				continue
			}
		}
		if !bytes.Equal(view[off:end], base) {
			s.add(uint32(off), view[off:end])
		}
	}
	return s, nil
}

// add appends data at off, merging with the previous chunk when adjacent.
func (s *snapshot) add(off uint32, data []byte) {
	s.bytes += len(data)
	if n := len(s.chunks); n > 0 {
		last := &s.chunks[n-1]
		if last.off+uint32(len(last.data)) == off {
			last.data = append(last.data, data...)
			return
		}
	}
	s.chunks = append(s.chunks, chunk{off: off, data: append([]byte(nil), data...)})
}

// image is the memory that restoring s gives, over pristine.
func (s *snapshot) image(pristine []byte) []byte {
	img := make([]byte, max(int(s.pages)*wasmPage, len(pristine)))
	copy(img, pristine)
	for _, c := range s.chunks {
		copy(img[c.off:], c.data)
	}
	return img
}

// restore writes the snapshot, its parent's first, into mem, which must
// belong to a module just instantiated from the same compiled module.
func (s *snapshot) restore(mem api.Memory) error {
	if s.parent != nil {
		if err := s.parent.restore(mem); err != nil {
			return err
		}
	}
	if cur := mem.Size() / wasmPage; s.pages > cur {
		if _, ok := mem.Grow(s.pages - cur); !ok {
			return fmt.Errorf("host: restore: cannot grow memory to %d pages", s.pages)
		}
	}
	for _, c := range s.chunks {
		if !mem.Write(c.off, c.data) {
			return fmt.Errorf("host: restore: chunk at %d out of bounds", c.off)
		}
	}
	return nil
}
