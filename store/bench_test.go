package store

import (
	"encoding/json"
	"testing"
)

// BenchmarkAppendEvents appends one event at a time to a channel that is
// full (keep 100), the steady state of an emitting source.
func BenchmarkAppendEvents(b *testing.B) {
	s := openTestBolt(b)
	ev := []Event{{Data: json.RawMessage(`{"title":"hello","n":1}`)}}
	for range 100 {
		if _, err := s.AppendEvents(ctx, "dc_1", ev, 100); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := s.AppendEvents(ctx, "dc_1", ev, 100); err != nil {
			b.Fatal(err)
		}
	}
}
