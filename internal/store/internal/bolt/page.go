package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// boltList is a list as bbolt keeps it: ids under key(owner)+seq in its
// Order bucket, each id's order key in its Pos bucket.
type boltList struct{ kv.List }

// add appends id to owner's list and returns its sequence number.
func (ix boltList) add(tx *bbolt.Tx, owner, id string) (uint64, error) {
	order := tx.Bucket(ix.Order)
	seq, err := order.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	k := append(kv.Key(owner), kv.BE8(seq)...)
	if err := order.Put(k, []byte(id)); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	if err := tx.Bucket(ix.Pos).Put([]byte(id), k); err != nil {
		return 0, fmt.Errorf("index %s: %w", ix.Name, err)
	}
	return seq, nil
}

// seq returns the sequence number id got from add, or false.
func (ix boltList) seq(tx *bbolt.Tx, id string) (uint64, bool) {
	k := tx.Bucket(ix.Pos).Get([]byte(id))
	if len(k) < 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(k)-8:]), true
}

// remove takes id out of its list; a missing id is not an error.
func (ix boltList) remove(tx *bbolt.Tx, id string) error {
	pos := tx.Bucket(ix.Pos)
	k := kv.Clone(pos.Get([]byte(id)))
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
func (ix boltList) ids(tx *bbolt.Tx, owner string) []string {
	_, values := scanPrefix(tx.Bucket(ix.Order), kv.Key(owner))
	ids := make([]string, len(values))
	for i, v := range values {
		ids[i] = string(v)
	}
	return ids
}

// page returns the ids and cursors of one page of owner's list, and the
// list's total count. See kv.Page for the rules.
func (ix boltList) page(tx *bbolt.Tx, owner string, p kv.Page) (ids, cursors []string, total int, err error) {
	if p.After != "" && p.Before != "" {
		return nil, nil, 0, fmt.Errorf("%w: after and before are mutually exclusive", kv.ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = kv.DefaultPageLimit
	}
	prefix := kv.Key(owner)
	tag := ix.Tag(owner)
	c := tx.Bucket(ix.Order).Cursor()
	var keys [][]byte
	var vals [][]byte
	switch {
	case p.Before != "":
		seq, err := kv.DecodeCursor(tag, p.Before)
		if err != nil {
			return nil, nil, 0, err
		}
		var k, v []byte
		if k, _ = c.Seek(append(kv.Clone(prefix), kv.BE8(seq)...)); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, v = c.Prev() {
			keys = append(keys, kv.Clone(k))
			vals = append(vals, kv.Clone(v))
		}
		for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
			keys[i], keys[j] = keys[j], keys[i]
			vals[i], vals[j] = vals[j], vals[i]
		}
	default:
		start := kv.Clone(prefix)
		if p.After != "" {
			seq, err := kv.DecodeCursor(tag, p.After)
			if err != nil {
				return nil, nil, 0, err
			}
			if seq == ^uint64(0) {
				break // nothing can come after the last sequence
			}
			start = append(start, kv.BE8(seq+1)...)
		}
		for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, v = c.Next() {
			keys = append(keys, kv.Clone(k))
			vals = append(vals, kv.Clone(v))
		}
	}
	total = ix.count(tx, owner)
	ids = make([]string, len(keys))
	cursors = make([]string, len(keys))
	for i, k := range keys {
		ids[i] = string(vals[i])
		cursors[i] = kv.EncodeCursor(tag, binary.BigEndian.Uint64(k[len(k)-8:]))
	}
	return ids, cursors, total, nil
}

// count returns how many ids owner's list holds.
func (ix boltList) count(tx *bbolt.Tx, owner string) int {
	return countPrefix(tx.Bucket(ix.Order), kv.Key(owner))
}

// countPrefix counts the keys of bk that start with prefix.
func countPrefix(bk *bbolt.Bucket, prefix []byte) int {
	n := 0
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}
