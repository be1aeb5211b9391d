package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// defaultPageLimit is the page size when Page.Limit <= 0.
const defaultPageLimit = 10

// orderIndex keeps the ids of one kind of record in creation order per
// owner: order maps key(owner)+seq to the id, pos maps the id back to
// its order key so removal needs no scan. list names the list in cursors.
type orderIndex struct {
	list       string
	order, pos []byte
}

var (
	orgIndex     = orderIndex{list: "orgs", order: bucketOrgOrder, pos: bucketOrgPos}
	sourceIndex  = orderIndex{list: "sources", order: bucketSourceOrder, pos: bucketSourcePos}
	subIndex     = orderIndex{list: "subscriptions", order: bucketSubOrder, pos: bucketSubPos}
	autoIndex    = orderIndex{list: "auto_subscriptions", order: bucketAutoOrder, pos: bucketAutoPos}
	webhookIndex = orderIndex{list: "webhooks", order: bucketWebhookOrder, pos: bucketWebhookPos}
	accountIndex = orderIndex{list: "accounts", order: bucketAccountOrder, pos: bucketAccountPos}
	// orgMemberIndex lists the orgs each user belongs to, in the orgs'
	// creation order: in bbolt, key(user)+org seq -> org id, written by
	// AddOrgMember and CreateOrg, not by add.
	orgMemberIndex = orderIndex{list: "org_members", order: bucketOrgMembers}
	// componentIndex counts components per owner (for Limits); nothing
	// lists them yet.
	componentIndex = orderIndex{list: "components", order: bucketComponentOrder, pos: bucketComponentPos}
)

// add appends id to owner's list and returns its sequence number.
func (ix orderIndex) add(tx *bolt.Tx, owner, id string) (uint64, error) {
	order := tx.Bucket(ix.order)
	seq, err := order.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.list, err)
	}
	k := append(key(owner), be8(seq)...)
	if err := order.Put(k, []byte(id)); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.list, err)
	}
	if err := tx.Bucket(ix.pos).Put([]byte(id), k); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.list, err)
	}
	return seq, nil
}

// seq returns the sequence number id got from add, or false.
func (ix orderIndex) seq(tx *bolt.Tx, id string) (uint64, bool) {
	k := tx.Bucket(ix.pos).Get([]byte(id))
	if len(k) < 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(k)-8:]), true
}

// remove takes id out of its list; a missing id is not an error.
func (ix orderIndex) remove(tx *bolt.Tx, id string) error {
	pos := tx.Bucket(ix.pos)
	k := clone(pos.Get([]byte(id)))
	if k == nil {
		return nil
	}
	if err := tx.Bucket(ix.order).Delete(k); err != nil {
		return fmt.Errorf("unindex %s: %w", ix.list, err)
	}
	if err := pos.Delete([]byte(id)); err != nil {
		return fmt.Errorf("unindex %s: %w", ix.list, err)
	}
	return nil
}

// ids returns all of owner's ids in creation order.
func (ix orderIndex) ids(tx *bolt.Tx, owner string) []string {
	_, values := scanPrefix(tx.Bucket(ix.order), key(owner))
	ids := make([]string, len(values))
	for i, v := range values {
		ids[i] = string(v)
	}
	return ids
}

// page returns the ids and cursors of one page of owner's list, and the
// list's total count. See Page for the rules.
func (ix orderIndex) page(tx *bolt.Tx, owner string, p Page) (ids, cursors []string, total int, err error) {
	if p.After != "" && p.Before != "" {
		return nil, nil, 0, fmt.Errorf("%w: after and before are mutually exclusive", ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = defaultPageLimit
	}
	prefix := key(owner)
	tag := ix.tag(owner)
	c := tx.Bucket(ix.order).Cursor()
	var keys [][]byte
	var vals [][]byte
	switch {
	case p.Before != "":
		seq, err := decodeCursor(tag, p.Before)
		if err != nil {
			return nil, nil, 0, err
		}
		var k, v []byte
		if k, _ = c.Seek(append(clone(prefix), be8(seq)...)); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, v = c.Prev() {
			keys = append(keys, clone(k))
			vals = append(vals, clone(v))
		}
		for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
			keys[i], keys[j] = keys[j], keys[i]
			vals[i], vals[j] = vals[j], vals[i]
		}
	default:
		start := clone(prefix)
		if p.After != "" {
			seq, err := decodeCursor(tag, p.After)
			if err != nil {
				return nil, nil, 0, err
			}
			if seq == ^uint64(0) {
				break // nothing can come after the last sequence
			}
			start = append(start, be8(seq+1)...)
		}
		for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, v = c.Next() {
			keys = append(keys, clone(k))
			vals = append(vals, clone(v))
		}
	}
	total = ix.count(tx, owner)
	ids = make([]string, len(keys))
	cursors = make([]string, len(keys))
	for i, k := range keys {
		ids[i] = string(vals[i])
		cursors[i] = encodeCursor(tag, binary.BigEndian.Uint64(k[len(k)-8:]))
	}
	return ids, cursors, total, nil
}

// count returns how many ids owner's list holds.
func (ix orderIndex) count(tx *bolt.Tx, owner string) int {
	return countPrefix(tx.Bucket(ix.order), key(owner))
}

// tag identifies owner's list inside its cursors.
func (ix orderIndex) tag(owner string) [4]byte {
	sum := sha256.Sum256(key(ix.list, owner))
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
