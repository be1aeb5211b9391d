package interrupt

import (
	"errors"
	"fmt"
)

// instrumentCode rewrites each function body of a code section so that
// every loop starts with check.
func instrumentCode(body []byte, check []byte) ([]byte, error) {
	count, off, err := readU32(body, 0)
	if err != nil {
		return nil, fmt.Errorf("interrupt: code section: %w", err)
	}

	out := appendU32(make([]byte, 0, len(body)+len(body)/16), count)
	var fn []byte
	for i := uint32(0); i < count; i++ {
		size, start, err := readU32(body, off)
		if err != nil {
			return nil, fmt.Errorf("interrupt: function %d size: %w", i, err)
		}
		end := start + int(size)
		if end > len(body) || end < start {
			return nil, fmt.Errorf("interrupt: function %d runs past the code section", i)
		}
		if fn, err = instrumentFunction(fn[:0], body[start:end], check); err != nil {
			return nil, fmt.Errorf("interrupt: function %d: %w", i, err)
		}
		out = appendU32(out, uint32(len(fn)))
		out = append(out, fn...)
		off = end
	}
	if off != len(body) {
		return nil, errors.New("interrupt: bytes after the last function of the code section")
	}
	return out, nil
}

// instrumentFunction appends to out the function body b with check after
// the block type of each loop.
func instrumentFunction(out, b, check []byte) ([]byte, error) {
	groups, off, err := readU32(b, 0)
	if err != nil {
		return nil, fmt.Errorf("locals: %w", err)
	}
	for range groups {
		if _, off, err = readU32(b, off); err != nil {
			return nil, fmt.Errorf("locals: %w", err)
		}
		off++ // the value type
	}
	if off > len(b) {
		return nil, errors.New("locals run past the body")
	}
	copied := 0
	for off < len(b) {
		op := b[off]
		next, err := skipInstruction(b, off)
		if err != nil {
			return nil, fmt.Errorf("instruction %#x at body offset %d: %w", op, off, err)
		}
		if op == 0x03 { // loop: the check goes after its block type
			out = append(out, b[copied:next]...)
			out = append(out, check...)
			copied = next
		}
		off = next
	}
	if off != len(b) || len(b) == 0 || b[len(b)-1] != 0x0b {
		return nil, errors.New("the body does not end with end")
	}
	return append(out, b[copied:]...), nil
}

// skipInstruction returns the offset after the instruction at off.
func skipInstruction(b []byte, off int) (int, error) {
	op := b[off]
	off++
	var err error
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0b || op == 0x0f || op == 0x1a || op == 0x1b ||
		op == 0xd1 || (op >= 0x45 && op <= 0xc4):
		// no immediates
	case op >= 0x02 && op <= 0x04: // block, loop, if
		off, err = skipBlockType(b, off)
	case op == 0x0c || op == 0x0d || op == 0x10 || op == 0x12 || op == 0xd2 ||
		(op >= 0x20 && op <= 0x26) || op == 0x3f || op == 0x40:
		// br, br_if, call, return_call, ref.func, locals, globals, tables,
		// memory.size and memory.grow: one index
		_, off, err = readU32(b, off)
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		off, err = skipU32s(b, off, 2)
	case op == 0x0e: // br_table
		var n uint32
		if n, off, err = readU32(b, off); err == nil {
			off, err = skipU32s(b, off, int(n)+1)
		}
	case op == 0x1c: // select with types
		var n uint32
		if n, off, err = readU32(b, off); err == nil {
			off += int(n)
		}
	case op >= 0x28 && op <= 0x3e: // loads and stores: alignment and offset
		var align uint32
		if align, off, err = readU32(b, off); err == nil && align&0x40 != 0 {
			err = errors.New("a memory index (several memories) is not supported")
		}
		if err == nil {
			_, off, err = readU32(b, off)
		}
	case op == 0x41:
		off, err = skipLEB(b, off, 5)
	case op == 0x42:
		off, err = skipLEB(b, off, 10)
	case op == 0x43:
		off += 4
	case op == 0x44:
		off += 8
	case op == 0xd0: // ref.null: a reference type
		off++
	case op == 0xfc:
		off, err = skipPrefixed(b, off)
	default:
		err = errors.New("unsupported opcode")
	}
	if err == nil && off > len(b) {
		err = errors.New("immediates run past the body")
	}
	return off, err
}

// skipPrefixed skips the 0xfc instructions: saturating truncation, bulk
// memory and table operations.
func skipPrefixed(b []byte, off int) (int, error) {
	sub, off, err := readU32(b, off)
	if err != nil {
		return 0, err
	}
	switch {
	case sub <= 7: // saturating truncation
		return off, nil
	case sub == 9 || sub == 11 || sub == 13 || sub == 15 || sub == 16 || sub == 17:
		return skipU32s(b, off, 1)
	case sub == 8 || sub == 10 || sub == 12 || sub == 14:
		return skipU32s(b, off, 2)
	}
	return 0, fmt.Errorf("unsupported 0xfc instruction %d", sub)
}

func skipBlockType(b []byte, off int) (int, error) {
	if off >= len(b) {
		return 0, errors.New("block type cut short")
	}
	switch b[off] {
	case 0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		return off + 1, nil
	}
	return skipLEB(b, off, 5) // a type index, as a signed 33-bit number
}

func skipU32s(b []byte, off, n int) (int, error) {
	var err error
	for range n {
		if _, off, err = readU32(b, off); err != nil {
			return 0, err
		}
	}
	return off, nil
}

// skipLEB skips one LEB128 number of at most max bytes.
func skipLEB(b []byte, off, max int) (int, error) {
	for i := 0; i < max; i++ {
		if off+i >= len(b) {
			return 0, errors.New("number cut short")
		}
		if b[off+i]&0x80 == 0 {
			return off + i + 1, nil
		}
	}
	return 0, errors.New("number too long")
}

// readU32 reads an unsigned LEB128 number of at most 32 bits.
func readU32(b []byte, off int) (uint32, int, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if off+i >= len(b) || off+i < 0 {
			return 0, 0, errors.New("number cut short")
		}
		c := b[off+i]
		if i == 4 && c > 0x0f {
			return 0, 0, errors.New("number over 32 bits")
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, off + i + 1, nil
		}
	}
	return 0, 0, errors.New("number too long")
}

// appendS32 appends v as a signed LEB128 number, as i32.const wants.
func appendS32(out []byte, v int32) []byte {
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

func appendU32(out []byte, v uint32) []byte {
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}
