package delayed

import (
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
)

func TestDelayedSchedulerStops(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	var mu sync.Mutex
	var released []string
	failOnce := true
	d := New(clk, slog.New(slog.DiscardHandler), func(id string) error {
		mu.Lock()
		defer mu.Unlock()
		if failOnce {
			failOnce = false
			return errors.New("store down")
		}
		released = append(released, id)
		return nil
	})
	d.Start()
	d.Note("dc_a", clk.Now().Add(time.Second).UnixMilli())
	d.Note("dc_a", clk.Now().Add(time.Hour).UnixMilli()) // the earliest time is kept
	d.ReleaseDue(clk.Now().Add(time.Second))             // fails: tried again
	d.ReleaseDue(clk.Now().Add(time.Second + Tick))
	mu.Lock()
	if len(released) != 1 {
		t.Fatalf("released %v, want dc_a once after the retry", released)
	}
	mu.Unlock()
	d.Note("dc_b", clk.Now().UnixMilli())
	d.Stop()
	d.Stop()
	clk.Advance(time.Hour) // Stop waited for the loop to end: nothing is left to read the tick
	mu.Lock()
	defer mu.Unlock()
	if len(released) != 1 {
		t.Errorf("released after Stop: %v", released[1:])
	}
}

// TestDelayedReleasesWhatIsDue: each tick of a started scheduler
// releases the targets due by then, once, and leaves the others and the
// forgotten ones.
func TestDelayedReleasesWhatIsDue(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	released := make(chan string, 8)
	d := New(clk, slog.New(slog.DiscardHandler), func(id string) error {
		released <- id
		return nil
	})
	d.Start()
	defer d.Stop()
	now := clk.Now()
	d.Note("soon", now.Add(time.Second).UnixMilli())
	d.Note("later", now.Add(time.Hour).UnixMilli())
	d.Note("gone", now.Add(time.Second).UnixMilli())
	d.Forget("gone")
	if d.Due("later") != now.Add(time.Hour).UnixMilli() || d.Due("gone") != 0 {
		t.Fatalf("due later %d, gone %d", d.Due("later"), d.Due("gone"))
	}
	clk.Advance(time.Second)
	select {
	case id := <-released:
		if id != "soon" {
			t.Fatalf("released %q, want soon", id)
		}
	case <-time.After(time.Minute):
		t.Fatal("nothing released by the tick after it was due")
	}
	clk.Advance(Tick)
	d.ReleaseDue(clk.Now()) // a second look finds nothing more due
	select {
	case id := <-released:
		t.Errorf("released %q again, or before it was due", id)
	default:
	}
	if d.Due("soon") != 0 || d.Due("later") == 0 {
		t.Errorf("after the release: soon %d, later %d", d.Due("soon"), d.Due("later"))
	}
}
