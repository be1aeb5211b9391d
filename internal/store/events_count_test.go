package store

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// TestTrimFollowsTheCountAcrossDeletes: the count that trimming relies on
// (and CountEvents answers) follows appends, deletes and a channel stored
// before counts were kept, so that a channel always holds its newest keep
// events, no fewer.
func TestTrimFollowsTheCountAcrossDeletes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, s testStore) { checkTrimFollowsTheCount(t, s) })
}

// checkTrimFollowsTheCount is TestTrimFollowsTheCountAcrossDeletes on one
// store s.
func checkTrimFollowsTheCount(t *testing.T, s testStore) {
	events := func(n int) []model.Event {
		out := make([]model.Event, n)
		for i := range out {
			out[i] = model.Event{Data: json.RawMessage(`{}`)}
		}
		return out
	}
	held := func() int {
		t.Helper()
		got, err := s.ListEvents(ctx, "dc_1", "", 1000)
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"append 10, keep 5", func() error { _, err := s.AppendEvents(ctx, "dc_1", events(10), 5); return err }, 5},
		{"delete 2", func() error {
			got, _ := s.ListEvents(ctx, "dc_1", "", 1000)
			_, err := s.DeleteEvents(ctx, "dc_1", "", "", got[len(got)-2].ID) // the oldest two
			return err
		}, 3},
		{"append 1, keep 5", func() error { _, err := s.AppendEvents(ctx, "dc_1", events(1), 5); return err }, 4},
		{"forget the count, as a store from before counts", func() error { return forgetCount(s, "dc_1", "") }, 4},
		{"append 3, keep 5", func() error { _, err := s.AppendEvents(ctx, "dc_1", events(3), 5); return err }, 5},
		{"append 1, keep 100", func() error { _, err := s.AppendEvents(ctx, "dc_1", events(1), 100); return err }, 6},
		{"delete all", func() error { _, err := s.DeleteEvents(ctx, "dc_1", "", "", ""); return err }, 0},
		{"append 2, keep 1", func() error { _, err := s.AppendEvents(ctx, "dc_1", events(2), 1); return err }, 1},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := held(); got != st.want {
			t.Fatalf("%s: the channel holds %d events, want %d", st.name, got, st.want)
		}
		if n, err := s.CountEvents(ctx, "dc_1", ""); err != nil || n != st.want {
			t.Fatalf("%s: CountEvents = %d, %v; want %d", st.name, n, err, st.want)
		}
	}
	for _, other := range [][2]string{{"dc_1", "orders"}, {"dc_2", ""}, {"", ""}} {
		if n, err := s.CountEvents(ctx, other[0], other[1]); err != nil || n != 0 {
			t.Errorf("CountEvents of %q's channel %q, which holds none: %d, %v", other[0], other[1], n, err)
		}
	}
}

// forgetCount makes a channel's count what a store from before it was
// kept holds: none on bbolt; on JetStream, a channel record without the
// bound of its holes.
func forgetCount(s testStore, emitterID, channel string) error {
	return beneathOf(s).ForgetEventCount(ctx, emitterID, channel)
}

// TestTrimPassesOverHoles: events deleted from the middle of a channel
// leave holes that trimming must not count as events, on every backend
// (JetStream trims without reading the slots past its bound of holes).
func TestTrimPassesOverHoles(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, s eventsAPI) {
		var appended []string // ids, oldest first
		add := func(n, keep int) {
			t.Helper()
			in := make([]model.Event, n)
			for i := range in {
				in[i] = model.Event{Data: json.RawMessage(`{}`)}
			}
			got, err := s.AppendEvents(ctx, "dc_1", in, keep)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got {
				appended = append(appended, e.ID)
			}
		}
		held := func(want []string) {
			t.Helper()
			got, err := s.ListEvents(ctx, "dc_1", "", 1000)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i := len(got) - 1; i >= 0; i-- {
				ids = append(ids, got[i].ID)
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("the channel holds %v, want %v", ids, want)
			}
		}
		add(10, 10)
		if _, err := s.DeleteEvents(ctx, "dc_1", "", appended[3], appended[5]); err != nil {
			t.Fatal(err)
		}
		live := slices.Concat(appended[:3], appended[6:])
		held(live)
		add(5, 10) // trims two events older than the holes
		live = append(live[2:], appended[10:]...)
		held(live)
		add(3, 10) // trims one event, passes over three holes, trims two
		live = append(live[3:], appended[15:]...)
		held(live)
	})
}
