package kv

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
)

// Page and PageOf are the model's (a reader names them without the
// store).
type (
	Page          = model.Page
	PageOf[T any] = model.PageOf[T]
)

// DefaultPageLimit is the page size when Page.Limit <= 0.
const DefaultPageLimit = 10

// List keeps the ids of one kind of record in creation order per
// owner. Name names the list in cursors (and is JetStream's record of
// it); in bbolt, Order maps Key(owner)+seq to the id and Pos maps the id
// back to its order key, so that removal needs no scan.
type List struct {
	Name       string
	Order, Pos []byte
}

// Tag identifies owner's list inside its cursors.
func (ix List) Tag(owner string) [4]byte {
	sum := sha256.Sum256(Key(ix.Name, owner))
	return [4]byte(sum[:4])
}

// EncodeCursor is base64url(tag + 8-byte big-endian seq).
func EncodeCursor(tag [4]byte, seq uint64) string {
	return base64.RawURLEncoding.EncodeToString(append(tag[:], BE8(seq)...))
}

// DecodeCursor returns the seq of a cursor made by EncodeCursor with tag.
func DecodeCursor(tag [4]byte, cursor string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != 12 {
		return 0, fmt.Errorf("%w: %q does not decode", ErrBadCursor, cursor)
	}
	if !bytes.Equal(b[:4], tag[:]) {
		return 0, fmt.Errorf("%w: %q belongs to another list", ErrBadCursor, cursor)
	}
	return binary.BigEndian.Uint64(b[4:]), nil
}

// PageOfSeqs decodes the records of a page whose sequences are seqs,
// nearest the cursor first, read by read, up to p.MaxBytes of them
// (keeping at least one), and gives each the cursor of its sequence in
// the list tag names. The page is in the list's order: seqs' order, or
// its reverse for a page before a cursor.
func PageOfSeqs[T any](seqs []uint64, total int, p Page, tag [4]byte, read func(seq uint64) ([]byte, error)) (PageOf[T], error) {
	pg := PageOf[T]{Items: make([]T, 0, len(seqs)), Cursors: make([]string, 0, len(seqs)), TotalCount: total}
	size := 0
	for _, seq := range seqs {
		data, err := read(seq)
		if err != nil {
			return PageOf[T]{}, err
		}
		if size += len(data); p.MaxBytes > 0 && len(pg.Items) > 0 && size > p.MaxBytes {
			break
		}
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return PageOf[T]{}, fmt.Errorf("decode record %d: %w", seq, err)
		}
		pg.Items = append(pg.Items, v)
		pg.Cursors = append(pg.Cursors, EncodeCursor(tag, seq))
	}
	if p.Before != "" {
		slices.Reverse(pg.Items)
		slices.Reverse(pg.Cursors)
	}
	if len(pg.Cursors) > 0 {
		pg.StartCursor, pg.EndCursor = pg.Cursors[0], pg.Cursors[len(pg.Cursors)-1]
	}
	return pg, nil
}
