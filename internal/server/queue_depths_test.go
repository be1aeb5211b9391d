package server

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRecentDepthsCountsOncePerInterval: scrapes within the interval get
// the last count; one after it, or after a failed count, counts again.
func TestRecentDepthsCountsOncePerInterval(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	counts, fail := 0, false
	d := &recentDepths{every: time.Second, now: func() time.Time { return now },
		count: func(context.Context) (int, int, error) {
			if fail {
				return 0, 0, errors.New("the store does not answer")
			}
			counts++
			return counts, 10 * counts, nil
		}}
	steps := []struct {
		name        string
		advance     time.Duration
		fail        bool
		wantInv     int
		wantErr     bool
		wantCounted int
	}{
		{"first scrape counts", 0, false, 1, false, 1},
		{"a scrape 500 ms later reuses it", 500 * time.Millisecond, false, 1, false, 1},
		{"a second after the count, counts again", 500 * time.Millisecond, false, 2, false, 2},
		{"a failed count is an error", 2 * time.Second, true, 0, true, 2},
		{"and is not kept: the next scrape counts", 0, false, 3, false, 3},
	}
	for _, st := range steps {
		now, fail = now.Add(st.advance), st.fail
		inv, del, err := d.depths(context.Background())
		if (err != nil) != st.wantErr || inv != st.wantInv || (err == nil && del != 10*inv) || counts != st.wantCounted {
			t.Fatalf("%s: got %d, %d, %v after %d counts; want %d invocations, error %v, %d counts", st.name, inv, del, err, counts, st.wantInv, st.wantErr, st.wantCounted)
		}
	}
}
