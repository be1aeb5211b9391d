package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// evs makes events on channel with data 0, 1, ...
func evs(channel string, n int) []model.Event {
	out := make([]model.Event, n)
	for i := range out {
		out[i] = model.Event{Name: channel, EmitID: fmt.Sprint("e", i), Data: json.RawMessage(fmt.Sprint(i))}
	}
	return out
}

func eventIDs(list []model.Event) []string {
	ids := []string{}
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	return ids
}

// mustAppend appends and returns the stored events.
func mustAppend(t *testing.T, b eventsAPI, emitter string, events []model.Event, keep int) []model.Event {
	t.Helper()
	out, err := b.AppendEvents(ctx, emitter, events, keep)
	if err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	return out
}

func TestAppendEventsIDs(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		clock := withClock(b, 1000)

		// Several batches in the same millisecond, over two channels.
		var got []model.Event
		got = append(got, mustAppend(t, b, "dc_1", evs("", 2), 0)...)
		got = append(got, mustAppend(t, b, "dc_1", evs("$logs", 1), 0)...)
		got = append(got, mustAppend(t, b, "dc_1", []model.Event{{Name: ""}, {Name: "$errors"}, {Name: ""}}, 0)...)
		want := []string{"1000-0", "1000-1", "1000-2", "1000-3", "1000-4", "1000-5"}
		if ids := eventIDs(got); !slices.Equal(ids, want) {
			t.Fatalf("ids = %v, want %v", ids, want)
		}
		for _, e := range got {
			if e.EmitterID != "dc_1" || e.IndexedAtMs != 1000 {
				t.Errorf("event %s: emitter %q, indexed at %d", e.ID, e.EmitterID, e.IndexedAtMs)
			}
		}
		// Another emitter has its own sequence.
		if ids := eventIDs(mustAppend(t, b, "dc_2", evs("", 1), 0)); !slices.Equal(ids, []string{"1000-0"}) {
			t.Errorf("dc_2 ids = %v", ids)
		}

		tests := []struct {
			name    string
			nowMs   int64
			wantIDs []string
		}{
			{"clock moves on: seq restarts", 1005, []string{"1005-0", "1005-1"}},
			{"same ms again", 1005, []string{"1005-2", "1005-3"}},
			{"clock goes back: keep last ms", 900, []string{"1005-4", "1005-5"}},
			{"clock catches up", 1006, []string{"1006-0", "1006-1"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clock.set(time.UnixMilli(tt.nowMs))
				out := mustAppend(t, b, "dc_1", evs("", 2), 0)
				if ids := eventIDs(out); !slices.Equal(ids, tt.wantIDs) {
					t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
				}
			})
		}
		// The input slice is not modified.
		in := evs("", 1)
		mustAppend(t, b, "dc_1", in, 0)
		if in[0].ID != "" || in[0].EmitterID != "" {
			t.Errorf("AppendEvents modified its input: %+v", in[0])
		}
		if out, err := b.AppendEvents(ctx, "dc_1", nil, 0); err != nil || len(out) != 0 {
			t.Errorf("AppendEvents(nil) = %v, %v", out, err)
		}
		if _, err := b.AppendEvents(ctx, "", evs("", 1), 0); err == nil {
			t.Error("AppendEvents with an empty emitter succeeded")
		}
	})
}

func TestAppendEventsRealClockMonotonic(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		var all []model.Event
		for i := range 50 {
			ch := []string{"", "$logs", "$errors"}[i%3]
			all = append(all, mustAppend(t, b, "dc_1", evs(ch, 1+i%4), 1000)...)
		}
		checkIncreasing(t, all)
	})
}

func TestAppendEventsConcurrent(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		var mu sync.Mutex
		var all []model.Event
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for range 10 {
					out, err := b.AppendEvents(ctx, "dc_1", evs(fmt.Sprint("ch", g%3), 3), 1000)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					all = append(all, out...)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		slices.SortFunc(all, func(a, b model.Event) int { return compareIDs(t, a.ID, b.ID) })
		checkIncreasing(t, all)
		if len(all) != 240 {
			t.Errorf("%d events, want 240", len(all))
		}
	})
}

// checkIncreasing fails t unless the ids of list strictly increase.
func checkIncreasing(t *testing.T, list []model.Event) {
	t.Helper()
	for i := 1; i < len(list); i++ {
		if compareIDs(t, list[i-1].ID, list[i].ID) >= 0 {
			t.Fatalf("id %s is not after %s", list[i].ID, list[i-1].ID)
		}
	}
}

func compareIDs(t *testing.T, a, b string) int {
	ams, aseq, err := model.ParseEventID(a)
	if err != nil {
		t.Fatal(err)
	}
	bms, bseq, err := model.ParseEventID(b)
	if err != nil {
		t.Fatal(err)
	}
	if ams != bms {
		return cmpU(ams, bms)
	}
	return cmpU(aseq, bseq)
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestListEventsAndTrim(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		withClock(b, 5000)
		in := evs("", 5)
		in[2].Summary = "two"
		stored := mustAppend(t, b, "dc_1", in, 0)
		mustAppend(t, b, "dc_1", evs("$logs", 3), 0)

		got, err := b.ListEvents(ctx, "dc_1", "", 0)
		wantErr(t, "ListEvents", err, nil)
		if ids := eventIDs(got); !slices.Equal(ids, []string{"5000-4", "5000-3", "5000-2", "5000-1", "5000-0"}) {
			t.Fatalf("ListEvents newest first = %v", ids)
		}
		e := got[2]
		if e.ID != stored[2].ID || e.Summary != "two" || string(e.Data) != "2" || e.EmitID != "e2" || e.Name != "" ||
			e.EmitterID != "dc_1" || e.IndexedAtMs != 5000 {
			t.Errorf("stored event = %+v", e)
		}

		tests := []struct {
			name    string
			emitter string
			channel string
			limit   int
			want    []string
		}{
			{"limit", "dc_1", "", 2, []string{"5000-4", "5000-3"}},
			{"other channel", "dc_1", "$logs", 0, []string{"5000-7", "5000-6", "5000-5"}},
			{"unknown channel", "dc_1", "$errors", 0, []string{}},
			{"unknown emitter", "dc_zz", "", 0, []string{}},
			{"empty emitter", "", "", 0, []string{}},
		}
		for _, tt := range tests {
			got, err := b.ListEvents(ctx, tt.emitter, tt.channel, tt.limit)
			wantErr(t, "ListEvents", err, nil)
			if got == nil || !slices.Equal(eventIDs(got), tt.want) {
				t.Errorf("%s: ListEvents = %v, want %v", tt.name, eventIDs(got), tt.want)
			}
		}

		// Trimming keeps the newest keep events of each channel touched.
		mustAppend(t, b, "dc_1", evs("", 2), 3) // "" now 7 events -> keep 3
		if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "", 0))); !slices.Equal(ids, []string{"5000-9", "5000-8", "5000-4"}) {
			t.Errorf("after trim to 3: %v", ids)
		}
		if n := len(must(b.ListEvents(ctx, "dc_1", "$logs", 0))); n != 3 {
			t.Errorf("untouched channel has %d events, want 3", n)
		}
		// A batch larger than keep: all are returned, the newest kept.
		out := mustAppend(t, b, "dc_1", evs("$logs", 4), 2)
		if len(out) != 4 {
			t.Errorf("returned %d events, want 4", len(out))
		}
		if ids := eventIDs(must(b.ListEvents(ctx, "dc_1", "$logs", 0))); !slices.Equal(ids, []string{"5000-13", "5000-12"}) {
			t.Errorf("after trim to 2: %v", ids)
		}
		// keep <= 0 means 100.
		mustAppend(t, b, "dc_2", evs("", 120), 0)
		list := must(b.ListEvents(ctx, "dc_2", "", 1000))
		if len(list) != 100 || list[0].ID != "5000-119" || list[99].ID != "5000-20" {
			t.Errorf("default keep: %d events from %s to %s", len(list), list[0].ID, list[len(list)-1].ID)
		}
		if n := len(must(b.ListEvents(ctx, "dc_2", "", 0))); n != 100 {
			t.Errorf("default limit listed %d", n)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestDeleteEvents(t *testing.T) {
	t.Parallel()
	// Each case starts from events 7000-0 ... 7000-5 on "" and two on
	// "$logs" (7000-6, 7000-7).
	all := []string{"7000-0", "7000-1", "7000-2", "7000-3", "7000-4", "7000-5"}
	tests := []struct {
		name       string
		emitter    string
		channel    string
		start, end string
		wantN      int
		wantLeft   []string // of "", oldest first
		wantErr    error
	}{
		{"no bounds: all", "dc_1", "", "", "", 6, nil, nil},
		{"only start: that and later", "dc_1", "", "7000-3", "", 3, all[:3], nil},
		{"only end: that and earlier", "dc_1", "", "", "7000-2", 3, all[3:], nil},
		{"both: inclusive range", "dc_1", "", "7000-1", "7000-4", 4, []string{"7000-0", "7000-5"}, nil},
		{"same id twice: one event", "dc_1", "", "7000-2", "7000-2", 1, []string{"7000-0", "7000-1", "7000-3", "7000-4", "7000-5"}, nil},
		{"bounds between ids", "dc_1", "", "6999-9", "7000-1", 2, all[2:], nil},
		{"start after end", "dc_1", "", "7000-4", "7000-1", 0, all, nil},
		{"start after the newest", "dc_1", "", "8000-0", "", 0, all, nil},
		{"other channel's ids", "dc_1", "", "7000-6", "7000-7", 0, all, nil},
		{"unknown channel", "dc_1", "$errors", "", "", 0, all, nil},
		{"unknown emitter", "dc_zz", "", "", "", 0, all, nil},
		{"bad start", "dc_1", "", "x", "", 0, all, model.ErrBadEventID},
		{"bad end", "dc_1", "", "", "7000", 0, all, model.ErrBadEventID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eachBackend(t, func(t *testing.T, b eventsAPI) {
				withClock(b, 7000)
				mustAppend(t, b, "dc_1", evs("", 6), 0)
				mustAppend(t, b, "dc_1", evs("$logs", 2), 0)
				n, err := b.DeleteEvents(ctx, tt.emitter, tt.channel, tt.start, tt.end)
				wantErr(t, "DeleteEvents", err, tt.wantErr)
				if n != tt.wantN {
					t.Errorf("deleted %d, want %d", n, tt.wantN)
				}
				left := eventIDs(must(b.ListEvents(ctx, "dc_1", "", 0)))
				slices.Reverse(left)
				if !slices.Equal(left, tt.wantLeft) && (len(left) != 0 || len(tt.wantLeft) != 0) {
					t.Errorf("left %v, want %v", left, tt.wantLeft)
				}
				if logs := must(b.ListEvents(ctx, "dc_1", "$logs", 0)); len(logs) != 2 {
					t.Errorf("$logs has %d events, want 2", len(logs))
				}
				// Ids keep increasing after a delete.
				next := mustAppend(t, b, "dc_1", evs("", 1), 0)
				if next[0].ID != "7000-8" {
					t.Errorf("next id %s, want 7000-8", next[0].ID)
				}
			})
		})
	}
}
