package api

import (
	"net/http"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/store"
)

// Pagination bounds from the specification.
const (
	defaultLimit = 10
	maxLimit     = 100
)

// readPage checks the pagination parameters: limit from 1 to 100 (10 when
// not given), and after or before, not both.
func readPage(r *http.Request, p apiv1.PageParams) (store.Page, error) {
	limit, err := readLimit(r, p.Limit)
	if err != nil {
		return store.Page{}, err
	}
	if p.After != "" && p.Before != "" {
		return store.Page{}, errInvalid("before", "Pass either after or before, not both.")
	}
	return store.Page{Limit: limit, After: p.After, Before: p.Before}, nil
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

func pageInfo[T any](pg store.PageOf[T]) apiv1.PageInfo {
	return apiv1.PageInfo{TotalCount: pg.TotalCount, Count: len(pg.Items), StartCursor: pg.StartCursor, EndCursor: pg.EndCursor}
}
