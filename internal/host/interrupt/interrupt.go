// Package interrupt rewrites a WebAssembly module so that the host can stop
// any loop in it, and so that a loop never keeps the Go runtime from
// stopping the world. Every loop iteration counts down a global the
// rewrite adds; when it reaches zero, the loop calls a function the module
// already imports (the host's poll), and traps if the poll answers
// non-zero.
//
// It exists because wazero's own guarantee (WithCloseOnContextDone) is an
// indirect call to a trampoline at every loop header plus a goroutine per
// call. QuickJS's interpreter dispatches each bytecode through a loop, so
// that check doubled the cost of a warm sandbox call. A decrement and a
// branch cost a small fraction of it, and they keep the guarantee: no
// loop, in the interpreter or in a C built-in that never polls, runs on
// past the poll's answer. There is a second gain: wazero's compiled code
// cannot be preempted, so a long C loop used to hold up every goroutine
// waiting for a garbage collection; each poll is a return to Go, where the
// scheduler can stop it.
//
// The counter is a wasm global, not a word of linear memory, so a guest
// that corrupts its own memory cannot starve the poll; only the rewrite's
// instructions touch it.
//
// The decoder knows the MVP instruction set and the extensions clang emits
// for wasm32 (sign extension, saturating truncation, bulk memory,
// reference types, tail calls). Anything else (SIMD, exceptions, several
// memories) is refused rather than skipped, so a module never runs with a
// loop left unchecked.
package interrupt

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// Section ids of the binary format that the rewrite reads or changes.
const (
	sectionCustom = 0
	sectionType   = 1
	sectionImport = 2
	sectionGlobal = 6
	sectionCode   = 10
)

// sectionOrder is the order the binary format requires of non-custom
// sections, by id: a new global section goes where it belongs.
var sectionOrder = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

var header = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// Poll names the imported function that loops call: it takes nothing and
// returns an i32, non-zero to stop.
type Poll struct {
	Module, Name string
}

// Instrument returns module with every loop of every function counting
// down a new global from every; at zero the global is reset and poll is
// called, and a non-zero answer traps with unreachable. It fails on
// anything it cannot decode, and when module does not import poll with
// the signature () -> i32.
func Instrument(module []byte, poll Poll, every uint32) ([]byte, error) {
	if !bytes.HasPrefix(module, header) {
		return nil, errors.New("interrupt: not a WebAssembly 1.0 binary module")
	}
	if every == 0 || every > 1<<30 {
		return nil, fmt.Errorf("interrupt: a poll every %d iterations is out of range", every)
	}
	sections, err := splitSections(module[len(header):])
	if err != nil {
		return nil, err
	}
	var imports importInfo
	definedGlobals := 0
	var types []byte
	for _, s := range sections {
		switch s.id {
		case sectionType:
			types = s.body
		case sectionImport:
			if imports, err = readImports(s.body, poll); err != nil {
				return nil, err
			}
		case sectionGlobal:
			n, _, err := readU32(s.body, 0)
			if err != nil {
				return nil, fmt.Errorf("interrupt: global section: %w", err)
			}
			definedGlobals = int(n)
		}
	}
	if imports.pollType < 0 {
		return nil, fmt.Errorf("interrupt: the module does not import %s.%s", poll.Module, poll.Name)
	}
	if err := checkPollType(types, uint32(imports.pollType)); err != nil {
		return nil, err
	}
	counter := uint32(imports.globals + definedGlobals)
	check := loopCheck(counter, imports.pollFunc, every)

	sections = withSection(sections, sectionGlobal)
	out := append([]byte(nil), header...)
	for _, s := range sections {
		body := s.body
		switch s.id {
		case sectionGlobal:
			body = withNewGlobal(body, every)
		case sectionCode:
			if body, err = instrumentCode(body, check); err != nil {
				return nil, err
			}
		}
		out = appendSection(out, s.id, body)
	}
	return out, nil
}

// loopCheck is what the rewrite puts at the top of every loop body:
//
//	global.get c; i32.const 1; i32.sub; global.set c
//	global.get c; i32.eqz
//	if
//	  i32.const every; global.set c
//	  call poll; if unreachable end
//	end
//
// It is a whole block of its own, so no branch depth in the body changes,
// and it leaves the operand stack as it found it.
func loopCheck(counter, poll, every uint32) []byte {
	c := appendU32([]byte{0x23}, counter)
	c = append(c, 0x41, 0x01, 0x6b, 0x24)
	c = appendU32(c, counter)
	c = append(c, 0x23)
	c = appendU32(c, counter)
	c = append(c, 0x45, 0x04, 0x40, 0x41)
	c = appendS32(c, int32(every))
	c = append(c, 0x24)
	c = appendU32(c, counter)
	c = append(c, 0x10)
	c = appendU32(c, poll)
	return append(c, 0x04, 0x40, 0x00, 0x0b, 0x0b)
}

type section struct {
	id   byte
	body []byte
}

func splitSections(b []byte) ([]section, error) {
	var out []section
	for off := 0; off < len(b); {
		id := b[off]
		size, next, err := readU32(b, off+1)
		if err != nil {
			return nil, fmt.Errorf("interrupt: section %d size: %w", id, err)
		}
		end := next + int(size)
		if end > len(b) || end < next {
			return nil, fmt.Errorf("interrupt: section %d runs past the end of the module", id)
		}
		if _, known := sectionOrder[id]; !known && id != sectionCustom {
			return nil, fmt.Errorf("interrupt: unknown section id %d", id)
		}
		out = append(out, section{id: id, body: b[next:end]})
		off = end
	}
	return out, nil
}

// withSection returns sections with an empty section of id where the
// binary format wants it, unless there is one already.
func withSection(sections []section, id byte) []section {
	at := len(sections)
	for i, s := range sections {
		if s.id == id {
			return sections
		}
		if s.id != sectionCustom && sectionOrder[s.id] > sectionOrder[id] && at == len(sections) {
			at = i
		}
	}
	return slices.Insert(sections, at, section{id: id, body: appendU32(nil, 0)})
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(body)))
	return append(out, body...)
}

// withNewGlobal appends (global (mut i32) (i32.const every)) to a global
// section's body.
func withNewGlobal(body []byte, every uint32) []byte {
	n, next, _ := readU32(body, 0) // read once already by Instrument
	out := appendU32(nil, n+1)
	out = append(out, body[next:]...)
	out = append(out, 0x7f, 0x01, 0x41)
	out = appendS32(out, int32(every))
	return append(out, 0x0b)
}

// importInfo is what the rewrite needs from the import section: how many
// globals are imported (the new global's index comes after them), and the
// poll's function index and type index (-1 when it is not imported).
type importInfo struct {
	globals  int
	pollFunc uint32
	pollType int64
}

func readImports(body []byte, poll Poll) (importInfo, error) {
	info := importInfo{pollType: -1}
	count, off, err := readU32(body, 0)
	if err != nil {
		return info, fmt.Errorf("interrupt: import section: %w", err)
	}
	funcs := uint32(0)
	for i := uint32(0); i < count; i++ {
		var module, name string
		if module, off, err = readName(body, off); err == nil {
			name, off, err = readName(body, off)
		}
		if err != nil {
			return info, fmt.Errorf("interrupt: import %d: %w", i, err)
		}
		if off >= len(body) {
			return info, fmt.Errorf("interrupt: import %d is cut short", i)
		}
		kind := body[off]
		off++
		switch kind {
		case 0x00: // function: a type index
			var typ uint32
			if typ, off, err = readU32(body, off); err == nil && module == poll.Module && name == poll.Name {
				info.pollFunc, info.pollType = funcs, int64(typ)
			}
			funcs++
		case 0x01: // table: a reference type and limits
			off, err = skipLimits(body, off+1)
		case 0x02: // memory: limits
			off, err = skipLimits(body, off)
		case 0x03: // global: a value type and mutability
			info.globals++
			off += 2
		default:
			err = fmt.Errorf("unknown kind %#x", kind)
		}
		if err != nil {
			return info, fmt.Errorf("interrupt: import %d: %w", i, err)
		}
	}
	return info, nil
}

// checkPollType fails unless type index typ of the type section is
// () -> i32.
func checkPollType(types []byte, typ uint32) error {
	count, off, err := readU32(types, 0)
	if err != nil || typ >= count {
		return fmt.Errorf("interrupt: the poll's type %d is not in the type section", typ)
	}
	for i := uint32(0); ; i++ {
		if off >= len(types) || types[off] != 0x60 {
			return fmt.Errorf("interrupt: type %d is not a function type", i)
		}
		params, p, err := readU32(types, off+1)
		if err != nil {
			return fmt.Errorf("interrupt: type %d: %w", i, err)
		}
		results, r, err := readU32(types, p+int(params))
		if err != nil {
			return fmt.Errorf("interrupt: type %d: %w", i, err)
		}
		if i == typ {
			if params != 0 || results != 1 || r >= len(types) || types[r] != 0x7f {
				return errors.New("interrupt: the poll's type is not () -> i32")
			}
			return nil
		}
		off = r + int(results)
	}
}

func skipLimits(b []byte, off int) (int, error) {
	if off >= len(b) {
		return 0, errors.New("limits cut short")
	}
	flags := b[off]
	if flags > 0x03 {
		return 0, fmt.Errorf("limits flags %#x are not supported", flags)
	}
	_, off, err := readU32(b, off+1)
	if err == nil && flags&0x01 != 0 {
		_, off, err = readU32(b, off)
	}
	return off, err
}

func readName(b []byte, off int) (string, int, error) {
	n, off, err := readU32(b, off)
	if err != nil {
		return "", 0, err
	}
	end := off + int(n)
	if end > len(b) || end < off {
		return "", 0, errors.New("name runs past its section")
	}
	return string(b[off:end]), end, nil
}
