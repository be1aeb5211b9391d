package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
	"github.com/fount-dev/fount/internal/server"
)

// BenchmarkNpmDeploy is the time of POST /v1/components for a component
// with 3 npm dependencies (4 packages, with one's own dependency) from a
// registry on loopback, through the bundle worker as `fount serve` runs
// it. Sub-benchmarks:
//   - cold: empty package cache, new code (no lock): packuments and
//     tarballs are fetched, verified and unpacked;
//   - warm: full cache, new code: packuments are fetched, tarballs not;
//   - locked: the same code again: its lock names cached tarballs, so
//     nothing is fetched;
//   - none: a component importing no package, for the baseline.
//
// A real registry adds its round trips to cold and warm. Figures in
// docs/benchmarks.md.
func BenchmarkNpmDeploy(b *testing.B) {
	reg := npmtest.New(b)
	publishFixtures(b, reg)
	data := b.TempDir()
	s := startProductionServerWith(b, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL(), DataDir: data})
	code := func(i int) string {
		return fmt.Sprintf(`import daytime from "daytime";
import chunk from "lodashlet/chunk.js";
import { v5 } from "uuidlet";
// variant %d
export default { name: "bench", version: "0.1.0", async run(e) {
	this.$emit({ d: daytime(e.when).format("YYYY-MM-DD"), c: chunk(e.items, 2), id: v5(e.name, "6ba7b810-9dad-11d1-80b4-00c04fd430c8") });
} };`, i)
	}
	save := func(b *testing.B, code string) {
		if st, body := s.do("POST", "/v1/components", map[string]any{"component_code": code}); st != 200 {
			b.Fatalf("save: %d %v", st, body)
		}
	}
	n := 0
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if err := os.RemoveAll(filepath.Join(data, "npm")); err != nil {
				b.Fatal(err)
			}
			n++
			b.StartTimer()
			save(b, code(n))
		}
	})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			n++
			save(b, code(n))
		}
	})
	b.Run("locked", func(b *testing.B) {
		for b.Loop() {
			save(b, code(0))
		}
	})
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			n++
			save(b, fmt.Sprintf(`// variant %d
export default { name: "bench", version: "0.1.0", async run(e) { this.$emit(e) } };`, n))
		}
	})
}
