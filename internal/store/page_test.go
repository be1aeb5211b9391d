package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// plainPage is a page reduced to ids, for checking any list.
type plainPage struct {
	ids, cursors []string
	total        int
	start, end   string
}

// lister lists one owner's list.
type lister func(p Page) (plainPage, error)

func plain[T any](pg PageOf[T], err error, id func(T) string) (plainPage, error) {
	out := plainPage{cursors: pg.Cursors, total: pg.TotalCount, start: pg.StartCursor, end: pg.EndCursor}
	for _, it := range pg.Items {
		out.ids = append(out.ids, id(it))
	}
	return out, err
}

func sourceLister(b testStore, owner string) lister {
	return func(p Page) (plainPage, error) {
		pg, err := b.ListSources(ctx, owner, p)
		return plain(pg, err, func(s model.Source) string { return s.ID })
	}
}

func webhookLister(b testStore, owner string) lister {
	return func(p Page) (plainPage, error) {
		pg, err := b.ListWebhooks(ctx, owner, p)
		return plain(pg, err, func(w model.Webhook) string { return w.ID })
	}
}

// mustPage lists p and checks the page's own invariants.
func mustPage(t *testing.T, list lister, p Page, wantTotal int) plainPage {
	t.Helper()
	pg, err := list(p)
	if err != nil {
		t.Fatalf("list %+v: %v", p, err)
	}
	if pg.total != wantTotal {
		t.Fatalf("list %+v: TotalCount = %d, want %d", p, pg.total, wantTotal)
	}
	if len(pg.cursors) != len(pg.ids) {
		t.Fatalf("list %+v: %d cursors for %d items", p, len(pg.cursors), len(pg.ids))
	}
	if len(pg.ids) == 0 && (pg.start != "" || pg.end != "") {
		t.Fatalf("list %+v: empty page with cursors %q, %q", p, pg.start, pg.end)
	}
	if len(pg.ids) > 0 && (pg.start != pg.cursors[0] || pg.end != pg.cursors[len(pg.cursors)-1]) {
		t.Fatalf("list %+v: start/end cursors do not match the items", p)
	}
	return pg
}

// checkPagination pages through list, which must hold exactly want in
// this order, forwards and backwards with several limits.
func checkPagination(t *testing.T, list lister, want []string) {
	t.Helper()
	n := len(want)
	all := mustPage(t, list, Page{Limit: 100}, n)
	if !slices.Equal(all.ids, want) {
		t.Fatalf("full list = %v, want %v", all.ids, want)
	}
	for _, limit := range []int{1, 2, 3, 10, 0} {
		eff := limit
		if eff == 0 {
			eff = 10
		}
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			// Forwards from the first page, following EndCursor.
			var got []string
			p := Page{Limit: limit}
			for pages := 0; ; pages++ {
				if pages > n+1 {
					t.Fatal("forward paging does not end")
				}
				pg := mustPage(t, list, p, n)
				lo := min(pages*eff, n)
				if !slices.Equal(pg.ids, want[lo:min(lo+eff, n)]) {
					t.Fatalf("forward page %d = %v, want %v", pages, pg.ids, want[lo:min(lo+eff, n)])
				}
				if len(pg.ids) == 0 {
					break
				}
				got = append(got, pg.ids...)
				p = Page{Limit: limit, After: pg.end}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("forward = %v, want %v", got, want)
			}
			if n == 0 {
				return
			}
			// Backwards from the last item, following StartCursor.
			got = []string{want[n-1]}
			p = Page{Limit: limit, Before: all.cursors[n-1]}
			for pages := 0; ; pages++ {
				if pages > n+1 {
					t.Fatal("backward paging does not end")
				}
				pg := mustPage(t, list, p, n)
				if len(pg.ids) == 0 {
					break
				}
				got = append(slices.Clone(pg.ids), got...)
				p = Page{Limit: limit, Before: pg.start}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("backward = %v, want %v", got, want)
			}
			// From every item's cursor, both ways.
			for i, c := range all.cursors {
				after := mustPage(t, list, Page{Limit: limit, After: c}, n)
				if w := want[i+1 : min(i+1+eff, n)]; !slices.Equal(after.ids, w) {
					t.Errorf("after item %d = %v, want %v", i, after.ids, w)
				}
				before := mustPage(t, list, Page{Limit: limit, Before: c}, n)
				if w := want[max(0, i-eff):i]; !slices.Equal(before.ids, w) {
					t.Errorf("before item %d = %v, want %v", i, before.ids, w)
				}
			}
		})
	}
}

// checkBadCursors checks that list refuses cursors it did not produce;
// foreign is a cursor of another list.
func checkBadCursors(t *testing.T, list lister, foreign string) {
	t.Helper()
	good := mustPage(t, list, Page{Limit: 1}, countOf(t, list))
	bad := []Page{
		{After: "!!!"},
		{Before: "!!!"},
		{After: "AAAA"},
		{After: foreign},
		{Before: foreign},
		{After: good.end + "A"},
		{After: good.end, Before: good.end},
	}
	for _, p := range bad {
		if _, err := list(p); !errors.Is(err, ErrBadCursor) {
			t.Errorf("list %+v: error %v, want ErrBadCursor", p, err)
		}
	}
}

func countOf(t *testing.T, list lister) int {
	t.Helper()
	pg, err := list(Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return pg.total
}
