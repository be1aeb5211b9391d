package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
)

// corpusList names the real npm packages the tests deploy, one
// "lock-path name@version integrity" per line (the lock path is where
// npm install puts the package); `make corpus` fetches them.
const corpusList = "testdata/corpus/packages.txt"

// corpusDir is where tools/corpus/fetch.sh keeps their tarballs.
func corpusDir() string {
	if d := os.Getenv("FOUNT_CACHE_DIR"); d != "" {
		return filepath.Join(d, "corpus")
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "fount", "corpus")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "fount", "corpus")
}

// corpusPackage is one line of the corpus.
type corpusPackage struct {
	lockPath, spec string
	tarball        []byte
}

// corpusPackages reads every tarball of the corpus.
func corpusPackages(t *testing.T) []corpusPackage {
	t.Helper()
	f, err := os.Open(corpusList)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusPackage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		spec := fields[1]
		at := strings.LastIndex(spec, "@")
		file := strings.ReplaceAll(strings.TrimPrefix(spec[:at], "@"), "/", "-") + "-" + spec[at+1:] + ".tgz"
		b, err := os.ReadFile(filepath.Join(corpusDir(), file))
		if err != nil {
			t.Fatalf("the test corpus lacks %s (%v): `make corpus` fetches it", spec, err)
		}
		out = append(out, corpusPackage{lockPath: fields[0], spec: spec, tarball: b})
	}
	return out
}

// publishCorpus publishes the whole corpus to reg.
func publishCorpus(t *testing.T, reg *npmtest.Registry) {
	t.Helper()
	for _, p := range corpusPackages(t) {
		if err := reg.PublishTarball(p.tarball); err != nil {
			t.Fatalf("%s: %v", p.spec, err)
		}
	}
}

// installCorpus unpacks the corpus into dir, where npm install would put
// each package, for Node to run the same component.
func installCorpus(t *testing.T, dir string) {
	t.Helper()
	for _, p := range corpusPackages(t) {
		if err := unpackTo(p.tarball, filepath.Join(dir, filepath.FromSlash(p.lockPath))); err != nil {
			t.Fatalf("%s: %v", p.spec, err)
		}
	}
}

// unpackTo writes a package tarball's files under dst, dropping the
// tarball's top folder.
func unpackTo(tgz []byte, dst string) error {
	zr, err := gzip.NewReader(strings.NewReader(string(tgz)))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || h.Typeflag != tar.TypeReg || !filepath.IsLocal(rel) {
			continue
		}
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
}
