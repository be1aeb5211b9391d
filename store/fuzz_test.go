package store

import (
	"errors"
	"testing"
)

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
		ms2, seq2, err := ParseEventID(eventID(ms, seq))
		if err != nil || ms2 != ms || seq2 != seq {
			t.Fatalf("round trip of %q: %d-%d, %v", id, ms2, seq2, err)
		}
	})
}

func FuzzDecodeCursor(f *testing.F) {
	tag := sourceIndex.tag("u_a")
	f.Add(encodeCursor(tag, 1))
	f.Add(encodeCursor(sourceIndex.tag("u_b"), 1))
	f.Add("")
	f.Add("!!!!")
	f.Fuzz(func(t *testing.T, cursor string) {
		seq, err := decodeCursor(tag, cursor)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("error %v does not wrap ErrBadCursor", err)
			}
			return
		}
		if encodeCursor(tag, seq) != cursor {
			t.Fatalf("cursor %q decodes to %d, which encodes differently", cursor, seq)
		}
	})
}
