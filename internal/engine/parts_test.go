package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/component"
)

// Every part of the engine: Start, Stop, Stop twice, and nothing fires
// after Stop.

func TestEndpointRegistry(t *testing.T) {
	t.Parallel()
	r := newEndpointRegistry()
	r.set("dc_early", map[component.EndpointToken]endpoint{"tok0": {sourceID: "dc_early"}})
	if _, ok := r.lookup("tok0"); ok {
		t.Fatal("an endpoint registered before Start answers")
	}
	r.Start()
	r.set("dc_a", map[component.EndpointToken]endpoint{"tok1": {sourceID: "dc_a"}, "tok2": {sourceID: "dc_a", prop: "second"}})
	r.set("dc_b", map[component.EndpointToken]endpoint{"tok3": {sourceID: "dc_b"}})
	if ep, ok := r.lookup("tok2"); !ok || ep.sourceID != "dc_a" || ep.prop != "second" {
		t.Fatalf("lookup tok2 = %+v, %v", ep, ok)
	}
	r.set("dc_a", map[component.EndpointToken]endpoint{"tok4": {sourceID: "dc_a"}})
	if _, ok := r.lookup("tok1"); ok {
		t.Error("a replaced endpoint still answers")
	}
	r.remove("dc_b")
	if _, ok := r.lookup("tok3"); ok {
		t.Error("a removed endpoint still answers")
	}
	r.Stop()
	r.Stop()
	if _, ok := r.lookup("tok4"); ok {
		t.Error("an endpoint answers after Stop")
	}
	r.set("dc_c", map[component.EndpointToken]endpoint{"tok5": {sourceID: "dc_c"}})
	if _, ok := r.lookup("tok5"); ok {
		t.Error("an endpoint registered after Stop answers")
	}
}

func TestWaiterSet(t *testing.T) {
	t.Parallel()
	s := newWaiterSet()
	s.Start()
	w := s.register("r1")
	if got := s.take("r1"); got != w || s.take("r1") != nil || s.take("") != nil {
		t.Fatal("take must return a waiter once")
	}
	pending := s.register("r2")
	s.Stop()
	s.Stop()
	select {
	case <-pending.ended:
	default:
		t.Fatal("Stop did not end a waiting request")
	}
	select {
	case <-pending.released:
	default:
		t.Fatal("a request ended by Stop is not marked released (it would answer 500, not 503)")
	}
	if s.register("r3") != nil {
		t.Fatal("a waiter was registered after Stop")
	}
	pending.finish() // finishing twice is safe
}

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
	clock := newFakeClock()
	var mu sync.Mutex
	var fires []string
	var last atomic.Int64
	s := newTimerSet(clock, quiet, func(id, _ string, spec component.TimerSpec, _, at time.Time) {
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
	s.set("dc_early", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.count() != 0 {
		t.Fatal("a timer armed before Start")
	}
	s.Start()
	s.set("dc_a", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	s.set("dc_b", map[string]component.TimerSpec{"t": {Cron: &cronExpr}, "bad": {}})
	if s.count() != 2 {
		t.Fatalf("%d timers armed, want 2 (a spec without a schedule is skipped)", s.count())
	}
	clock.Advance(25 * time.Second)
	if got := fired(); got != "dc_a@12:00:10 dc_a@12:00:20" {
		t.Fatalf("fires after 25 s: %q", got)
	}
	clock.Advance(40 * time.Second)
	if got := fired(); !strings.Contains(got, "dc_b@12:01:00") || strings.Count(got, "dc_a") != 6 {
		t.Fatalf("fires after 65 s: %q", got)
	}
	s.remove("dc_a")
	s.Stop()
	s.Stop()
	before := fired()
	clock.Advance(10 * time.Minute)
	if fired() != before {
		t.Fatalf("timers fired after Stop: %q", strings.TrimPrefix(fired(), before))
	}
	if clock.pendingTimers() != 0 {
		t.Errorf("%d clock timers left armed after Stop", clock.pendingTimers())
	}
	s.set("dc_c", map[string]component.TimerSpec{"t": {IntervalSeconds: &ten}})
	if s.count() != 0 {
		t.Error("a timer armed after Stop")
	}
}

func TestSchedulerFairnessAndStop(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var mu sync.Mutex
	var order []string
	remaining := map[string]int{"dc_busy": 3, "dc_quiet": 1}
	gate := make(chan struct{}) // the first drain waits until both sources are kicked
	var s *scheduler
	s = newScheduler(clock, 1, func(string) string { return "" }, func(ctx context.Context, id string) {
		<-gate
		mu.Lock()
		order = append(order, id)
		remaining[id]--
		more := remaining[id] > 0
		mu.Unlock()
		if more {
			s.kick(id) // a batch left work: back of the queue
		}
	})
	s.kick("dc_busy") // before Start: dropped
	s.Start(1)
	s.kick("dc_busy")
	s.kick("dc_quiet")
	close(gate)
	waitFor(t, "both sources to drain", s.idle)
	mu.Lock()
	got := strings.Join(order, " ")
	mu.Unlock()
	if got != "dc_busy dc_quiet dc_busy dc_busy" {
		t.Errorf("drain order %q: a busy source must go to the back of the queue", got)
	}

	s.kickAfter("dc_quiet", time.Second)
	s.Stop()
	s.Stop()
	clock.Advance(time.Minute)
	s.kick("dc_quiet")
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 4 {
		t.Errorf("drained after Stop: %v", order[4:])
	}
}

// accountByPrefix schedules dc_a… under account a, dc_b… under b.
func accountByPrefix(id string) string { return strings.TrimPrefix(id, "dc_")[:1] }

// TestSchedulerSharesWorkersBetweenAccounts: an account holds at most its
// share of the workers, so another account's work starts at once however
// much the first has queued; within an account, work waits its turn.
func TestSchedulerSharesWorkersBetweenAccounts(t *testing.T) {
	t.Parallel()
	release := map[string]chan struct{}{}
	for _, id := range []string{"dc_a1", "dc_a2", "dc_a3", "dc_b1"} {
		release[id] = make(chan struct{})
	}
	var mu sync.Mutex
	started := map[string]bool{}
	s := newScheduler(newFakeClock(), 1, accountByPrefix, func(ctx context.Context, id string) {
		mu.Lock()
		started[id] = true
		mu.Unlock()
		select {
		case <-release[id]:
		case <-ctx.Done():
		}
	})
	s.Start(3)
	defer s.Stop()
	isStarted := func(id string) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return started[id] }
	}
	s.kick("dc_a1")
	s.kick("dc_a2")
	s.kick("dc_a3")
	waitFor(t, "a1 to start", isStarted("dc_a1"))
	s.kick("dc_b1")
	waitFor(t, "b1 to start beside a1, ahead of a's queue", isStarted("dc_b1"))
	if isStarted("dc_a2")() || isStarted("dc_a3")() {
		t.Fatal("account a holds more than its one worker")
	}
	close(release["dc_a1"])
	waitFor(t, "a2 to start when a1 is done", isStarted("dc_a2"))
	if isStarted("dc_a3")() {
		t.Fatal("a3 started beside a2")
	}
	close(release["dc_a2"])
	close(release["dc_a3"])
	close(release["dc_b1"])
	waitFor(t, "every source to drain", s.idle)
}

// TestSchedulerJobs: a job goes before its account's queued drains, in
// the account's share; one that no worker took is dropped when its caller
// gives up; Stop drops those waiting, and later jobs are refused.
func TestSchedulerJobs(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	hold := make(chan struct{})
	s := newScheduler(newFakeClock(), 1, accountByPrefix, func(ctx context.Context, id string) {
		mu.Lock()
		order = append(order, id)
		mu.Unlock()
		if id == "dc_a1" {
			<-hold
		}
	})
	s.Start(2)
	s.kick("dc_a1")
	waitFor(t, "a1 to hold a's worker", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 1 })
	s.kick("dc_a2")
	jobDone := make(chan error, 1)
	go func() {
		jobDone <- s.run(context.Background(), "a", func(context.Context) {
			mu.Lock()
			order = append(order, "job")
			mu.Unlock()
		})
	}()
	// A caller that gives up before a worker is free leaves nothing behind.
	gaveUp, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.run(gaveUp, "a", func(context.Context) { t.Error("a dropped job ran") }); !errors.Is(err, context.Canceled) {
		t.Errorf("run with a cancelled context = %v", err)
	}
	waitFor(t, "the job to queue", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.accounts["a"].waiting) == 2
	})
	close(hold)
	if err := <-jobDone; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a2 to drain", s.idle)
	mu.Lock()
	got := strings.Join(order, " ")
	mu.Unlock()
	if got != "dc_a1 job dc_a2" {
		t.Errorf("order %q, want the job before the queued drain", got)
	}

	// b's first job holds b's worker until Stop cancels it; its second
	// waits, and Stop drops it.
	go func() { _ = s.run(context.Background(), "b", func(ctx context.Context) { <-ctx.Done() }) }()
	waitFor(t, "b's first job to run", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.accounts["b"] != nil && s.accounts["b"].running == 1
	})
	waiting := make(chan error, 1)
	go func() {
		waiting <- s.run(context.Background(), "b", func(context.Context) { t.Error("a job dropped by Stop ran") })
	}()
	waitFor(t, "b's second job to wait", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.accounts["b"].waiting) == 1 })
	s.Stop()
	if err := <-waiting; !errors.Is(err, ErrStopped) {
		t.Errorf("a job waiting at Stop = %v, want ErrStopped", err)
	}
	if err := s.run(context.Background(), "b", func(context.Context) { t.Error("ran after Stop") }); !errors.Is(err, ErrStopped) {
		t.Errorf("run after Stop = %v, want ErrStopped", err)
	}
}

func TestSchedulerRetry(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var drains atomic.Int32
	s := newScheduler(clock, 1, func(string) string { return "" }, func(context.Context, string) { drains.Add(1) })
	s.Start(2)
	defer s.Stop()
	s.kickAfter("dc_a", time.Second)
	s.kickAfter("dc_a", time.Second) // one retry pending at a time
	clock.Advance(999 * time.Millisecond)
	if !s.idle() || drains.Load() != 0 {
		t.Fatal("a retry ran early")
	}
	clock.Advance(time.Millisecond)
	waitFor(t, "the retry", func() bool { return drains.Load() == 1 && s.idle() })
}

func TestBroadcaster(t *testing.T) {
	t.Parallel()
	b := newBroadcaster()
	ch, cancel := b.subscribe("dc_a")
	other, cancelOther := b.subscribe("dc_b")
	defer cancelOther()
	b.publish(evOf("dc_a", "1"), evOf("dc_b", "2"))
	if ev := <-ch; string(ev.Data) != "1" {
		t.Fatalf("dc_a got %s", ev.Data)
	}
	if ev := <-other; string(ev.Data) != "2" {
		t.Fatalf("dc_b got %s", ev.Data)
	}
	cancel()
	cancel()
	if _, ok := <-ch; ok {
		t.Fatal("a cancelled subscription is open")
	}
	slow, _ := b.subscribe("dc_c")
	for range cap(slow) + 1 {
		b.publish(evOf("dc_c", "x"))
	}
	n := 0
	for range slow {
		n++
	}
	if n != cap(slow) {
		t.Errorf("a subscriber that fell behind got %d events before being dropped, want %d", n, cap(slow))
	}
	if keys := mapKeys(b.subs); !slices.Equal(keys, []string{"dc_b"}) {
		t.Errorf("subscriptions left: %v", mapKeys(b.subs))
	}
}
