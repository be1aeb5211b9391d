package model

import (
	"errors"
	"testing"
)

// TestParseEventID: ids split into their numbers, and what splits formats
// back to the same id; anything else is ErrBadEventID.
func TestParseEventID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id      string
		ms, seq uint64
		ok      bool
	}{
		{"1700000000000-0", 1700000000000, 0, true},
		{"1-2", 1, 2, true},
		{"0-0", 0, 0, true},
		{"18446744073709551615-18446744073709551615", 1<<64 - 1, 1<<64 - 1, true},
		{"", 0, 0, false},
		{"1", 0, 0, false},
		{"1-", 0, 0, false},
		{"-1", 0, 0, false},
		{"1-2-3", 0, 0, false},
		{"a-1", 0, 0, false},
		{"+1-2", 0, 0, false},
		{"1--2", 0, 0, false},
		{" 1-2", 0, 0, false},
		{"18446744073709551616-0", 0, 0, false},
	}
	for _, tt := range tests {
		ms, seq, err := ParseEventID(tt.id)
		if tt.ok != (err == nil) || ms != tt.ms || seq != tt.seq {
			t.Errorf("ParseEventID(%q) = %d, %d, %v", tt.id, ms, seq, err)
		}
		if !tt.ok && !errors.Is(err, ErrBadEventID) {
			t.Errorf("ParseEventID(%q) error %v does not wrap ErrBadEventID", tt.id, err)
		}
		if tt.ok && FormatEventID(ms, seq) != tt.id {
			t.Errorf("FormatEventID(ParseEventID(%q)) = %q", tt.id, FormatEventID(ms, seq))
		}
	}
}

// FuzzParseEventID: any string either parses, and formats back to what
// parses the same, or is refused with ErrBadEventID.
func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"1700000000000-0", "1-2", "", "-", "1-", "a-b", "1-2-3", "99999999999999999999-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ms, seq, err := ParseEventID(id)
		if err != nil {
			if !errors.Is(err, ErrBadEventID) {
				t.Fatalf("error %v does not wrap ErrBadEventID", err)
			}
			return
		}
		// What parses round-trips to the same numbers.
		ms2, seq2, err := ParseEventID(FormatEventID(ms, seq))
		if err != nil || ms2 != ms || seq2 != seq {
			t.Fatalf("round trip of %q: %d-%d, %v", id, ms2, seq2, err)
		}
	})
}
