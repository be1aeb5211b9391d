package store

import (
	"testing"
)

func TestDB(t *testing.T) {
	t.Parallel()
	b := openTestBolt(t)
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
}
