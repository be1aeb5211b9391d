package component

import (
	"strings"
	"testing"
)

// A map of a 3-line bundle: line 1 has no mapping, line 2 comes from
// lib.mjs line 4, line 3 from main.mjs line 2 (sources and lines are
// deltas from the segment before, as the format says).
const testMap = `{"version":3,"sources":["lib.mjs","main.mjs"],"mappings":";AAGA;ACCA"}`

func TestSourceMap(t *testing.T) {
	t.Parallel()
	m, err := ParseSourceMap(testMap)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line     int
		file     string
		origLine int
		ok       bool
	}{{1, "", 0, false}, {2, "lib.mjs", 4, true}, {3, "main.mjs", 5, true}, {4, "", 0, false}, {0, "", 0, false}}
	for _, c := range cases {
		f, l, ok := m.Original(c.line)
		if f != c.file || l != c.origLine || ok != c.ok {
			t.Errorf("Original(%d) = %q, %d, %v; want %q, %d, %v", c.line, f, l, ok, c.file, c.origLine, c.ok)
		}
	}
	stack := "    at check (component.mjs:2)\n    at run (component.mjs:3)\n    at other (x.mjs:2)\n    at first (component.mjs:1)\n"
	got := MapStack(stack, "component.mjs", nil, m)
	want := "    at check (lib.mjs:4)\n    at run (main.mjs:5)\n    at other (x.mjs:2)\n    at first (component.mjs:1)\n"
	if got != want {
		t.Errorf("MapStack =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{`{"version":2}`, `not json`, `{"version":3,"sources":["a"],"mappings":"AAAA,ACAA"}`, `{"version":3,"sources":[],"mappings":"AAAA"}`, `{"version":3,"sources":["a"],"mappings":"A!"}`} {
		if _, err := ParseSourceMap(bad); err == nil {
			t.Errorf("ParseSourceMap(%s) accepted it", bad)
		}
	}
}

// TestSourceMapIsCompact: a client's map of millions of empty lines
// (it took 150 MB of heap per source once) costs nothing parsed, and
// parsing allocates nothing per line.
func TestSourceMapIsCompact(t *testing.T) { // not parallel: it counts allocations
	empty := `{"version":3,"sources":["a"],"mappings":"AAAA` + strings.Repeat(";", 4_900_000) + `"}`
	dense := `{"version":3,"sources":["a"],"mappings":"AAAA` + strings.Repeat(";AACA", 200_000) + `"}`
	for _, c := range []struct {
		name     string
		raw      string
		maxBytes int64
		lastLine int // a generated line and the original line it maps to
		origLine int
	}{
		{"empty lines", empty, 64, 1, 1},
		{"a mapping on every line", dense, 200_001*12 + 64, 200_001, 200_001},
	} {
		var m *SourceMap
		allocs := testing.AllocsPerRun(1, func() {
			var err error
			if m, err = ParseSourceMap(c.raw); err != nil {
				t.Fatal(err)
			}
		})
		if m.Bytes() > c.maxBytes || allocs > 64 {
			t.Errorf("%s: %d bytes parsed, %v allocations; want at most %d bytes and a few allocations", c.name, m.Bytes(), allocs, c.maxBytes)
		}
		if f, l, ok := m.Original(c.lastLine); !ok || f != "a" || l != c.origLine {
			t.Errorf("%s: Original(%d) = %q, %d, %v", c.name, c.lastLine, f, l, ok)
		}
	}
}

// FuzzSourceMap: a source map comes from a client; whatever it holds,
// parsing and mapping never panic, and a mapped line names one of its
// sources.
func FuzzSourceMap(f *testing.F) {
	f.Add(testMap, 2)
	f.Add(`{"version":3,"sources":["a"],"mappings":"AAAA;;gBAAgB,E"}`, 3)
	f.Add(`{"version":3,"sources":["a"],"mappings":"//////w"}`, 1)
	f.Add(`{"version":3,"sources":["a","b"],"mappings":";;AAAA,ACAA;;AAAAA,AAAAAA"}`, 3)
	f.Fuzz(func(t *testing.T, raw string, line int) {
		m, err := ParseSourceMap(raw)
		if err != nil {
			return
		}
		if file, l, ok := m.Original(line); ok && (l < 1 || !strings.Contains(raw, file)) {
			t.Fatalf("Original(%d) = %q, %d", line, file, l)
		}
		MapStack("at x (component.mjs:"+strings.Repeat("9", (line%30+30)%30)+")", "component.mjs", m, m)
	})
}
