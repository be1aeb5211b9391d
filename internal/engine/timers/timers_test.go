package timers

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/clock"
)

func TestFirstFire(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	minute := int64(60)
	every, _ := component.TimerSpec{IntervalSeconds: &minute}.Schedule()
	tests := []struct {
		name string
		last time.Time // zero: never fired
		want time.Time
	}{
		{"never fired: one interval from now", time.Time{}, now.Add(time.Minute)},
		{"fired recently: the schedule goes on", now.Add(-20 * time.Second), now.Add(40 * time.Second)},
		{"down past one fire: one catch-up fire at once, for the tick missed first", now.Add(-90 * time.Second), now.Add(-30 * time.Second)},
		{"down for days: still one catch-up fire", now.Add(-72 * time.Hour), now.Add(-72*time.Hour + time.Minute)},
	}
	for _, tt := range tests {
		var lastMs int64
		if !tt.last.IsZero() {
			lastMs = tt.last.UnixMilli()
		}
		if got := firstFire(every, now, lastMs); !got.Equal(tt.want) {
			t.Errorf("%s: first fire %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTimerSetFiresAndStops(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	var mu sync.Mutex
	var fires []string
	var last atomic.Int64
	s := New(clk, slog.New(slog.DiscardHandler), func(id, _ string, spec component.TimerSpec, _, at time.Time) {
		mu.Lock()
		defer mu.Unlock()
		fires = append(fires, id+"@"+at.Format("15:04:05"))
	}, func(string) (int64, error) { return last.Load(), nil })
	fired := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(fires, " ")
	}
	ten, cronExpr := int64(10), "0 * * * * *" // every 10 s; every minute on the minute
	s.Arm("dc_early", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.Count() != 0 {
		t.Fatal("a timer armed before Start")
	}
	s.Start()
	s.Arm("dc_a", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	s.Arm("dc_b", map[string]component.TimerSpec{"t": {Cron: &cronExpr}, "bad": {}})
	if s.Count() != 2 {
		t.Fatalf("%d timers armed, want 2 (a spec without a schedule is skipped)", s.Count())
	}
	clk.Advance(25 * time.Second)
	if got := fired(); got != "dc_a@12:00:10 dc_a@12:00:20" {
		t.Fatalf("fires after 25 s: %q", got)
	}
	clk.Advance(40 * time.Second)
	if got := fired(); !strings.Contains(got, "dc_b@12:01:00") || strings.Count(got, "dc_a") != 6 {
		t.Fatalf("fires after 65 s: %q", got)
	}
	s.Remove("dc_a")
	s.Stop()
	s.Stop()
	before := fired()
	clk.Advance(10 * time.Minute)
	if fired() != before {
		t.Fatalf("timers fired after Stop: %q", strings.TrimPrefix(fired(), before))
	}
	if clk.PendingTimers() != 0 {
		t.Errorf("%d clock timers left armed after Stop", clk.PendingTimers())
	}
	s.Arm("dc_c", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.Count() != 0 {
		t.Error("a timer armed after Stop")
	}
}
