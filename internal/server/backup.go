package server

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fount-dev/fount/internal/store"
)

// A backup is a tar archive: a manifest saying what it holds, the store
// file (a consistent copy, taken online in one read transaction), and
// the secret key that seals secret props and connected accounts, without
// which those are unreadable after a restore.
const (
	backupManifest = "MANIFEST.json"
	backupStore    = "fount.db"
	backupKey      = "secret.key"
)

// BackupWarning is said wherever a backup with the key is made or read.
const BackupWarning = "this backup holds secret.key: whoever has the file can read every secret prop and connected account of the server; keep it as you keep the key"

// Manifest says what a backup holds and what made it.
type Manifest struct {
	Format   int      `json:"format"` // 1
	Created  string   `json:"created"`
	Version  string   `json:"version"`
	Contains []string `json:"contains"`
	Warning  string   `json:"warning,omitempty"`
}

// writeBackup writes a backup of st, with the key file at keyFile, to w;
// its manifest names the fount version that made it.
func writeBackup(ctx context.Context, w io.Writer, st store.Backuper, keyFile, version string, now time.Time) error {
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("backup: read the secret key: %w", err)
	}
	m := Manifest{Format: 1, Created: now.UTC().Format(time.RFC3339), Version: version,
		Contains: []string{backupStore, backupKey}, Warning: BackupWarning}
	raw, _ := json.MarshalIndent(m, "", "  ")
	tw := tar.NewWriter(w)
	header := func(name string, size int64) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: now}); err != nil {
			return fmt.Errorf("backup: %s: %w", name, err)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		body []byte
	}{{backupManifest, raw}, {backupKey, key}} {
		if err := header(f.name, int64(len(f.body))); err != nil {
			return err
		}
		if _, err := tw.Write(f.body); err != nil {
			return fmt.Errorf("backup: %s: %w", f.name, err)
		}
	}
	// The store's size and its copy come from one read transaction: a
	// size read before the copy would be short once a write grew the
	// file meanwhile.
	err = st.Backup(ctx, func(size int64) (io.Writer, error) { return tw, header(backupStore, size) })
	if err != nil {
		return fmt.Errorf("backup: %s: %w", backupStore, err)
	}
	return tw.Close()
}

// Restore unpacks a backup into dataDir, which must be empty or
// absent, and checks that the store it holds opens and holds a server
// (its owner). A backup that fails leaves dataDir as it found it.
func Restore(r io.Reader, dataDir string) (m Manifest, err error) {
	if entries, err := os.ReadDir(dataDir); err == nil && len(entries) > 0 {
		return Manifest{}, fmt.Errorf("the data dir %s is not empty: restore into a new one", dataDir)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return Manifest{}, err
	}
	var written []string
	defer func() {
		if err != nil {
			for _, f := range written {
				os.Remove(f)
			}
		}
	}()
	seen := map[string]bool{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, fmt.Errorf("the backup does not read as a fount backup: %w", err)
		}
		if seen[h.Name] {
			return m, fmt.Errorf("the backup holds %q twice", h.Name)
		}
		if h.Typeflag != tar.TypeReg { // a link would restore as an empty file
			return m, fmt.Errorf("the backup's %q is not a regular file (tar type %q)", h.Name, h.Typeflag)
		}
		switch h.Name {
		case backupManifest:
			if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err != nil || m.Format != 1 {
				return m, fmt.Errorf("the backup's manifest does not read (format 1 expected): %v", err)
			}
		case backupStore, backupKey:
			path := filepath.Join(dataDir, h.Name)
			if err := writeRestored(path, tr, h.Size); err != nil {
				return m, fmt.Errorf("the backup's %s: %w", h.Name, err)
			}
			written = append(written, path)
		default:
			return m, fmt.Errorf("the backup holds %q, which no fount backup holds", h.Name)
		}
		seen[h.Name] = true
	}
	for _, want := range []string{backupManifest, backupStore} {
		if !seen[want] {
			return m, fmt.Errorf("the backup has no %s", want)
		}
	}
	st, err := store.OpenBolt(filepath.Join(dataDir, backupStore))
	if err != nil {
		return m, fmt.Errorf("the restored store does not open: %w", err)
	}
	users, err := st.CountUsers(context.Background())
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return m, fmt.Errorf("the restored store does not read: %w", err)
	case users == 0:
		return m, errors.New("the restored store is empty: it holds no users, not even the owner, so it is no server's backup")
	}
	return m, nil
}

// writeRestored writes a file of size bytes from r, which must hold them.
func writeRestored(path string, r io.Reader, size int64) error {
	if size <= 0 {
		return errors.New("it is empty")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("it holds %d bytes of the %d its header says", n, size)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
