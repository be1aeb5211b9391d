package host

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/internal/sandbox"
)

// A snapshot is the linear memory of an initialised instance, stored as the
// pages that differ from a freshly instantiated module. Restoring it into a
// new instance of the same compiled module reproduces the initialised one.
//
// It is valid because of two properties of the guest, both checked by
// tests: its only mutable global is the shadow stack pointer, which is back
// at its initial value whenever no export is running (the host's loop
// countdown, package interrupt, is another, whose value does not matter);
// and its state lives nowhere but in linear memory. Host-side state (the invocation) is per
// call, not per instance.
//
// A source's snapshot is layered over the host's base snapshot (runtime
// and prelude initialised): it keeps only what differs from the base, and
// restoring it restores the base first. The base's few hundred KiB are
// then held once per host instead of once per source.
//
// A snapshot whose source has gone idle is packed (s2) to about half its
// size: restoring it then unpacks it first, a few hundred microseconds,
// which only cold invocations pay. With Config.SpillDir, a packed snapshot
// then moves to a sealed file (see spill), and restoring reads it back.
type snapshot struct {
	parent *snapshot // restored first; nil: over pristine memory
	pages  uint32    // memory size in 64 KiB pages
	bytes  int       // total bytes of the chunks' data, the parent's not counted

	mu      sync.RWMutex
	chunks  []chunk // replaced whole, never changed in place: restore reads them unlocked
	packed  []byte  // the chunks' data, s2-encoded, when the chunks hold none
	spilled string  // the file of spill that holds packed instead
	size    int64   // the file's bytes
	spill   *spill
	dropped bool // its source closed: never restored, packed or spilled again
}

type chunk struct {
	off  uint32
	size uint32
	data []byte // nil while the snapshot is packed
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
		if last.off+last.size == off {
			last.data = append(last.data, data...)
			last.size += uint32(len(data))
			return
		}
	}
	s.chunks = append(s.chunks, chunk{off: off, size: uint32(len(data)), data: append([]byte(nil), data...)})
}

// pack encodes the chunks' data and drops it, unless already packed; it
// reports whether it packed.
func (s *snapshot) pack() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.packed != nil || s.spilled != "" || s.dropped {
		return false
	}
	raw := make([]byte, 0, s.bytes)
	bare := make([]chunk, len(s.chunks))
	for i, c := range s.chunks {
		raw = append(raw, c.data...)
		bare[i] = chunk{off: c.off, size: c.size}
	}
	s.packed, s.chunks = s2.Encode(nil, raw), bare
	return true
}

// spillTo moves a packed snapshot's data to a file of sp. A snapshot not
// packed, or already spilled, stays as it is; so does one whose file
// cannot be written (a full disk, say): it is kept in memory instead.
func (s *snapshot) spillTo(sp *spill) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.packed == nil || s.spilled != "" || s.dropped || sp.backingOff() {
		return
	}
	name, size, err := sp.write(s.packed)
	switch {
	case errors.Is(err, errSpillFull):
		return // stays in memory; room may come back as sources go
	case err != nil:
		sp.failed()
		return
	}
	s.spilled, s.size, s.spill, s.packed = name, size, sp, nil
}

// drop removes the snapshot's file, if it has one, and ends the snapshot:
// a restore after it (a call that raced its source's Close) answers
// sandbox.ErrClosed, and it is never packed or spilled again.
func (s *snapshot) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped = true
	if s.spilled != "" {
		s.spill.remove(s.spilled, s.size)
		s.spilled = ""
	}
}

// packedData is the snapshot's packed data, read back from its file if it
// was spilled, or nil if it is not packed. The file is read under the
// lock, so that drop waits for it.
func (s *snapshot) packedData() ([]chunk, []byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.dropped {
		return nil, nil, sandbox.ErrClosed
	}
	if s.spilled == "" {
		return s.chunks, s.packed, nil
	}
	packed, err := s.spill.read(s.spilled)
	if err != nil {
		// The file's path and the system's error stay out of what reaches
		// the tenant: the engine writes this error into an $errors event.
		return nil, nil, fmt.Errorf("host: an idle source's snapshot on disk cannot be read back: %w", sandbox.ErrLost)
	}
	return s.chunks, packed, nil
}

// isPacked reports whether the snapshot is packed, in memory or in a file.
func (s *snapshot) isPacked() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.packed != nil || s.spilled != ""
}

// held is the bytes the snapshot holds in memory now.
func (s *snapshot) held() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch {
	case s.spilled != "":
		return 0
	case s.packed != nil:
		return len(s.packed)
	}
	return s.bytes
}

// image is the memory that restoring s gives, over pristine.
func (s *snapshot) image(pristine []byte) []byte {
	img := make([]byte, max(int(s.pages)*wasmPage, len(pristine)))
	copy(img, pristine)
	for _, c := range s.chunks { // the base's, never packed
		copy(img[c.off:], c.data)
	}
	return img
}

// layeredOver reports whether s is base or restores it first.
func (s *snapshot) layeredOver(base *snapshot) bool {
	for ; s != nil; s = s.parent {
		if s == base {
			return true
		}
	}
	return false
}

// restore writes the snapshot, its parent's first, into mem, which must
// belong to a module just instantiated from the same compiled module, or
// hold the image of over already (over and its parents are skipped).
func (s *snapshot) restore(mem api.Memory, over *snapshot) error {
	if s == over {
		return nil
	}
	if s.parent != nil {
		if err := s.parent.restore(mem, over); err != nil {
			return err
		}
	}
	if cur := mem.Size() / wasmPage; s.pages > cur {
		if _, ok := mem.Grow(s.pages - cur); !ok {
			return fmt.Errorf("host: restore: cannot grow memory to %d pages", s.pages)
		}
	}
	chunks, packed, err := s.packedData()
	if err != nil {
		return err
	}
	var raw []byte
	if packed != nil {
		var err error
		if raw, err = s2.Decode(nil, packed); err != nil || len(raw) != s.bytes {
			return fmt.Errorf("host: restore: unpack a snapshot: %d of %d bytes, %v", len(raw), s.bytes, err)
		}
	}
	for _, c := range chunks {
		data := c.data
		if packed != nil {
			data, raw = raw[:c.size], raw[c.size:]
		}
		if !mem.Write(c.off, data) {
			return fmt.Errorf("host: restore: chunk at %d out of bounds", c.off)
		}
	}
	return nil
}
