package main

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct{ id, data string }

// readSSE reads n events of an event stream from Last-Event-ID lastID
// ("": from now), failing t when fewer come within eventsDeadline.
func readSSE(t testing.TB, s *testServer, path, lastID string, n int) []sseEvent {
	t.Helper()
	return readSSEWithin(t, s, path, lastID, n, eventsDeadline)
}

// readSSEWithin is readSSE with its own deadline.
func readSSEWithin(t testing.TB, s *testServer, path, lastID string, n int, within time.Duration) []sseEvent {
	t.Helper()
	return readSSEOpened(t, s, path, lastID, n, within, nil)
}

// readSSEOpened is readSSEWithin that closes opened, when not nil, once
// the stream is open: the server subscribes before it answers, so no
// event stored after that is missed.
func readSSEOpened(t testing.TB, s *testServer, path, lastID string, n int, within time.Duration, opened chan<- struct{}) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("sse: %d %v", resp.StatusCode, resp.Header)
	}
	if opened != nil {
		close(opened)
	}
	out := make(chan []sseEvent, 1)
	go func() {
		var evs []sseEvent
		var cur sseEvent
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				cur.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				cur.data = strings.TrimPrefix(line, "data: ")
			case line == "" && cur.id != "":
				evs = append(evs, cur)
				cur = sseEvent{}
				if len(evs) == n {
					out <- evs
					return
				}
			}
		}
		out <- evs
	}()
	select {
	case evs := <-out:
		return evs
	case <-time.After(within):
		t.Fatalf("sse: fewer than %d events in %v", n, within)
	}
	return nil
}

func TestSSEStreamAndResume(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`export default { name: "S", version: "1", run(e) { this.$emit({ n: e.n }) } }`, nil)
	id := src["id"].(string)
	for n := 1; n <= 3; n++ {
		s.run(id, map[string]any{"n": n})
	}
	evs := s.events(id, "", 3) // newest first
	second := evs[1]["id"].(string)

	// Resume after the second: the third is replayed, then live events follow.
	got := make(chan []sseEvent, 1)
	go func() { got <- readSSE(t, s, "/v1/sources/"+id+"/sse", second, 2) }()
	// Whenever the fourth is stored, before the stream subscribes or
	// after, the stream has it: it subscribes before it reads the log.
	s.run(id, map[string]any{"n": 4})
	stream := <-got
	if stream[0].id != evs[0]["id"] || !strings.Contains(stream[0].data, `"n":3`) || !strings.Contains(stream[1].data, `"n":4`) {
		t.Fatalf("stream = %+v", stream)
	}
	if r, _ := http.Get(s.base + "/v1/sources/" + id + "/sse"); r.StatusCode != 401 {
		t.Errorf("sse without a key: %d", r.StatusCode)
	}
}
