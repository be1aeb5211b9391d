package emit

import (
	"strings"
	"testing"
)

func TestDecodeDelayed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		due     int64
		event   string
		wantErr string
	}{
		{"a record", `{"v":1,"due_ms":5,"name":"n","summary":"s","event":{"a":1}}`, 5, `{"a":1}`, ""},
		{"the ABI's emit, stored before records", `{"event":[1],"name":"n","delivery_ts":7}`, 7, `[1]`, ""},
		{"an emit without a delivery time", `{"event":1}`, 0, "", "without a version"},
		{"a newer version", `{"v":2,"due_ms":1}`, 0, "", "unknown version 2"},
		{"not JSON", `{`, 0, "", "delayed emit"},
	}
	for _, tt := range tests {
		r, err := DecodeDelayed([]byte(tt.data))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || r.DueMs != tt.due || string(r.Released().Data) != tt.event || r.Released().Name != "n" {
			t.Errorf("%s: %+v, %v", tt.name, r, err)
		}
	}
}
