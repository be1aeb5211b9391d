package bundle

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
)

// TestOneTenantsImportCannotChangeAnothers: a package whose tarball is
// byte for byte another's (a copy published under a new name) gets a
// folder of its own, so importing it first does not break the original.
func TestOneTenantsImportCannotChangeAnothers(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	files := map[string]string{"package.json": `{"name":"popular","version":"1.0.0","main":"index.js"}`, "index.js": `module.exports = "popular";`}
	reg.Publish(npmtest.Package{Name: "popular", Version: "1.0.0", Files: files})
	reg.Publish(npmtest.Package{Name: "copycat", Version: "1.0.0", Files: files})
	p := newPackages(t, reg)
	for _, name := range []string{"copycat", "popular", "copycat"} {
		res, err := p.Bundle(context.Background(), `import v from "`+name+`"; export default v;`, nil)
		if err != nil || !strings.Contains(res.Code, `"popular"`) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	entries, err := readEntries(p.Cache)
	if err != nil || len(entries) != 2 {
		t.Errorf("cache entries %v (%v), want one per package", entries, err)
	}
}

// TestStagingKeepsRefusedPackagesOutOfTheCache: with a staging folder,
// nothing reaches the cache until the caller commits it, so a bundle
// refused (here, too large) leaves the cache as it was.
func TestStagingKeepsRefusedPackagesOutOfTheCache(t *testing.T) {
	t.Parallel()
	reg := npmtest.New(t)
	reg.Publish(npmtest.Package{Name: "big", Version: "1.0.0", Files: map[string]string{
		"index.js": `module.exports = "` + strings.Repeat("x", 64<<10) + `";`}})
	reg.Publish(npmtest.Package{Name: "small", Version: "1.0.0", Files: map[string]string{"index.js": `module.exports = 1;`}})
	dir := t.TempDir()
	cache := Cache{Dir: filepath.Join(dir, "npm"), MaxBytes: 1 << 20}
	bundleStaged := func(code string) (Resolved, error) {
		staging, err := cache.Stage()
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Discard(staging)
		p := &Packages{Registry: &Registry{URL: reg.URL(), Get: plainGetter{}}, Cache: cache.Dir, Staging: staging, MaxBundle: 32 << 10}
		res, err := p.Bundle(context.Background(), code, nil)
		if err == nil {
			if _, cerr := cache.Commit(staging, true); cerr != nil {
				t.Fatal(cerr)
			}
		}
		return res, err
	}
	res, err := bundleStaged(`import b from "big"; export default b;`)
	if err == nil || !strings.Contains(err.Error(), "too large") || res.Downloaded == 0 {
		t.Fatalf("big: %v, downloaded %d; want refused as too large, its download counted", err, res.Downloaded)
	}
	if entries, _ := readEntries(cache.Dir); len(entries) != 0 {
		t.Errorf("a refused bundle left %v in the cache", entries)
	}
	if _, err := bundleStaged(`import s from "small"; export default s;`); err != nil {
		t.Fatal(err)
	}
	entries, _ := readEntries(cache.Dir)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].name, "small@1.0.0-") {
		t.Errorf("after an accepted bundle the cache holds %v", entries)
	}
	if left, _ := os.ReadDir(filepath.Join(cache.Dir, stagingRoot)); len(left) != 0 {
		t.Errorf("staging folders left: %v", left)
	}
}

// TestCommitEvictsTheLeastRecentlyUsed fills a cache past its bound.
func TestCommitEvictsTheLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	cache := Cache{Dir: t.TempDir(), MaxBytes: 250}
	put := func(dir, name string, size int64, used time.Time) {
		t.Helper()
		mark := filepath.Join(dir, name, completeMark)
		if err := os.MkdirAll(filepath.Dir(mark), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mark, []byte(strconv.FormatInt(size, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(mark, used, used); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	put(cache.Dir, "old@1.0.0-a", 100, now.Add(-3*time.Hour))
	put(cache.Dir, "used@1.0.0-b", 100, now.Add(-time.Minute))
	names := func() []string {
		entries, err := cache.entries()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.name)
		}
		return out
	}
	tests := []struct {
		name, pkg string
		size      int64
		evict     bool
		want      string
	}{
		{"while deploys read the cache, a package that does not fit is dropped", "new@1", 100, false, "old@1.0.0-a used@1.0.0-b"},
		{"otherwise the least recently used make room", "new@2", 100, true, "used@1.0.0-b new@2"},
		{"a package larger than the bound is never cached, and evicts nothing", "huge@1", 300, true, "used@1.0.0-b new@2"},
	}
	for _, tt := range tests {
		staging, err := cache.Stage()
		if err != nil {
			t.Fatal(err)
		}
		put(staging, tt.pkg, tt.size, now)
		total, err := cache.Commit(staging, tt.evict)
		if got := strings.Join(names(), " "); err != nil || got != tt.want || total > cache.MaxBytes {
			t.Errorf("%s: cache %q (%d bytes, %v), want %q", tt.name, got, total, err, tt.want)
		}
		if _, err := os.Stat(staging); !os.IsNotExist(err) {
			t.Errorf("%s: staging left: %v", tt.name, err)
		}
	}
}
