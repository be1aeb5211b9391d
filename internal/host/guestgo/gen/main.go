// Command gen makes package guestgo from the guest (see its doc): `gen
// wasm OUT` writes the guest as the host instruments it, for wasm2go to
// translate; `gen patch DIR` patches wasm2go's DIR/guest.go with the
// limits and writes DIR/limits.go.
package main

import (
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fount-dev/fount/internal/host"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: gen wasm OUT.wasm | gen patch DIR")
	}
	switch args[0] {
	case "wasm":
		wasm, err := host.InstrumentedGuest()
		if err != nil {
			return err
		}
		return os.WriteFile(args[1], wasm, 0o644)
	case "patch":
		file := filepath.Join(args[1], "guest.go")
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		patched, err := patch(string(src))
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		formatted, err := format.Source([]byte(patched))
		if err != nil {
			return fmt.Errorf("%s: the patched translation: %w", file, err)
		}
		if err := os.WriteFile(file, formatted, 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(args[1], "limits.go"), []byte(limits), 0o644)
	}
	return fmt.Errorf("unknown step %q", args[0])
}

// buildTag keeps the translation out of every build but the wasm2go one:
// it takes half a minute and 2 GB to compile.
const buildTag = "//go:build wasm2go\n\n"

// The translation's text that patch changes is each checked to be found,
// so that a wasm2go whose output differs fails here, not in a build.
const moduleStruct = "type Module struct {\n"

// New makes the initial memory in the Go heap and writes the data
// segments into it; newModule takes where to make it (NewLimited's
// allocate), and skips the data when that memory holds an image already.
const (
	newFunc         = "func New(v0 Xfount, v1 Xwasi_snapshot_preview1) *Module {\n"
	newWithAllocate = newFunc + "\treturn newModule(v0, v1, func(size int) ([]byte, bool) { return make([]byte, size), false })\n}\n\n" +
		"func newModule(v0 Xfount, v1 Xwasi_snapshot_preview1, allocate func(size int) ([]byte, bool)) *Module {\n"
)

var (
	initialMemory = regexp.MustCompile(`\tm\.memory = make\(\[\]byte, (\w+)\)\n`)
	dataInit      = regexp.MustCompile(`(?m)^\t(memory_init\(m\.memory, data\w*, .*\))\n`)
)

// growCall is the guest's memory.grow, which growMemory replaces.
var growCall = regexp.MustCompile(`memory_grow\(&m\.memory, (.+?), maxMem\)`)

// depthGuard opens every guest function; every way out of it (a return,
// or the end of a function without results) gives the depth back. A
// deferred decrement would be simpler, but translated functions have so
// many returns that Go keeps their defers off its fast path: it made a
// warm call up to twice as slow. A trap unwinds past the decrements; the
// instance is discarded then (and Call resets the depth).
const depthGuard = "\tif m.depth++; m.depth > m.maxDepth {\n\t\tpanic(ErrCallDepth)\n\t}\n"

var (
	guestMethod = regexp.MustCompile(`^func \(m \*Module\) _\w+\(.*\) ?(\w*) \{\n$`)
	returnLine  = regexp.MustCompile(`^(\t+)return(?: (.+))?\n$`)
)

// guardDepth adds depthGuard to every guest function of src, and the
// decrement at each of its exits.
func guardDepth(src string) (string, int) {
	var out strings.Builder
	out.Grow(len(src) + len(src)/4)
	guarded := 0
	inside, result := false, ""
	for line := range strings.Lines(src) {
		switch {
		case !inside:
			out.WriteString(line)
			if m := guestMethod.FindStringSubmatch(line); m != nil {
				out.WriteString(depthGuard)
				inside, result = true, m[1]
				guarded++
			}
		case line == "}\n": // the function's end
			if result == "" {
				out.WriteString("\tm.depth--\n")
			}
			out.WriteString(line)
			inside = false
		default:
			m := returnLine.FindStringSubmatch(line)
			switch {
			case m == nil:
				out.WriteString(line)
			case m[2] == "":
				out.WriteString(m[1] + "m.depth--\n" + line)
			default: // the result is computed (calls included) before the depth goes down
				fmt.Fprintf(&out, "%[1]s{\n%[1]s\tvar result %[2]s = %[3]s\n%[1]s\tm.depth--\n%[1]s\treturn result\n%[1]s}\n", m[1], result, m[2])
			}
		}
	}
	return out.String(), guarded
}

// patch adds the memory cap and the depth guard to wasm2go's output.
func patch(src string) (string, error) {
	if strings.HasPrefix(src, buildTag) {
		return "", errors.New("already patched")
	}
	if strings.Count(src, moduleStruct) != 1 {
		return "", errors.New("no Module struct")
	}
	src = strings.Replace(src, moduleStruct, moduleStruct+"\tmaxPages int64 // the memory cap NewLimited gives\n\tmaxDepth int32 // the bound of depth NewLimited gives\n\tdepth    int32 // guest calls in progress\n\tgrow     func(delta int64) int64 // SetGrow's\n", 1)
	if !growCall.MatchString(src) {
		return "", errors.New("no memory.grow to the module's maximum")
	}
	src = growCall.ReplaceAllString(src, "m.growMemory($1)")
	if strings.Count(src, newFunc) != 1 || len(initialMemory.FindAllStringIndex(src, -1)) != 1 {
		return "", errors.New("no New making the initial memory")
	}
	src = strings.Replace(src, newFunc, newWithAllocate, 1)
	src = initialMemory.ReplaceAllString(src, "\tmem, initialized := allocate($1)\n\tm.memory = mem\n")
	if !dataInit.MatchString(src) {
		return "", errors.New("no data segment written by New")
	}
	src = dataInit.ReplaceAllString(src, "\tif !initialized {\n\t\t$1\n\t}\n")
	src, guarded := guardDepth(src)
	if guarded == 0 {
		return "", errors.New("no guest function to guard")
	}
	return buildTag + src, nil
}

// limits is the rest of the patch: the constructor with the cap, the
// depth bound and its panic value.
const limits = buildTag + `// Code generated by gen (internal/host/guestgo/gen). DO NOT EDIT.

package guestgo

import "errors"

// ErrCallDepth is the panic of a call past the module's bound of depth.
var ErrCallDepth = errors.New("guestgo: call stack exhausted")

// ResetDepth forgets the calls a trap unwound without giving their depth
// back.
func (m *Module) ResetDepth() { m.depth = 0 }

// NewLimited is New with linear memory capped at maxPages 64 KiB pages and
// at most maxDepth guest calls in progress. The initial memory is what
// allocate returns for its size: zeroes, into which New writes the data
// segments, or (initialized) an image of memory that holds them already.
func NewLimited(v0 Xfount, v1 Xwasi_snapshot_preview1, maxPages int64, maxDepth int32, allocate func(size int) (mem []byte, initialized bool)) *Module {
	m := newModule(v0, v1, allocate)
	m.maxPages, m.maxDepth = maxPages, maxDepth
	return m
}

// SetGrow makes grow the guest's memory.grow: it is given the pages to
// add, and returns the memory's old size in pages, or -1 when it cannot
// grow. The host uses it to keep the memory where it maps it itself.
func (m *Module) SetGrow(grow func(delta int64) int64) { m.grow = grow }

func (m *Module) growMemory(delta int64) int64 {
	if m.grow != nil {
		return m.grow(delta)
	}
	return memory_grow(&m.memory, delta, min(maxMem, m.maxPages))
}
`
