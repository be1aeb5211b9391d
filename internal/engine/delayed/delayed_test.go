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
