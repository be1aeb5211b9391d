package delivery

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt, base := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 30: time.Hour} {
		for range 20 {
			d := Backoff(time.Second, attempt)
			if d < base*3/4 || d > base*5/4 {
				t.Fatalf("Backoff(%d) = %v, want %v ± 25%%", attempt, d, base)
			}
		}
	}
}
