package store

import (
	"errors"
	"testing"
)

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
