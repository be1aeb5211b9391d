package batch

import (
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// TestThrottleWindows: a window lets limit executions start, holds the
// rest until it closes, and the next opens with the first execution
// after that; workflows have windows of their own.
func TestThrottleWindows(t *testing.T) {
	t.Parallel()
	var th Throttles
	t0 := time.Unix(1_700_000_000, 0)
	two := model.Throttle{Limit: 2, IntervalSeconds: 10}
	steps := []struct {
		id          string
		at          time.Duration
		want        int
		wantAllowed int
		wantWait    time.Duration
	}{
		{"p_a", 0, 3, 2, 10 * time.Second},
		{"p_a", 4 * time.Second, 1, 0, 6 * time.Second},
		{"p_b", 4 * time.Second, 1, 1, 0},
		{"p_a", 10 * time.Second, 5, 2, 10 * time.Second},
		{"p_a", 25 * time.Second, 1, 1, 0},
		{"p_a", 26 * time.Second, 2, 1, 9 * time.Second},
	}
	for i, st := range steps {
		allowed, wait := th.Allow(st.id, two, t0.Add(st.at), st.want)
		if allowed != st.wantAllowed || wait != st.wantWait {
			t.Errorf("step %d (%s at +%v, %d wanted): %d allowed, wait %v; want %d, %v", i, st.id, st.at, st.want, allowed, wait, st.wantAllowed, st.wantWait)
		}
	}
	th.Forget("p_a")
	if allowed, _ := th.Allow("p_a", two, t0.Add(27*time.Second), 2); allowed != 2 {
		t.Errorf("after forget: %d allowed, want a new window's 2", allowed)
	}
}
