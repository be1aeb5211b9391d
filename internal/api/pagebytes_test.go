package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// walkPages pages through a list with limit=100, forwards with after from
// each page's end_cursor, or backwards with before from each page's
// start_cursor, and returns the ids in list order and the cursor of the
// last one. Every page must be within budget bytes (plus the envelope)
// and hold at least one item, and at least one page must have ended
// before its limit.
func walkPages(t *testing.T, h *harness, path, query string, backward bool, from string, budget int) (ids []string, lastCursor string) {
	t.Helper()
	cursor, short := from, false
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		q := path + "?limit=100" + query
		switch {
		case backward:
			q += "&before=" + cursor
		case cursor != "":
			q += "&after=" + cursor
		}
		r := h.must(h.call("GET", q, h.ownerKey, nil), 200)
		if len(r.raw) > budget+1024 {
			t.Fatalf("%s: %d bytes, over the budget of %d", q, len(r.raw), budget)
		}
		page := r.list()
		if len(page) == 0 {
			break
		}
		short = short || len(page) < 100
		var got []string
		for _, it := range page {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		info := r.pageInfo()
		if int(info["count"].(float64)) != len(page) || info["start_cursor"] == "" || info["end_cursor"] == "" {
			t.Fatalf("%s: page_info %v for %d items", q, info, len(page))
		}
		if backward {
			ids = append(got, ids...)
			cursor = info["start_cursor"].(string)
		} else {
			ids = append(ids, got...)
			cursor = info["end_cursor"].(string)
		}
	}
	if !short {
		t.Errorf("%s: no page ended before its limit of 100", path)
	}
	return ids, cursor
}

// TestListPagesBoundedInBytes: a list of large items answers pages
// within the byte budget, and paging on from either end of a page
// returns every item once, in order.
func TestListPagesBoundedInBytes(t *testing.T) {
	t.Parallel()
	const budget = 20_000
	h := newHarnessWith(t, Config{PageBytes: budget})
	var webhooks []string
	for i := range 12 {
		r := h.must(h.call("POST", "/v1/webhooks", h.ownerKey, map[string]any{
			"url": fmt.Sprintf("https://example.com/%d", i), "description": strings.Repeat("d", 4096)}), 200)
		webhooks = append(webhooks, r.data()["id"].(string))
	}
	code := `export default { name: "Big", version: "1", props: { blob: { type: "object" } }, run() {} }`
	var sources []string
	for i := range 5 {
		r := h.must(h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_code": code, "name": fmt.Sprint("big-", i),
			"configured_props": map[string]any{"blob": map[string]string{"pad": strings.Repeat("p", 8000)}}}), 200)
		sources = append(sources, r.data()["id"].(string))
	}
	lists := []struct {
		path string
		want []string
	}{
		{"/v1/users/me/webhooks", webhooks},
		{"/v1/users/me/sources", sources},
	}
	for _, l := range lists {
		got, last := walkPages(t, h, l.path, "", false, "", budget)
		if !slices.Equal(got, l.want) {
			t.Errorf("%s forwards: %v, want %v", l.path, got, l.want)
		}
		got, _ = walkPages(t, h, l.path, "", true, last, budget)
		if want := l.want[:len(l.want)-1]; !slices.Equal(got, want) {
			t.Errorf("%s backwards from the last: %v, want %v", l.path, got, want)
		}
	}
}

// TestEventPagesBoundedInBytes: with expand=event, a page of events of
// megabytes stays within the default budget and paging on returns them
// all once; without it, their previews fit in one page.
func TestEventPagesBoundedInBytes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	src := h.must(h.deploy(h.ownerKey, "hello-http.mjs", nil, nil), 200).data()["id"].(string)
	const n, size = 5, 3 << 19 // 1.5 MiB each: two to a page
	var events []model.Event
	for i := range n {
		data, _ := json.Marshal(fmt.Sprintf("%d%s", i, strings.Repeat("e", size)))
		events = append(events, model.Event{EmitID: fmt.Sprint(i), Data: data})
	}
	stored, err := h.st.AppendEvents(context.Background(), src, events, 100)
	if err != nil {
		t.Fatal(err)
	}
	var newestFirst []string
	for _, e := range slices.Backward(stored) {
		newestFirst = append(newestFirst, e.ID)
	}
	path := "/v1/sources/" + src + "/event_summaries"
	if got, _ := walkPages(t, h, path, "&expand=event", false, "", DefaultPageBytes); !slices.Equal(got, newestFirst) {
		t.Errorf("forwards: %v, want %v", got, newestFirst)
	}
	if got, _ := walkPages(t, h, path, "&expand=event", true, newestFirst[n-1], DefaultPageBytes); !slices.Equal(got, newestFirst[:n-1]) {
		t.Errorf("backwards from the oldest: %v, want %v", got, newestFirst[:n-1])
	}
	r := h.must(h.call("GET", path+"?limit=100", h.ownerKey, nil), 200)
	if len(r.list()) != n || len(r.raw) > 16<<10 {
		t.Fatalf("without expand: %d events in %d bytes, want all %d as previews", len(r.list()), len(r.raw), n)
	}
	ev := r.list()[0].(map[string]any)["event"].(map[string]any)
	if ev["$truncated"] != true || int(ev["size"].(float64)) != size+3 || !strings.HasPrefix(ev["preview"].(string), `"4eee`) {
		t.Errorf("the newest event's preview: %v", ev)
	}
}
