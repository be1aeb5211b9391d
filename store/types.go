package store

// Page asks for one page of a list. Cursors are opaque strings the store
// produced; After and Before are mutually exclusive. MaxBytes, when above
// 0, ends the page early once its records' stored size would pass it
// (it always holds at least one); the page then keeps the records
// nearest the cursor, so that paging on from it misses none.
type Page struct {
	Limit    int
	After    string
	Before   string
	MaxBytes int
}

// PageOf is one page of a list in a stable order.
type PageOf[T any] struct {
	Items       []T
	Cursors     []string // Cursors[i] is the cursor of Items[i]
	TotalCount  int
	StartCursor string
	EndCursor   string
}
