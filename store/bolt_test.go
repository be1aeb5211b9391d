package store

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fount-dev/fount/model"
	"github.com/fount-dev/fount/store/internal/kv"
	bolt "go.etcd.io/bbolt"
)

// The tests of this file are bbolt's own: its file, its schema version,
// its Close and its key encoding. A JetStream store has no file.

func TestOpenWritesSchemaVersion(t *testing.T) {
	t.Parallel()
	b := openTestBolt(t)
	var v string
	if err := b.db.View(func(tx *bolt.Tx) error {
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
		{"same version", "5", nil, ""},
		{"older version, upgraded", "1", nil, ""},
		{"version 2, upgraded", "2", nil, ""},
		{"version 3, upgraded", "3", nil, ""},
		{"previous version, upgraded", "4", nil, ""},
		{"newer version", "7", errSchemaTooNew, "upgrade fount"},
		{"much newer", "999", errSchemaTooNew, "version 999"},
		{"garbage", "x", nil, "unreadable schema version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fount.db")
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bolt.Tx) error {
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
			b, err := OpenBolt(path)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("OpenBolt: %v", err)
				}
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				_ = b.Close()
				t.Fatal("OpenBolt succeeded, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %q does not say %q", err, tt.msg)
			}
			// The refused file is closed again: it opens once fixed.
			db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
			if err != nil {
				t.Fatalf("file still locked after refusal: %v", err)
			}
			_ = db.Close()
		})
	}
}

func TestOpenBadPath(t *testing.T) {
	t.Parallel()
	if _, err := OpenBolt(filepath.Join(t.TempDir(), "missing", "dir", "fount.db")); err == nil {
		t.Fatal("OpenBolt in a missing directory succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	t.Parallel()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
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

// TestCanceledContext: a canceled context fails a write and a read, and
// the write stored nothing.
func TestCanceledContext(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		if err := b.CreateUser(c, model.User{ID: "u_1"}, ""); err == nil {
			t.Fatal("CreateUser with a canceled context succeeded")
		}
		if _, err := b.GetUser(c, "u_1"); err == nil {
			t.Fatal("GetUser with a canceled context succeeded")
		}
		if _, err := b.GetUser(ctx, "u_1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the canceled CreateUser stored a user: %v", err)
		}
	})
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
