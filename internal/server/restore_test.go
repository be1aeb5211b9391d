package server

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// TestRestoreRefusesCraftedArchives: an archive whose store is a link,
// is empty, or holds no server is refused, saying why, and leaves the
// data dir as it found it; a store with its owner restores.
func TestRestoreRefusesCraftedArchives(t *testing.T) {
	t.Parallel()
	storeFile := func(withOwner bool) []byte {
		path := filepath.Join(t.TempDir(), "fount.db")
		st, err := store.OpenBolt(path)
		if err != nil {
			t.Fatal(err)
		}
		if withOwner {
			if err := st.CreateUser(context.Background(), model.User{ID: "u_owner", Username: "owner", Owner: true}, "hash"); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type entry struct {
		name     string
		typeflag byte
		body     []byte
		link     string
	}
	manifest := entry{name: backupManifest, typeflag: tar.TypeReg, body: []byte(`{"format":1,"version":"test"}`)}
	archive := func(entries ...entry) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Typeflag: e.typeflag, Mode: 0o600, Size: int64(len(e.body)), Linkname: e.link}
			if e.typeflag != tar.TypeReg {
				h.Size = 0
			}
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write(e.body); err != nil && e.typeflag == tar.TypeReg {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	tests := []struct {
		name    string
		archive []byte
		wantErr string // "" for a restore that works
	}{
		{"the store is a symbolic link", archive(manifest, entry{name: backupStore, typeflag: tar.TypeSymlink, link: "/etc/passwd"}), "not a regular file"},
		{"the store is a hard link", archive(manifest, entry{name: backupStore, typeflag: tar.TypeLink, link: backupManifest}), "not a regular file"},
		{"the store is empty", archive(manifest, entry{name: backupStore, typeflag: tar.TypeReg}), "empty"},
		{"the store holds no server", archive(manifest, entry{name: backupStore, typeflag: tar.TypeReg, body: storeFile(false)}), "holds no users"},
		{"the store twice", archive(manifest, entry{name: backupStore, typeflag: tar.TypeReg, body: storeFile(true)},
			entry{name: backupStore, typeflag: tar.TypeReg, body: storeFile(true)}), "twice"},
		{"a server's store", archive(manifest, entry{name: backupStore, typeflag: tar.TypeReg, body: storeFile(true)}), ""},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), "restored")
		_, err := Restore(bytes.NewReader(tt.archive), dir)
		left, _ := os.ReadDir(dir)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.wantErr)
		case tt.wantErr != "" && len(left) != 0:
			t.Errorf("%s: the failed restore left %v in the data dir", tt.name, left)
		}
	}
}
