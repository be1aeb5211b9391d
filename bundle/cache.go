package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits of one package's tarball once unpacked: npm's biggest
// common packages stay well under them, a tar bomb does not.
const (
	maxUnpackedBytes = 128 << 20
	maxTarEntries    = 20000
)

// cacheDir is the content-addressed package cache: one folder per
// tarball hash, holding node_modules/<name>/, so that esbuild's own
// package resolution (exports, main, module) works inside it.
type cacheDir string

// completeMark is written last: a folder without it is an unpacking
// that did not finish, and is done again.
const completeMark = ".fount-complete"

// dir returns the folder that holds node_modules/<name> for the
// package with hash sum, and whether it is already unpacked.
func (c cacheDir) dir(sum integrity) (string, bool) {
	d := filepath.Join(string(c), sum.dirName())
	_, err := os.Stat(filepath.Join(d, completeMark))
	return d, err == nil
}

// unpack extracts a verified tarball of package name into the cache.
// It unpacks into a temporary folder and renames it into place, so a
// concurrent unpacking of the same package or a crash leaves no half
// folder behind a complete mark. Install scripts are never run: the
// tarball's files are only written.
func (c cacheDir) unpack(name string, sum integrity, tgz []byte) (string, error) {
	final, ok := c.dir(sum)
	if ok {
		return final, nil
	}
	if err := os.MkdirAll(string(c), 0o755); err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	tmp, err := os.MkdirTemp(string(c), ".unpack-")
	if err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "node_modules", filepath.FromSlash(name))
	if err := extract(root, tgz); err != nil {
		return "", &PackageError{Package: name, Reason: fmt.Sprintf("its tarball does not unpack: %v", err)}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMark), nil, 0o644); err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	os.RemoveAll(final) // an unfinished earlier attempt
	if err := os.Rename(tmp, final); err != nil {
		if _, done := c.dir(sum); done {
			return final, nil // another deploy unpacked it first
		}
		return "", fmt.Errorf("package cache: %w", err)
	}
	return final, nil
}

// extract writes the regular files of a gzipped npm tarball under root,
// dropping the tarball's top folder (usually "package/"). Links, devices
// and paths that would leave root are refused or skipped.
func extract(root string, tgz []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n >= maxTarEntries {
			return fmt.Errorf("more than %d entries", maxTarEntries)
		}
		if h.Typeflag != tar.TypeReg { // Go reads the old "\x00" type as TypeReg too
			continue // folders come with their files; links and devices are never written
		}
		rel, err := tarPath(h.Name)
		if err != nil {
			return err
		}
		if rel == "" {
			continue
		}
		total += h.Size
		if h.Size < 0 || total > maxUnpackedBytes {
			return fmt.Errorf("more than %d MiB unpacked", maxUnpackedBytes>>20)
		}
		if err := writeFile(filepath.Join(root, filepath.FromSlash(rel)), tr, h.Size); err != nil {
			return err
		}
	}
}

// tarPath turns an entry name into a path relative to the package root,
// refusing anything absolute or climbing out; "" is an entry to skip.
func tarPath(name string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("entry %q leaves the package", name)
	}
	_, rel, ok := strings.Cut(clean, "/") // the top folder, whatever its name
	if !ok {
		return "", nil
	}
	return rel, nil
}

func writeFile(dst string, r io.Reader, size int64) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
