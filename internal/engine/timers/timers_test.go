package timers

import (
	"log/slog"
	"slices"
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
	onTheMinute := now.Add(-5*time.Minute - 30*time.Second) // anchored at 11:55:00: ticks on the minute
	tests := []struct {
		name   string
		anchor time.Time
		last   time.Time // zero: never fired
		want   time.Time
	}{
		{"deployed now: one interval from now", now, time.Time{}, now.Add(time.Minute)},
		{"fired recently: the schedule goes on", onTheMinute, now.Add(-30 * time.Second), now.Add(30 * time.Second)},
		{"down past one tick: one catch-up fire at once, for the tick missed first", onTheMinute, now.Add(-90 * time.Second), now.Add(-30 * time.Second)},
		{"down for days: still one catch-up fire", onTheMinute.Add(-96 * time.Hour), now.Add(-72*time.Hour - 30*time.Second), now.Add(-72*time.Hour + 30*time.Second)},
		{"down since deployed: one catch-up fire", now.Add(-time.Hour), time.Time{}, now.Add(-time.Hour + time.Minute)},
		{"changed since it last fired: one interval from the change", now.Add(-10 * time.Second), now.Add(-90 * time.Second), now.Add(50 * time.Second)},
	}
	for _, tt := range tests {
		every, err := component.TimerSpec{IntervalSeconds: &minute}.Schedule(tt.anchor)
		if err != nil {
			t.Fatal(err)
		}
		var lastMs int64
		if !tt.last.IsZero() {
			lastMs = tt.last.UnixMilli()
		}
		if got := firstFire(every, tt.anchor, lastMs); !got.Equal(tt.want) {
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
	s := New(clk, slog.New(slog.DiscardHandler), func(id, _ string, spec component.TimerSpec, at time.Time) {
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
	s.Arm("dc_early", clk.Now(), map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.Count() != 0 {
		t.Fatal("a timer armed before Start")
	}
	s.Start()
	s.Arm("dc_a", clk.Now(), map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	s.Arm("dc_b", clk.Now(), map[string]component.TimerSpec{"t": {Cron: &cronExpr}, "bad": {}})
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
	s.Arm("dc_c", clk.Now(), map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.Count() != 0 {
		t.Error("a timer armed after Stop")
	}
}

// TestNodesNameTicksAlike: two nodes arm one timer at different moments,
// one of them after a restart; each names the same ticks, so that the
// store can queue each tick once whichever node fires it.
func TestNodesNameTicksAlike(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	anchor := clk.Now()
	ten := int64(10)
	spec := map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}}
	var mu sync.Mutex
	dues := map[string][]time.Time{}
	node := func(name string) *Set[string] {
		s := New(clk, slog.New(slog.DiscardHandler), func(_, _ string, _ component.TimerSpec, due time.Time) {
			mu.Lock()
			defer mu.Unlock()
			dues[name] = append(dues[name], due)
		}, func(string) (int64, error) { return 0, nil })
		s.Start()
		t.Cleanup(s.Stop)
		return s
	}
	node("a").Arm("dc_1", anchor, spec)
	clk.Advance(3700 * time.Millisecond)
	node("b").Arm("dc_1", anchor, spec)
	clk.Advance(27 * time.Second) // ticks at 10, 20 and 30 s
	mu.Lock()
	defer mu.Unlock()
	want := []time.Time{anchor.Add(10 * time.Second), anchor.Add(20 * time.Second), anchor.Add(30 * time.Second)}
	for _, name := range []string{"a", "b"} {
		if !slices.EqualFunc(dues[name], want, time.Time.Equal) {
			t.Errorf("node %s fired ticks %v, want %v", name, dues[name], want)
		}
	}
}
