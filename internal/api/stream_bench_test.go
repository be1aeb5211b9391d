package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// BenchmarkStreamResume measures an SSE resume with Last-Event-ID in a log
// of 100 and of 100,000 events (--events-kept 100000): the time from the
// request to the first resumed event, with 10 events to send. The target
// is at most 5 ms whatever the log's size. Reported: p50-ms.
func BenchmarkStreamResume(b *testing.B) {
	for _, size := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("events=%d", size), func(b *testing.B) {
			h := newHarness(b)
			src := h.must(h.deploy(h.ownerKey, "hello-http.mjs", nil, nil), 200).data()
			id := src["id"].(string)
			events := make([]model.Event, size)
			for i := range events {
				events[i] = model.Event{Data: json.RawMessage(`{"n":1}`)}
			}
			stored, err := h.st.AppendEvents(context.Background(), id, events, size)
			if err != nil {
				b.Fatal(err)
			}
			resumeAt := stored[len(stored)-11].ID
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				ctx, cancel := context.WithCancel(context.Background())
				req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+"/v1/sources/"+id+"/sse", nil)
				req.Header.Set("Authorization", "Bearer "+h.ownerKey)
				req.Header.Set("Last-Event-ID", resumeAt)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				lines := bufio.NewScanner(resp.Body)
				for lines.Scan() && !strings.HasPrefix(lines.Text(), "event: event") {
				}
				took = append(took, time.Since(start))
				cancel()
				resp.Body.Close()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
