package store

import (
	"errors"
	"testing"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

func FuzzDecodeCursor(f *testing.F) {
	tag := kv.SourceList.Tag("u_a")
	f.Add(kv.EncodeCursor(tag, 1))
	f.Add(kv.EncodeCursor(kv.SourceList.Tag("u_b"), 1))
	f.Add("")
	f.Add("!!!!")
	f.Fuzz(func(t *testing.T, cursor string) {
		seq, err := kv.DecodeCursor(tag, cursor)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("error %v does not wrap ErrBadCursor", err)
			}
			return
		}
		if kv.EncodeCursor(tag, seq) != cursor {
			t.Fatalf("cursor %q decodes to %d, which encodes differently", cursor, seq)
		}
	})
}
