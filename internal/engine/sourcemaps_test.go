package engine

import (
	"fmt"
	"strings"
	"testing"
)

// denseMap is a source map with a mapping on each of lines lines, about
// 12 bytes each once parsed.
func denseMap(lines int) string {
	return `{"version":3,"sources":["a.mjs"],"mappings":"AAAA` + strings.Repeat(";AACA", lines-1) + `"}`
}

// TestMapCacheBoundsEachAccount: parsed maps are held within a bound per
// account and in all; an account past its share loses its own oldest
// maps, not another's; a map over the share is used and not kept.
func TestMapCacheBoundsEachAccount(t *testing.T) {
	t.Parallel()
	const perAccount, max = 40_000, 100_000
	c := newMapCache(max, perAccount)
	one := denseMap(1_000) // about 12 KB parsed
	for i := range 3 {
		if maps := c.get(fmt.Sprintf("b%d", i), "u_b", one); len(maps) != 1 {
			t.Fatalf("b%d: %d maps", i, len(maps))
		}
	}
	_, ofB := c.size("u_b")
	for i := range 10 {
		c.get(fmt.Sprintf("a%d", i), "u_a", one)
		if total, ofA := c.size("u_a"); ofA > perAccount || total > max {
			t.Fatalf("after a%d: %d bytes in all, %d of u_a", i, total, ofA)
		}
	}
	if _, b := c.size("u_b"); b != ofB {
		t.Errorf("u_b's maps went from %d to %d bytes: another account's maps pushed them out", ofB, b)
	}
	if _, ok := c.entries["a9"]; !ok {
		t.Error("the newest map of u_a is not held")
	}
	if _, ok := c.entries["a0"]; ok {
		t.Error("the oldest map of u_a is still held past its share")
	}
	big := denseMap(10_000) // about 120 KB: over the share
	if maps := c.get("big", "u_c", big); len(maps) != 1 {
		t.Fatal("a map over the share was not parsed")
	}
	if _, ok := c.entries["big"]; ok {
		t.Error("a map over the share was kept")
	}
	// Held maps are not parsed again.
	first := c.get("b0", "u_b", "not a map")
	if len(first) != 1 {
		t.Error("a held map was parsed again")
	}
}
