package component

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SourceMap maps lines of a bundled component back to the files they came
// from, so that a stack trace names the author's file and line. It reads
// source map v3 (what esbuild writes), keeping for each generated line the
// original position of its first mapping: QuickJS's stack frames carry a
// line and no column.
type SourceMap struct {
	sources []string
	lines   []position // by generated line, 0-based; source -1 for none
}

type position struct {
	source, line int // 0-based
}

// MaxSourceMap bounds a source map's size; a larger one is refused.
const MaxSourceMap = 16 << 20

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
	src, line := 0, 0 // carried across segments and lines, as the format says
	for _, group := range strings.Split(m.Mappings, ";") {
		first := position{source: -1}
		for _, seg := range strings.Split(group, ",") {
			if seg == "" {
				continue
			}
			fields, err := decodeVLQ(seg)
			if err != nil {
				return nil, err
			}
			if len(fields) < 4 {
				continue // a segment with no original position
			}
			src += fields[1]
			line += fields[2]
			if src < 0 || src >= len(m.Sources) || line < 0 {
				return nil, errors.New("source map: a mapping points outside its sources")
			}
			if first.source < 0 {
				first = position{source: src, line: line}
			}
		}
		sm.lines = append(sm.lines, first)
	}
	return sm, nil
}

const base64VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeVLQ decodes one segment's base64 VLQ fields.
func decodeVLQ(seg string) ([]int, error) {
	var out []int
	value, shift := 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(base64VLQ, seg[i])
		if d < 0 || shift > 30 {
			return nil, fmt.Errorf("source map: bad mapping %q", seg)
		}
		value += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		if value&1 != 0 {
			out = append(out, -(value >> 1))
		} else {
			out = append(out, value>>1)
		}
		value, shift = 0, 0
	}
	if shift != 0 {
		return nil, fmt.Errorf("source map: bad mapping %q", seg)
	}
	return out, nil
}

// Original returns the file and 1-based line that generated line (1-based)
// came from.
func (m *SourceMap) Original(line int) (string, int, bool) {
	if m == nil || line < 1 || line > len(m.lines) {
		return "", 0, false
	}
	p := m.lines[line-1]
	if p.source < 0 {
		return "", 0, false
	}
	return m.sources[p.source], p.line + 1, true
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
