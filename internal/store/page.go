package store

import (
	"encoding/json"
	"fmt"
)

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
