package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// TestPageEvents: pages of a channel's events, newest first, bounded in
// number and bytes, from either side of a cursor, with or without
// previews; paging on from a page's ends returns every event once.
func TestPageEvents(t *testing.T) {
	t.Parallel()
	const n, size = 12, 1000
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		withClock(b, 5000)
		var events []model.Event
		for i := range n {
			data, _ := json.Marshal(fmt.Sprintf("%02d%s", i, strings.Repeat("x", size-4)))
			events = append(events, model.Event{EmitID: fmt.Sprint(i), Data: data})
		}
		stored, err := b.AppendEvents(ctx, "dc_1", events, n)
		wantErr(t, "AppendEvents", err, nil)
		if _, err := b.AppendEvents(ctx, "dc_1", []model.Event{{Name: "other", Data: json.RawMessage(`1`)}}, n); err != nil {
			t.Fatal(err)
		}
		var newestFirst []string
		for _, e := range slices.Backward(stored) {
			newestFirst = append(newestFirst, e.ID)
		}
		ids := func(evs []model.Event) []string {
			var out []string
			for _, e := range evs {
				out = append(out, e.ID)
			}
			return out
		}
		page := func(p EventPage) []model.Event {
			t.Helper()
			evs, err := b.PageEvents(ctx, "dc_1", "", p)
			if err != nil {
				t.Fatalf("PageEvents %+v: %v", p, err)
			}
			for _, e := range evs {
				if e.Size != size {
					t.Fatalf("PageEvents %+v: event %s has Size %d, want %d", p, e.ID, e.Size, size)
				}
			}
			return evs
		}

		tests := []struct {
			name string
			p    EventPage
			want []string
		}{
			{"newest", EventPage{Limit: 3}, newestFirst[:3]},
			{"all", EventPage{Limit: 100}, newestFirst},
			{"after", EventPage{Limit: 3, After: newestFirst[2]}, newestFirst[3:6]},
			{"after the oldest", EventPage{Limit: 3, After: newestFirst[n-1]}, nil},
			{"before", EventPage{Limit: 3, Before: newestFirst[6]}, newestFirst[3:6]},
			{"before the newest", EventPage{Limit: 3, Before: newestFirst[0]}, nil},
			{"after an id of no event", EventPage{Limit: 2, After: "5000-99"}, newestFirst[:2]},
			{"after an id past the newest", EventPage{Limit: 2, After: "9999999-0"}, newestFirst[:2]},
			{"before an id before the oldest", EventPage{Limit: 2, Before: "1-0"}, newestFirst[n-2:]},
			{"bytes", EventPage{Limit: 100, MaxBytes: 2500}, newestFirst[:2]},
			{"bytes, before: nearest the cursor", EventPage{Limit: 100, MaxBytes: 2500, Before: newestFirst[6]}, newestFirst[4:6]},
			{"bytes, after", EventPage{Limit: 100, MaxBytes: 2500, After: newestFirst[6]}, newestFirst[7:9]},
			{"a budget below one event", EventPage{Limit: 100, MaxBytes: 1}, newestFirst[:1]},
			{"previews count as previews", EventPage{Limit: 100, MaxBytes: 2500, Preview: 100}, newestFirst},
		}
		for _, tt := range tests {
			if got := ids(page(tt.p)); !slices.Equal(got, tt.want) {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			}
		}

		previews := page(EventPage{Limit: 1, Preview: 10})
		if len(previews) != 1 || string(previews[0].Data) != string(stored[n-1].Data[:10]) {
			t.Errorf("preview = %q, want the first 10 bytes of %s", previews[0].Data, previews[0].ID)
		}
		whole := page(EventPage{Limit: 1})
		if string(whole[0].Data) != string(stored[n-1].Data) {
			t.Errorf("without a preview the event is cut: %d bytes", len(whole[0].Data))
		}

		var forward []string
		for p := (EventPage{Limit: 100, MaxBytes: 3500}); ; {
			evs := page(p)
			if len(evs) == 0 {
				break
			}
			forward = append(forward, ids(evs)...)
			p.After = evs[len(evs)-1].ID
		}
		if !slices.Equal(forward, newestFirst) {
			t.Errorf("paging after = %v, want %v", forward, newestFirst)
		}
		backward := []string{newestFirst[n-1]}
		for p := (EventPage{Limit: 100, MaxBytes: 3500, Before: newestFirst[n-1]}); ; {
			evs := page(p)
			if len(evs) == 0 {
				break
			}
			backward = append(ids(evs), backward...)
			p.Before = evs[0].ID
		}
		if !slices.Equal(backward, newestFirst) {
			t.Errorf("paging before = %v, want %v", backward, newestFirst)
		}

		for _, p := range []EventPage{{After: "x"}, {Before: "1-x"}, {After: "1-0", Before: "2-0"}} {
			if _, err := b.PageEvents(ctx, "dc_1", "", p); !errors.Is(err, model.ErrBadEventID) && !errors.Is(err, ErrBadCursor) {
				t.Errorf("PageEvents %+v: %v, want a bad cursor", p, err)
			}
		}
		if evs, err := b.PageEvents(ctx, "dc_none", "", EventPage{}); err != nil || len(evs) != 0 {
			t.Errorf("PageEvents of an unknown emitter: %v, %v", evs, err)
		}
	})
}

// TestPagesPassOverHolesAndTrims: paging a channel that was trimmed and
// had events deleted from its middle meets every event kept, in order,
// both ways and with any page size, on every backend (JetStream seeks
// by slot, and holes are slots without an event).
func TestPagesPassOverHolesAndTrims(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b eventsAPI) {
		in := make([]model.Event, 50)
		for i := range in {
			in[i] = model.Event{Data: json.RawMessage(fmt.Sprint(i))}
		}
		stored, err := b.AppendEvents(ctx, "dc_1", in, 40) // the oldest 10 trimmed
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.DeleteEvents(ctx, "dc_1", "", stored[20].ID, stored[25].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.DeleteEvents(ctx, "dc_1", "", stored[46].ID, ""); err != nil { // the newest: holes at the end
			t.Fatal(err)
		}
		var want []string // newest first
		for i := 45; i >= 10; i-- {
			if i < 20 || i > 25 {
				want = append(want, stored[i].ID)
			}
		}
		for _, limit := range []int{1, 3, 7, 100} {
			var older []string
			for p := (EventPage{Limit: limit}); ; {
				evs, err := b.PageEvents(ctx, "dc_1", "", p)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) == 0 {
					break
				}
				for _, e := range evs {
					older = append(older, e.ID)
				}
				p.After = evs[len(evs)-1].ID
			}
			if !slices.Equal(older, want) {
				t.Errorf("limit %d, paging after: %v, want %v", limit, older, want)
			}
			var newer []string
			for p := (EventPage{Limit: limit, Before: "1-0"}); ; {
				evs, err := b.PageEvents(ctx, "dc_1", "", p)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) == 0 {
					break
				}
				for _, e := range slices.Backward(evs) {
					newer = append(newer, e.ID)
				}
				p.Before = evs[0].ID
			}
			slices.Reverse(newer)
			if !slices.Equal(newer, want) {
				t.Errorf("limit %d, paging before: %v, want %v", limit, newer, want)
			}
			// From a cursor in a hole: the events on each side of it.
			evs, err := b.PageEvents(ctx, "dc_1", "", EventPage{Limit: 2, After: stored[22].ID})
			if err != nil || len(evs) != 2 || evs[0].ID != stored[19].ID || evs[1].ID != stored[18].ID {
				t.Errorf("after a deleted event: %v, %v", evs, err)
			}
			evs, err = b.PageEvents(ctx, "dc_1", "", EventPage{Limit: 2, Before: stored[22].ID})
			if err != nil || len(evs) != 2 || evs[0].ID != stored[27].ID || evs[1].ID != stored[26].ID {
				t.Errorf("before a deleted event: %v, %v", evs, err)
			}
			// From a cursor among the deleted newest: nothing newer, the
			// kept ones older.
			if evs, err := b.PageEvents(ctx, "dc_1", "", EventPage{Limit: 2, Before: stored[47].ID}); err != nil || len(evs) != 0 {
				t.Errorf("before a deleted newest event: %v, %v", evs, err)
			}
			evs, err = b.PageEvents(ctx, "dc_1", "", EventPage{Limit: 2, After: stored[47].ID})
			if err != nil || len(evs) != 2 || evs[0].ID != stored[45].ID || evs[1].ID != stored[44].ID {
				t.Errorf("after a deleted newest event: %v, %v", evs, err)
			}
		}
	})
}
