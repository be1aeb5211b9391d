package jetstream

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Tables: the second token of a key (JetStream.key). docs/nats.md lists
// what each holds.
const (
	tblLists  = "list"  // list name, owner → jsList
	tblDB     = "db"    // source id, key → JSON text
	tblTimers = "timer" // source id → last fire, epoch ms
)

var tblDedupe = kv.Dedupe.Subject // source id → DedupeState

// getJSON decodes the record of subject into v, or returns kv.ErrNotFound.
func (tx *jsTx) getJSON(subject string, v any) error {
	data, ok, err := tx.get(subject)
	if err != nil {
		return err
	}
	if !ok {
		return kv.ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode record %s: %w", subject, err)
	}
	return nil
}

// has reports whether subject holds a record.
func (tx *jsTx) has(subject string) (bool, error) {
	_, ok, err := tx.get(subject)
	return ok, err
}

// putJSON writes v, encoded, to subject at commit.
func (tx *jsTx) putJSON(subject string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", subject, err)
	}
	tx.put(subject, data)
	return nil
}

// jsList is an ordered list of ids, one key per owner and list: what
// a kv.List is in bbolt. A create or delete rewrites it with the revision
// read, so counts (for Limits) are exact and two creates cannot both pass
// a limit. Its size bounds how many records of a kind one owner may hold
// (about 20,000 ids in the 1 MiB of one message); docs/nats.md says so.
type jsList struct {
	Next  uint64       `json:"next"` // the seq the next id gets
	Items []jsListItem `json:"items"`
}

type jsListItem struct {
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
}

func (s *Engine) listKey(ix kv.List, owner string) string {
	return s.key(tblLists, ix.Name, owner)
}

// list reads owner's list of ix (empty when none).
func (tx *jsTx) list(ix kv.List, owner string) (jsList, error) {
	var l jsList
	err := tx.getJSON(tx.s.listKey(ix, owner), &l)
	if err != nil && err != kv.ErrNotFound {
		return jsList{}, err
	}
	if l.Next == 0 {
		l.Next = 1
	}
	return l, nil
}

// listAdd appends id to owner's list of ix and returns its seq.
func (tx *jsTx) listAdd(ix kv.List, owner, id string) (uint64, error) {
	l, err := tx.list(ix, owner)
	if err != nil {
		return 0, err
	}
	seq := l.Next
	l.Next++
	l.Items = append(l.Items, jsListItem{ID: id, Seq: seq})
	return seq, tx.putJSON(tx.s.listKey(ix, owner), l)
}

// listInsert puts id into owner's list of ix at seq, keeping seq order:
// a list whose order is another list's (an org's members).
func (tx *jsTx) listInsert(ix kv.List, owner, id string, seq uint64) error {
	l, err := tx.list(ix, owner)
	if err != nil {
		return err
	}
	i, _ := slices.BinarySearchFunc(l.Items, seq, func(it jsListItem, s uint64) int {
		return compareUint(it.Seq, s)
	})
	l.Items = slices.Insert(l.Items, i, jsListItem{ID: id, Seq: seq})
	return tx.putJSON(tx.s.listKey(ix, owner), l)
}

// listRemove takes id out of owner's list of ix; a missing id is not an
// error.
func (tx *jsTx) listRemove(ix kv.List, owner, id string) error {
	l, err := tx.list(ix, owner)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(l.Items, func(it jsListItem) bool { return it.ID == id })
	if i < 0 {
		return nil
	}
	l.Items = slices.Delete(l.Items, i, i+1)
	return tx.putJSON(tx.s.listKey(ix, owner), l)
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pageList picks the ids and cursors of one page of items, by the rules
// of kv.Page (as boltList.page does in bbolt).
func pageList(ix kv.List, owner string, items []jsListItem, p kv.Page) (ids, cursors []string, err error) {
	if p.After != "" && p.Before != "" {
		return nil, nil, fmt.Errorf("%w: after and before are mutually exclusive", kv.ErrBadCursor)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = kv.DefaultPageLimit
	}
	tag := ix.Tag(owner)
	var picked []jsListItem
	switch {
	case p.Before != "":
		seq, err := kv.DecodeCursor(tag, p.Before)
		if err != nil {
			return nil, nil, err
		}
		end, _ := slices.BinarySearchFunc(items, seq, func(it jsListItem, s uint64) int { return compareUint(it.Seq, s) })
		picked = items[max(0, end-limit):end]
	case p.After != "":
		seq, err := kv.DecodeCursor(tag, p.After)
		if err != nil {
			return nil, nil, err
		}
		start, found := slices.BinarySearchFunc(items, seq, func(it jsListItem, s uint64) int { return compareUint(it.Seq, s) })
		if found {
			start++
		}
		picked = items[start:min(len(items), start+limit)]
	default:
		picked = items[:min(len(items), limit)]
	}
	for _, it := range picked {
		ids = append(ids, it.ID)
		cursors = append(cursors, kv.EncodeCursor(tag, it.Seq))
	}
	return ids, cursors, nil
}
