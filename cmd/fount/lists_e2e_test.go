package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/api"
)

// TestLargeEventsComeInPages: a source whose events are megabytes each
// answers event_summaries?expand=event in pages within the byte budget,
// and paging on with after returns every event once, newest first.
func TestLargeEventsComeInPages(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "Big", version: "1",
		run(e) { this.$emit({ i: e.i, pad: "x".repeat(e.n) }) } }`, nil)
	id := src["id"].(string)
	const n = 5
	for i := range n {
		s.run(id, map[string]any{"i": i, "n": 3 << 19}) // 1.5 MiB
	}
	path := "/v1/sources/" + id + "/event_summaries?limit=100"
	// Newest first, from the previews, which fit in one page.
	want := wait.For(t, fmt.Sprintf("%d events", n), eventsDeadline, func() ([]string, bool) {
		_, body := s.do("GET", path, nil)
		var ids []string
		for _, it := range body["data"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		return ids, len(ids) >= n
	})
	var got []string
	after, pages := "", 0
	for ; pages <= n; pages++ {
		raw := s.get(path + "&expand=event&after=" + after)
		if len(raw) > api.DefaultPageBytes+4096 {
			t.Fatalf("a page of %d bytes, over the budget of %d", len(raw), api.DefaultPageBytes)
		}
		var page struct {
			PageInfo struct {
				EndCursor string `json:"end_cursor"`
			} `json:"page_info"`
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Data) == 0 {
			break
		}
		for _, e := range page.Data {
			got = append(got, e.ID)
		}
		after = page.PageInfo.EndCursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paging with expand=event gave %v, want %v", got, want)
	}
	if pages < 3 {
		t.Errorf("%d events of 1.5 MiB came in %d pages, want at least 3", n, pages)
	}
}

// get sends a GET with the server's key and returns the raw body of a 200.
func (s *testServer) get(path string) []byte {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		s.t.Fatalf("GET %s: %d %v %.200s", path, resp.StatusCode, err, raw)
	}
	return raw
}
