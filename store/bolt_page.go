package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// add appends id to owner's list and returns its sequence number.
func (ix List) add(tx *bolt.Tx, owner, id string) (uint64, error) {
	order := tx.Bucket(ix.Order)
	seq, err := order.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	k := append(key(owner), be8(seq)...)
	if err := order.Put(k, []byte(id)); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	if err := tx.Bucket(ix.Pos).Put([]byte(id), k); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	return seq, nil
}

// seq returns the sequence number id got from add, or false.
func (ix List) seq(tx *bolt.Tx, id string) (uint64, bool) {
	k := tx.Bucket(ix.Pos).Get([]byte(id))
	if len(k) < 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(k)-8:]), true
}

// remove takes id out of its list; a missing id is not an error.
func (ix List) remove(tx *bolt.Tx, id string) error {
	pos := tx.Bucket(ix.Pos)
	k := clone(pos.Get([]byte(id)))
	if k == nil {
		return nil
	}
	if err := tx.Bucket(ix.Order).Delete(k); err != nil {
		return fmt.Errorf("unindex %s: %w", ix.Name, err)
	}
	if err := pos.Delete([]byte(id)); err != nil {
		return fmt.Errorf("unindex %s: %w", ix.Name, err)
	}
	return nil
}

// ids returns all of owner's ids in creation order.
func (ix List) ids(tx *bolt.Tx, owner string) []string {
	_, values := scanPrefix(tx.Bucket(ix.Order), key(owner))
	ids := make([]string, len(values))
	for i, v := range values {
		ids[i] = string(v)
	}
	return ids
}

// page returns the ids and cursors of one page of owner's list, and the
// list's total count. See Page for the rules.
func (ix List) page(tx *bolt.Tx, owner string, p Page) (ids, cursors []string, total int, err error) {
	if p.After != "" && p.Before != "" {
		return nil, nil, 0, fmt.Errorf("%w: after and before are mutually exclusive", ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = defaultPageLimit
	}
	prefix := key(owner)
	tag := ix.tag(owner)
	c := tx.Bucket(ix.Order).Cursor()
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
func (ix List) count(tx *bolt.Tx, owner string) int {
	return countPrefix(tx.Bucket(ix.Order), key(owner))
}

// countPrefix counts the keys of bk that start with prefix.
func countPrefix(bk *bolt.Bucket, prefix []byte) int {
	n := 0
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}
