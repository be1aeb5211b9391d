package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
)

// defaultPageLimit is the page size when Page.Limit <= 0.
const defaultPageLimit = 10

// List keeps the ids of one kind of record in creation order per
// owner: order maps key(owner)+seq to the id, pos maps the id back to
// its order key so removal needs no scan. list names the list in cursors.
type List struct {
	Name       string
	Order, Pos []byte
}

var (
	orgIndex     = List{Name: "orgs", Order: bucketOrgOrder, Pos: bucketOrgPos}
	sourceIndex  = List{Name: "sources", Order: bucketSourceOrder, Pos: bucketSourcePos}
	subIndex     = List{Name: "subscriptions", Order: bucketSubOrder, Pos: bucketSubPos}
	autoIndex    = List{Name: "auto_subscriptions", Order: bucketAutoOrder, Pos: bucketAutoPos}
	webhookIndex = List{Name: "webhooks", Order: bucketWebhookOrder, Pos: bucketWebhookPos}
	accountIndex = List{Name: "accounts", Order: bucketAccountOrder, Pos: bucketAccountPos}
	// orgMemberIndex lists the orgs each user belongs to, in the orgs'
	// creation order: in bbolt, key(user)+org seq -> org id, written by
	// AddOrgMember and CreateOrg, not by add.
	orgMemberIndex = List{Name: "org_members", Order: bucketOrgMembers}
	// componentIndex counts components per owner (for Limits); nothing
	// lists them yet.
	componentIndex = List{Name: "components", Order: bucketComponentOrder, Pos: bucketComponentPos}
)

// tag identifies owner's list inside its cursors.
func (ix List) tag(owner string) [4]byte {
	sum := sha256.Sum256(key(ix.Name, owner))
	return [4]byte(sum[:4])
}

// encodeCursor is base64url(tag + 8-byte big-endian seq).
func encodeCursor(tag [4]byte, seq uint64) string {
	return base64.RawURLEncoding.EncodeToString(append(tag[:], be8(seq)...))
}

// decodeCursor returns the seq of a cursor made by encodeCursor with tag.
func decodeCursor(tag [4]byte, cursor string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != 12 {
		return 0, fmt.Errorf("%w: %q does not decode", ErrBadCursor, cursor)
	}
	if !bytes.Equal(b[:4], tag[:]) {
		return 0, fmt.Errorf("%w: %q belongs to another list", ErrBadCursor, cursor)
	}
	return binary.BigEndian.Uint64(b[4:]), nil
}

// pageOf decodes the records of a page of ids, read by get. With
// p.MaxBytes it stops before the records' stored size passes it (keeping
// at least one): from the first id, or for a page before a cursor from the
// last, so that the page keeps the records nearest the cursor and paging
// on from its end (or start) misses none.
func pageOf[T any](get func(id string) ([]byte, error), p Page, ids, cursors []string, total int) (PageOf[T], error) {
	records := make([][]byte, len(ids))
	n := len(ids)
	if p.MaxBytes > 0 {
		n = 0
		for size := 0; n < len(ids); n++ {
			i := n
			if p.Before != "" {
				i = len(ids) - 1 - n
			}
			data, err := get(ids[i])
			if err != nil {
				return PageOf[T]{}, err
			}
			records[i] = data
			size += len(data)
			if n > 0 && size > p.MaxBytes {
				break
			}
		}
	}
	first := 0
	if p.Before != "" {
		first = len(ids) - n
	}
	ids, cursors, records = ids[first:first+n], cursors[first:first+n], records[first:first+n]
	pg := PageOf[T]{Items: make([]T, len(ids)), Cursors: cursors, TotalCount: total}
	for i, id := range ids {
		data := records[i]
		if data == nil {
			var err error
			if data, err = get(id); err != nil {
				return PageOf[T]{}, err
			}
		}
		if err := json.Unmarshal(data, &pg.Items[i]); err != nil {
			return PageOf[T]{}, fmt.Errorf("decode record %q: %w", id, err)
		}
	}
	if len(cursors) > 0 {
		pg.StartCursor = cursors[0]
		pg.EndCursor = cursors[len(cursors)-1]
	}
	return pg, nil
}

// pageOfSeqs decodes the records of a page whose sequences are seqs,
// nearest the cursor first, read by read, up to p.MaxBytes of them
// (keeping at least one), and gives each the cursor of its sequence in
// the list tag names. The page is in the list's order: seqs' order, or
// its reverse for a page before a cursor.
func pageOfSeqs[T any](seqs []uint64, total int, p Page, tag [4]byte, read func(seq uint64) ([]byte, error)) (PageOf[T], error) {
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
		pg.Cursors = append(pg.Cursors, encodeCursor(tag, seq))
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
