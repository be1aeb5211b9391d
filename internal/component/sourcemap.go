package component

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SourceMap maps lines of a bundled component back to the files they came
// from, so that a stack trace names the author's file and line. It reads
// source map v3 (what esbuild writes), keeping for each generated line the
// original position of its first mapping: QuickJS's stack frames carry a
// line and no column.
//
// A map comes from a client, so it is kept compactly: only the lines
// that have a mapping, 12 bytes each, and a map of empty lines (";;;"...)
// costs nothing however long it is.
type SourceMap struct {
	sources []string
	lines   []mappedLine // ascending by generated line
}

// mappedLine is a generated line (0-based) and where it came from.
type mappedLine struct {
	gen, source, line uint32
}

// MaxSourceMap bounds a source map's size; a larger one is refused.
const MaxSourceMap = 16 << 20

// MaxAuthorSourceMap bounds the source map a client sends with its code,
// which fount keeps and parses when the code throws.
const MaxAuthorSourceMap = 4 << 20

// ParseSourceMap decodes a source map v3. The map may come from a client:
// every index is checked, and a malformed map is an error, never a panic.
func ParseSourceMap(raw string) (*SourceMap, error) {
	if len(raw) > MaxSourceMap {
		return nil, fmt.Errorf("source map: more than %d MiB", MaxSourceMap>>20)
	}
	var m struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("source map: %w", err)
	}
	if m.Version != 3 {
		return nil, fmt.Errorf("source map: version %d, want 3", m.Version)
	}
	sm := &SourceMap{sources: m.Sources}
	err := eachSegment(m.Mappings, func(gen, src, line int) error {
		if src < 0 || src >= len(m.Sources) || line < 0 || int64(line) > math.MaxUint32 || int64(gen) > math.MaxUint32 {
			return errors.New("source map: a mapping points outside its sources")
		}
		if n := len(sm.lines); n == 0 || sm.lines[n-1].gen != uint32(gen) {
			sm.lines = append(sm.lines, mappedLine{gen: uint32(gen), source: uint32(src), line: uint32(line)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sm.lines = slices.Clip(sm.lines)
	return sm, nil
}

// eachSegment calls f with the generated line and the original source
// and line of every segment of mappings that has an original position.
// Source and line are deltas from the segment before, across lines, as
// the format says.
func eachSegment(mappings string, f func(gen, src, line int) error) error {
	var fields [5]int
	n, value, shift := 0, 0, 0
	gen, src, line := 0, 0, 0
	end := func() error { // of a segment
		if shift != 0 {
			return errors.New("source map: a mapping ends inside a number")
		}
		if n >= 4 {
			src += fields[1]
			line += fields[2]
			if err := f(gen, src, line); err != nil {
				return err
			}
		}
		n = 0
		return nil
	}
	for i := 0; i < len(mappings); i++ {
		c := mappings[i]
		switch c {
		case ',', ';':
			if err := end(); err != nil {
				return err
			}
			if c == ';' {
				gen++
			}
			continue
		}
		d := strings.IndexByte(base64VLQ, c)
		if d < 0 || shift > 30 {
			return fmt.Errorf("source map: bad mapping at byte %d", i)
		}
		value += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		if n == len(fields) {
			return fmt.Errorf("source map: a segment with more than %d fields at byte %d", len(fields), i)
		}
		fields[n] = value >> 1
		if value&1 != 0 {
			fields[n] = -fields[n]
		}
		n, value, shift = n+1, 0, 0
	}
	return end()
}

const base64VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// Original returns the file and 1-based line that generated line (1-based)
// came from.
func (m *SourceMap) Original(line int) (string, int, bool) {
	if m == nil || line < 1 || int64(line-1) > math.MaxUint32 {
		return "", 0, false
	}
	gen := uint32(line - 1)
	i, found := slices.BinarySearchFunc(m.lines, gen, func(l mappedLine, g uint32) int { return cmp.Compare(l.gen, g) })
	if !found {
		return "", 0, false
	}
	p := m.lines[i]
	return m.sources[p.source], int(p.line) + 1, true
}

// Bytes is about what the parsed map holds in memory.
func (m *SourceMap) Bytes() int64 {
	if m == nil {
		return 0
	}
	n := int64(cap(m.lines))*12 + int64(cap(m.sources))*16
	for _, s := range m.sources {
		n += int64(len(s))
	}
	return n
}

// frame finds a stack frame's file and line: "(component.mjs:12)" or
// "at component.mjs:12".
var frame = regexp.MustCompile(`([A-Za-z0-9_.@/:+-]+\.[cm]?[jt]sx?|npm:[^\s():]+):(\d+)`)

// MapStack rewrites the frames of stack that are in file through maps,
// applied in order (a server bundle's map, then the author's bundle's
// map), to the files and lines they came from. Frames it cannot map are
// left as they are.
func MapStack(stack, file string, maps ...*SourceMap) string {
	return frame.ReplaceAllStringFunc(stack, func(s string) string {
		m := frame.FindStringSubmatch(s)
		name, line := m[1], 0
		line, _ = strconv.Atoi(m[2])
		if name != file {
			return s
		}
		for _, sm := range maps {
			if sm == nil {
				continue
			}
			orig, l, ok := sm.Original(line)
			if !ok {
				return s
			}
			name, line = orig, l
			if name != file {
				break // it left the bundle: the next map (of the bundle) no longer applies
			}
		}
		return name + ":" + strconv.Itoa(line)
	})
}
