package bolt

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// The tests of this file are bbolt's own: its file, its schema version,
// its Close and its key encoding. A JetStream store has no file.

func TestOpenWritesSchemaVersion(t *testing.T) {
	t.Parallel()
	b := openTest(t)
	var v string
	if err := Inspect(b).File().View(func(tx *bbolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get(keySchemaVersion))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if v != strconv.Itoa(schemaVersion) {
		t.Fatalf("schema_version = %q, want %d", v, schemaVersion)
	}
}

func TestOpenRefusesSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		version string
		wantErr error  // nil: opens
		msg     string // substring of the error
	}{
		{"version 5, upgraded", "5", nil, ""},
		{"older version, upgraded", "1", nil, ""},
		{"version 2, upgraded", "2", nil, ""},
		{"version 3, upgraded", "3", nil, ""},
		{"version 4, upgraded", "4", nil, ""},
		{"version 6, upgraded", "6", nil, ""},
		{"previous version, upgraded", "7", nil, ""},
		{"same version", "8", nil, ""},
		{"newer version", "9", errSchemaTooNew, "upgrade fount"},
		{"much newer", "999", errSchemaTooNew, "version 999"},
		{"garbage", "x", nil, "unreadable schema version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fount.db")
			db, err := bbolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bbolt.Tx) error {
				meta, err := tx.CreateBucket(bucketMeta)
				if err != nil {
					return err
				}
				return meta.Put(keySchemaVersion, []byte(tt.version))
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := Open(path, time.Now, nil)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				_ = b.Close()
				t.Fatal("Open succeeded, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %q does not say %q", err, tt.msg)
			}
			// The refused file is closed again: it opens once fixed.
			db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout})
			if err != nil {
				t.Fatalf("file still locked after refusal: %v", err)
			}
			_ = db.Close()
		})
	}
}

func TestOpenBadPath(t *testing.T) {
	t.Parallel()
	if _, err := Open(filepath.Join(t.TempDir(), "missing", "dir", "fount.db"), time.Now, nil); err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	t.Parallel()
	b, err := Open(filepath.Join(t.TempDir(), "fount.db"), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestKeyIsPrefixFree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b []string
		want bool // key(a...) is a prefix of key(b...)
	}{
		{[]string{"u_1"}, []string{"u_1", "x"}, true},
		{[]string{"u_1"}, []string{"u_10"}, false},
		{[]string{"u_1"}, []string{"u_10", "x"}, false},
		{[]string{"a", "b"}, []string{"ab"}, false},
		{[]string{""}, []string{"", "x"}, true},
		{[]string{""}, []string{"a"}, false},
	}
	for _, tt := range tests {
		got := strings.HasPrefix(string(kv.Key(tt.b...)), string(kv.Key(tt.a...)))
		if got != tt.want {
			t.Errorf("key(%q) prefix of key(%q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if s, err := lastPart(kv.Key("sub_1")); err != nil || s != "sub_1" {
		t.Errorf("lastPart = %q, %v", s, err)
	}
	if _, err := lastPart([]byte{5, 'a'}); err == nil {
		t.Error("lastPart of a short key succeeded")
	}
}
