package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Limits of one package's tarball once unpacked: npm's biggest
// common packages stay well under them, a tar bomb does not.
const (
	maxUnpackedBytes = 128 << 20
	maxTarEntries    = 20000
)

// The package cache is shared by every tenant of a server, so what one
// tenant resolves must never change what another gets: each unpacked
// package is a folder named by its name, version and integrity hash
// (entryName), never by its bytes alone, which two names can share. A
// deploy unpacks what it downloads into a staging folder of its own, and
// the server moves it into the cache only once the deploy's bundle was
// accepted (Cache.Commit), within a bound in bytes, evicting the least
// recently used packages; a refused deploy leaves nothing behind.

// entryName names the cache folder of name@version with hash sum: the
// name (whose alphabet is safe in a path, but for a scope's slash) and a
// hash of all three, so that no two packages share a folder.
func entryName(name, version string, sum integrity) string {
	h := sha256.Sum256([]byte(name + "\x00" + version + "\x00" + sum.String()))
	v := version
	if !safeVersion.MatchString(v) {
		v = "v"
	}
	return strings.ReplaceAll(name, "/", "+") + "@" + v + "-" + hex.EncodeToString(h[:12])
}

// safeVersion is a version that may show in a folder's name as it is.
var safeVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$`)

// completeMark is written last, holding the unpacked size in bytes: a
// folder without it is an unpacking that did not finish. Its time is
// the package's last use, for eviction.
const completeMark = ".fount-complete"

// folders is where a build looks packages up: the shared cache, then its
// own staging folder ("" when it unpacks into the cache itself).
type folders struct{ cache, staging string }

// lookup finds an unpacked name@version with hash sum, and marks a
// package of the shared cache as just used.
func (f folders) lookup(name, version string, sum integrity) (string, bool) {
	entry := entryName(name, version, sum)
	for _, root := range []string{f.cache, f.staging} {
		if root == "" {
			continue
		}
		d := filepath.Join(root, entry)
		mark := filepath.Join(d, completeMark)
		if _, err := os.Stat(mark); err == nil {
			if root == f.cache {
				now := time.Now()
				_ = os.Chtimes(mark, now, now)
			}
			return d, true
		}
	}
	return "", false
}

// unpack extracts a verified tarball of name@version into the staging
// folder (or the cache, without one). It unpacks into a temporary folder
// and renames it into place, so a concurrent unpacking of the same
// package or a crash leaves no half folder behind a complete mark.
// Install scripts are never run: the tarball's files are only written.
func (f folders) unpack(name, version string, sum integrity, tgz []byte) (string, error) {
	if d, ok := f.lookup(name, version, sum); ok {
		return d, nil
	}
	root := f.staging
	if root == "" {
		root = f.cache
	}
	final := filepath.Join(root, entryName(name, version, sum))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".unpack-")
	if err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	size, err := extract(filepath.Join(tmp, "node_modules", filepath.FromSlash(name)), tgz)
	if err != nil {
		return "", &PackageError{Package: name + "@" + version, Reason: fmt.Sprintf("its tarball does not unpack: %v", err)}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMark), []byte(strconv.FormatInt(size, 10)), 0o644); err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	os.RemoveAll(final) // an unfinished earlier attempt
	if err := os.Rename(tmp, final); err != nil {
		if _, done := f.lookup(name, version, sum); done {
			return final, nil // another deploy unpacked it first
		}
		return "", fmt.Errorf("package cache: %w", err)
	}
	return final, nil
}

// Cache is the server's side of the package cache: it hands each deploy
// a staging folder, and moves what an accepted deploy unpacked into the
// cache, within MaxBytes. One Cache serves one folder; its methods are
// not safe for concurrent use (the caller serializes them).
type Cache struct {
	Dir      string
	MaxBytes int64 // unpacked bytes of all packages together; <= 0 is DefaultCacheBytes
}

// DefaultCacheBytes bounds the cache when Cache.MaxBytes is not set.
const DefaultCacheBytes = 2 << 30

// stagingRoot holds the deploys' staging folders; its name cannot be a
// package's (entryName starts with a letter, a digit or @).
const stagingRoot = ".staging"

// Stage makes a staging folder for one deploy.
func (c Cache) Stage() (string, error) {
	root := filepath.Join(c.Dir, stagingRoot)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	d, err := os.MkdirTemp(root, "deploy-")
	if err != nil {
		return "", fmt.Errorf("package cache: %w", err)
	}
	return d, nil
}

// Discard removes a staging folder and whatever is left in it.
func (c Cache) Discard(staging string) { _ = os.RemoveAll(staging) }

// Reset removes every staging folder, which a server that stopped
// mid-deploy left; call it before any deploy starts.
func (c Cache) Reset() error { return os.RemoveAll(filepath.Join(c.Dir, stagingRoot)) }

// Commit moves the packages unpacked in staging into the cache, and
// removes staging. A package that does not fit under MaxBytes is
// dropped, unless evict allows removing the least recently used packages
// to make room: the caller allows it only while no deploy reads the
// cache. It returns the bytes the cache then holds.
func (c Cache) Commit(staging string, evict bool) (int64, error) {
	defer c.Discard(staging)
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultCacheBytes
	}
	cached, err := c.entries()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range cached {
		total += e.size
	}
	staged, err := readEntries(staging)
	if err != nil {
		return total, err
	}
	for _, s := range staged {
		if _, err := os.Stat(filepath.Join(c.Dir, s.name)); err == nil || s.size > limit {
			continue // another deploy committed it meanwhile, or it can never fit
		}
		for evict && total+s.size > limit && len(cached) > 0 {
			oldest := cached[0]
			cached = cached[1:]
			if err := c.remove(oldest.name); err != nil {
				return total, err
			}
			total -= oldest.size
		}
		if total+s.size > limit {
			continue
		}
		if err := os.Rename(filepath.Join(staging, s.name), filepath.Join(c.Dir, s.name)); err != nil {
			return total, fmt.Errorf("package cache: %w", err)
		}
		total += s.size
	}
	return total, nil
}

// remove takes a package out of the cache: renamed first, so that no
// deploy finds it half removed.
func (c Cache) remove(name string) error {
	gone := filepath.Join(c.Dir, stagingRoot, "evicted-"+name)
	if err := os.MkdirAll(filepath.Dir(gone), 0o755); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	if err := os.Rename(filepath.Join(c.Dir, name), gone); err != nil {
		return fmt.Errorf("package cache: %w", err)
	}
	return os.RemoveAll(gone)
}

// cacheEntry is one unpacked package in a folder.
type cacheEntry struct {
	name    string
	size    int64
	lastUse time.Time
}

// entries lists the cache's packages, least recently used first.
func (c Cache) entries() ([]cacheEntry, error) {
	out, err := readEntries(c.Dir)
	sort.Slice(out, func(i, j int) bool { return out[i].lastUse.Before(out[j].lastUse) })
	return out, err
}

// readEntries lists the complete packages in dir; folders of unfinished
// unpackings and staging are skipped.
func readEntries(dir string) ([]cacheEntry, error) {
	items, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("package cache: %w", err)
	}
	var out []cacheEntry
	for _, it := range items {
		if !it.IsDir() || strings.HasPrefix(it.Name(), ".") {
			continue
		}
		mark := filepath.Join(dir, it.Name(), completeMark)
		info, err := os.Stat(mark)
		if err != nil {
			continue
		}
		raw, _ := os.ReadFile(mark)
		size, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil || size < 0 {
			size = maxUnpackedBytes // a mark of an older layout: count it as the largest
		}
		out = append(out, cacheEntry{name: it.Name(), size: size, lastUse: info.ModTime()})
	}
	return out, nil
}

// extract writes the regular files of a gzipped npm tarball under root,
// dropping the tarball's top folder (usually "package/"). Links, devices
// and paths that would leave root are refused or skipped.
func extract(root string, tgz []byte) (int64, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return 0, err
	}
	tr := tar.NewReader(zr)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return 0, err
		}
		if n >= maxTarEntries {
			return 0, fmt.Errorf("more than %d entries", maxTarEntries)
		}
		if h.Typeflag != tar.TypeReg { // Go reads the old "\x00" type as TypeReg too
			continue // folders come with their files; links and devices are never written
		}
		rel, err := tarPath(h.Name)
		if err != nil {
			return 0, err
		}
		if rel == "" {
			continue
		}
		total += h.Size
		if h.Size < 0 || total > maxUnpackedBytes {
			return 0, fmt.Errorf("more than %d MiB unpacked", maxUnpackedBytes>>20)
		}
		if err := writeFile(filepath.Join(root, filepath.FromSlash(rel)), tr, h.Size); err != nil {
			return 0, err
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
