package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestDB(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b dbAPI) {
		sets := []struct{ source, key, value string }{
			{"dc_1", "a", `1`},
			{"dc_1", "b", `{"x":[1,2]}`},
			{"dc_1", "a", `2`}, // overwrite
			{"dc_2", "a", `"other"`},
			{"dc_1", "empty", ``},
		}
		for _, s := range sets {
			wantErr(t, "DBSet", b.DBSet(ctx, s.source, s.key, []byte(s.value)), nil)
		}
		tests := []struct {
			source, key string
			want        string
			found       bool
		}{
			{"dc_1", "a", `2`, true},
			{"dc_1", "b", `{"x":[1,2]}`, true},
			{"dc_2", "a", `"other"`, true},
			{"dc_1", "empty", ``, true},
			{"dc_1", "c", "", false},
			{"dc_1", "", "", false},
			{"dc_1", "aa", "", false},
			{"dc_zz", "a", "", false},
			{"", "a", "", false},
		}
		for _, tt := range tests {
			v, found, err := b.DBGet(ctx, tt.source, tt.key)
			wantErr(t, "DBGet", err, nil)
			if found != tt.found || string(v) != tt.want || (!found && v != nil) {
				t.Errorf("DBGet(%s, %q) = %q, %v; want %q, %v", tt.source, tt.key, v, found, tt.want, tt.found)
			}
		}
		if err := b.DBSet(ctx, "dc_1", "", []byte(`1`)); err == nil {
			t.Error("DBSet with an empty key succeeded")
		}
		if err := b.DBSet(ctx, "", "a", []byte(`1`)); err == nil {
			t.Error("DBSet with an empty source succeeded")
		}
		// The returned value is a copy the caller may change.
		v, _, _ := b.DBGet(ctx, "dc_1", "b")
		v[0] = 'X'
		if again, _, _ := b.DBGet(ctx, "dc_1", "b"); string(again) != `{"x":[1,2]}` {
			t.Errorf("changing a returned value changed the store: %q", again)
		}
	})
}

// TestDBClearOnEveryBackend: a clear removes one source's db and no
// other's.
func TestDBClearOnEveryBackend(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b dbAPI) {
		for _, src := range []string{"dc_1", "dc_2"} {
			for _, k := range []string{"a", "b"} {
				wantErr(t, "DBSet", b.DBSet(ctx, src, k, []byte(`1`)), nil)
			}
		}
		wantErr(t, "DBClear", b.DBClear(ctx, "dc_1"), nil)
		wantErr(t, "DBClear of a source without a db", b.DBClear(ctx, "dc_none"), nil)
		for _, k := range []string{"a", "b"} {
			if _, found, err := b.DBGet(ctx, "dc_1", k); err != nil || found {
				t.Errorf("dc_1's %s after a clear: %v %v", k, found, err)
			}
			if _, found, err := b.DBGet(ctx, "dc_2", k); err != nil || !found {
				t.Errorf("dc_2's %s after dc_1's clear: %v %v", k, found, err)
			}
		}
	})
}

// TestLargeRecords: the largest values the sandbox lets through (a db
// value of 1 MiB, an event of 4 MiB) are stored on either backend.
func TestLargeRecords(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		big := []byte(`"` + strings.Repeat("x", 1<<20-2) + `"`)
		wantErr(t, "DBSet", b.DBSet(ctx, "dc_1", "k", big), nil)
		if v, ok, err := b.DBGet(ctx, "dc_1", "k"); err != nil || !ok || len(v) != len(big) {
			t.Errorf("DBGet: %d bytes, %v %v", len(v), ok, err)
		}
		huge := json.RawMessage(`"` + strings.Repeat("y", 4<<20-2) + `"`)
		inv := mustEnqueue(t, b, "dc_1")
		if _, err := b.CompleteRun(ctx, inv, RunCommit{Events: []model.Event{{Data: huge}}}); err != nil {
			t.Fatalf("CompleteRun with an event of 4 MiB: %v", err)
		}
		if evs := must(b.ListEvents(ctx, "dc_1", "", 1)); len(evs) != 1 || len(evs[0].Data) != len(huge) {
			t.Errorf("the event of 4 MiB reads back as %d events", len(evs))
		}
	})
}
