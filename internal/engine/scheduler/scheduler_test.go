package scheduler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/wait"
)

func TestSchedulerFairnessAndStop(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	var mu sync.Mutex
	var order []string
	remaining := map[string]int{"dc_busy": 3, "dc_quiet": 1}
	gate := make(chan struct{}) // the first drain waits until both sources are kicked
	var s *Scheduler[string]
	s = New(clk, 1, func(string) string { return "" }, func(ctx context.Context, id string) {
		<-gate
		mu.Lock()
		order = append(order, id)
		remaining[id]--
		more := remaining[id] > 0
		mu.Unlock()
		if more {
			s.Kick(id) // a batch left work: back of the queue
		}
	})
	s.Kick("dc_busy") // before Start: dropped
	s.Start(1)
	s.Kick("dc_busy")
	s.Kick("dc_quiet")
	close(gate)
	wait.Until(t, "both sources to drain", wait.Short, s.Idle)
	mu.Lock()
	got := strings.Join(order, " ")
	mu.Unlock()
	if got != "dc_busy dc_quiet dc_busy dc_busy" {
		t.Errorf("drain order %q: a busy source must go to the back of the queue", got)
	}

	s.KickAfter("dc_quiet", time.Second)
	s.Stop()
	s.Stop()
	clk.Advance(time.Minute)
	s.Kick("dc_quiet")
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
	s := New(clock.NewFake(), 1, accountByPrefix, func(ctx context.Context, id string) {
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
	s.Kick("dc_a1")
	s.Kick("dc_a2")
	s.Kick("dc_a3")
	wait.Until(t, "a1 to start", wait.Short, isStarted("dc_a1"))
	s.Kick("dc_b1")
	wait.Until(t, "b1 to start beside a1, ahead of a's queue", wait.Short, isStarted("dc_b1"))
	if isStarted("dc_a2")() || isStarted("dc_a3")() {
		t.Fatal("account a holds more than its one worker")
	}
	close(release["dc_a1"])
	wait.Until(t, "a2 to start when a1 is done", wait.Short, isStarted("dc_a2"))
	if isStarted("dc_a3")() {
		t.Fatal("a3 started beside a2")
	}
	close(release["dc_a2"])
	close(release["dc_a3"])
	close(release["dc_b1"])
	wait.Until(t, "every source to drain", wait.Short, s.Idle)
}

// TestSchedulerJobs: a job goes before its account's queued drains, in
// the account's share; one that no worker took is dropped when its caller
// gives up; Stop drops those waiting, and later jobs are refused.
func TestSchedulerJobs(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	hold := make(chan struct{})
	s := New(clock.NewFake(), 1, accountByPrefix, func(ctx context.Context, id string) {
		mu.Lock()
		order = append(order, id)
		mu.Unlock()
		if id == "dc_a1" {
			<-hold
		}
	})
	s.Start(2)
	s.Kick("dc_a1")
	wait.Until(t, "a1 to hold a's worker", wait.Short, func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 1 })
	s.Kick("dc_a2")
	jobDone := make(chan error, 1)
	go func() {
		jobDone <- s.Run(context.Background(), "a", func(context.Context) {
			mu.Lock()
			order = append(order, "job")
			mu.Unlock()
		})
	}()
	// A caller that gives up before a worker is free leaves nothing behind.
	gaveUp, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(gaveUp, "a", func(context.Context) { t.Error("a dropped job ran") }); !errors.Is(err, context.Canceled) {
		t.Errorf("run with a cancelled context = %v", err)
	}
	wait.Until(t, "the job to queue", wait.Short, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.accounts["a"].waiting) == 2
	})
	close(hold)
	if err := <-jobDone; err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "a2 to drain", wait.Short, s.Idle)
	mu.Lock()
	got := strings.Join(order, " ")
	mu.Unlock()
	if got != "dc_a1 job dc_a2" {
		t.Errorf("order %q, want the job before the queued drain", got)
	}

	// b's first job holds b's worker until Stop cancels it; its second
	// waits, and Stop drops it.
	go func() { _ = s.Run(context.Background(), "b", func(ctx context.Context) { <-ctx.Done() }) }()
	wait.Until(t, "b's first job to run", wait.Short, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.accounts["b"] != nil && s.accounts["b"].running == 1
	})
	waiting := make(chan error, 1)
	go func() {
		waiting <- s.Run(context.Background(), "b", func(context.Context) { t.Error("a job dropped by Stop ran") })
	}()
	wait.Until(t, "b's second job to wait", wait.Short, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.accounts["b"].waiting) == 1 })
	s.Stop()
	if err := <-waiting; !errors.Is(err, ErrStopped) {
		t.Errorf("a job waiting at Stop = %v, want ErrStopped", err)
	}
	if err := s.Run(context.Background(), "b", func(context.Context) { t.Error("ran after Stop") }); !errors.Is(err, ErrStopped) {
		t.Errorf("run after Stop = %v, want ErrStopped", err)
	}
}

func TestSchedulerRetry(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	var drains atomic.Int32
	s := New(clk, 1, func(string) string { return "" }, func(context.Context, string) { drains.Add(1) })
	s.Start(2)
	defer s.Stop()
	s.KickAfter("dc_a", time.Second)
	s.KickAfter("dc_a", time.Second) // one retry pending at a time
	clk.Advance(999 * time.Millisecond)
	if !s.Idle() || drains.Load() != 0 {
		t.Fatal("a retry ran early")
	}
	clk.Advance(time.Millisecond)
	wait.Until(t, "the retry", wait.Short, func() bool { return drains.Load() == 1 && s.Idle() })
}
