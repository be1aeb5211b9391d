package batch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
)

func TestAheadSet(t *testing.T) {
	t.Parallel()
	invs := func(n, size int) []model.Invocation {
		out := make([]model.Invocation, n)
		for i := range out {
			out[i] = model.Invocation{ID: fmt.Sprint(i), Event: json.RawMessage(strings.Repeat("x", size))}
		}
		return out
	}
	ids := func(invs []model.Invocation) string {
		var out []string
		for _, inv := range invs {
			out = append(out, inv.ID)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name  string
		kept  []model.Invocation
		after time.Duration // between keep and the takes
		drop  bool
		takes []string // what each take of 2 returns
	}{
		{"in order, then none", invs(5, 1), 0, false, []string{"0,1", "2,3", "4", ""}},
		{"stale", invs(5, 1), readAheadFor + time.Millisecond, false, []string{""}},
		{"fresh at the bound", invs(3, 1), readAheadFor, false, []string{"0,1", "2"}},
		{"dropped", invs(5, 1), 0, true, []string{""}},
		{"bounded in bytes", invs(5, readAheadBytes/2), 0, false, []string{"0,1", ""}},
		{"nothing", nil, 0, false, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake()
			s := NewAhead(clk)
			s.Keep("dc_1", tt.kept, clk.Now())
			clk.Advance(tt.after)
			if tt.drop {
				s.Drop("dc_1")
			}
			for i, want := range tt.takes {
				if got := ids(s.Take("dc_1", 2)); got != want {
					t.Errorf("take %d = %q, want %q", i, got, want)
				}
			}
			if got := s.Take("dc_other", 2); got != nil {
				t.Errorf("another source's take = %v", got)
			}
		})
	}
}

// TestAheadSetBounds: every source's read-ahead together stays under
// readAheadTotal, and a source reads ahead only once its queue was found
// deep.
func TestAheadSetBounds(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	s := NewAhead(clk)
	big := []model.Invocation{{ID: "1", Event: json.RawMessage(strings.Repeat("x", readAheadBytes))}}
	for i := range readAheadTotal / readAheadBytes {
		s.Keep(fmt.Sprint("dc_", i), big, clk.Now())
	}
	s.Keep("dc_past", big, clk.Now())
	if got := s.Take("dc_past", 1); got != nil {
		t.Errorf("kept %d invocations past readAheadTotal", len(got))
	}
	if got := s.Take("dc_0", 1); len(got) != 1 {
		t.Fatalf("dc_0 kept %d invocations, want one", len(got))
	}
	s.Keep("dc_past", big, clk.Now()) // dc_0's room is free again
	if got := s.Take("dc_past", 1); len(got) != 1 {
		t.Errorf("after a take, kept %d invocations, want one", len(got))
	}

	steps := []struct {
		got, limit int // a read's result, and what it asked
		want       int // the next read's limit
	}{
		{0, 0, Size},
		{Size - 1, Size, Size},
		{Size, Size, ReadAhead},
		{ReadAhead, ReadAhead, ReadAhead},
		{3, ReadAhead, Size},
	}
	for i, st := range steps {
		if st.limit > 0 {
			s.Read("dc_q", st.got, st.limit)
		}
		if got := s.Limit("dc_q", Size); got != st.want {
			t.Errorf("step %d: limit %d, want %d", i, got, st.want)
		}
	}
}
