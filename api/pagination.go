package api

import (
	"net/http"
	"strconv"

	"github.com/fount-dev/fount/store"
)

// Pagination bounds from the spec.
const (
	defaultLimit = 10
	maxLimit     = 100
)

// readPage reads limit, after and before.
func readPage(r *http.Request) (store.Page, error) {
	q := r.URL.Query()
	p := store.Page{Limit: defaultLimit, After: q.Get("after"), Before: q.Get("before")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return p, errInvalid("limit", "The parameter limit must be an integer from 1 to %d.", maxLimit)
		}
		p.Limit = n
	}
	if p.After != "" && p.Before != "" {
		return p, errInvalid("before", "Pass either after or before, not both.")
	}
	return p, nil
}

func pageInfo[T any](pg store.PageOf[T]) PageInfo {
	return PageInfo{TotalCount: pg.TotalCount, Count: len(pg.Items), StartCursor: pg.StartCursor, EndCursor: pg.EndCursor}
}
