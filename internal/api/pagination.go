package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
)

// Pagination bounds from the specification.
const (
	defaultLimit = 10
	maxLimit     = 100
)

// DefaultPageBytes bounds the encoded items of one page of a list. A page
// stops early rather than pass it (holding at least one item), so that a
// list of large items (events of megabytes with expand=event, sources with
// large props) answers pages of a few megabytes, not of 100 items.
const DefaultPageBytes = 4 << 20

// readPage checks the pagination parameters: limit from 1 to 100 (10 when
// not given), and after or before, not both. The page asks the store to
// stop at the byte budget as well.
func (s *Server) readPage(r *http.Request, p apiv1.PageParams) (model.Page, error) {
	limit, err := readLimit(r, p.Limit)
	if err != nil {
		return model.Page{}, err
	}
	if p.After != "" && p.Before != "" {
		return model.Page{}, errInvalid("before", "Pass either after or before, not both.")
	}
	return model.Page{Limit: limit, After: p.After, Before: p.Before, MaxBytes: s.pageBytes}, nil
}

// readLimit checks a limit parameter (decoded as n): from 1 to 100, 10
// when the request gives none (or an empty one).
func readLimit(r *http.Request, n int) (int, error) {
	if r.URL.Query().Get("limit") == "" {
		return defaultLimit, nil
	}
	if n < 1 || n > maxLimit {
		return 0, errInvalid("limit", "The parameter limit must be an integer from 1 to %d.", maxLimit)
	}
	return n, nil
}

// listPage is one page of a list as a handler answers it: the items'
// views with the cursor of each, the list's total count, and whether the
// page was read before a cursor (its items nearest the cursor are then
// its last).
type listPage[V any] struct {
	items   []V
	cursors []string
	total   int
	before  bool
}

// pageFrom makes the listPage of a page the store read with p.
func pageFrom[T, V any](pg model.PageOf[T], p model.Page, view func(T) V) listPage[V] {
	return listPage[V]{items: viewAll(pg.Items, view), cursors: pg.Cursors, total: pg.TotalCount, before: p.Before != ""}
}

// writePage answers 200 with {"page_info": ..., "data": items}, applying
// include/exclude to each item. The items it sends are those that fit in
// the server's page budget, encoded (at least one), counted from the end
// nearest the cursor, and page_info describes what was sent: paging on
// from its end_cursor (or start_cursor, backwards) misses nothing.
func writePage[V any](s *Server, w http.ResponseWriter, r *http.Request, pg listPage[V]) {
	n, size := len(pg.items), 0
	encoded := make([]json.RawMessage, 0, n)
	for i := range n {
		j := i
		if pg.before {
			j = n - 1 - i
		}
		raw, err := encodeItem(r, pg.items[j])
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if size += len(raw); len(encoded) > 0 && size > s.pageBytes {
			break
		}
		encoded = append(encoded, raw)
	}
	cursors := pg.cursors[:len(encoded)]
	if pg.before {
		slices.Reverse(encoded)
		cursors = pg.cursors[n-len(encoded):]
	}
	info := apiv1.PageInfo{TotalCount: pg.total, Count: len(encoded)}
	if len(cursors) > 0 {
		info.StartCursor, info.EndCursor = cursors[0], cursors[len(cursors)-1]
	}
	writeJSON(w, http.StatusOK, apiv1.Page[json.RawMessage]{PageInfo: info, Data: encoded})
}

// encodeItem encodes one item of a list as writeJSON would, after
// include/exclude.
func encodeItem(r *http.Request, item any) (json.RawMessage, error) {
	shaped, err := shape(r, item)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shaped); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
