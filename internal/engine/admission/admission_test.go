package admission

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

const mib = 1 << 20

// TestBoundsByCountAndBytes: an account holds at most its count and its
// bytes, the server its bytes; a call past them waits until a place is
// released, and one that never fits is refused at once.
func TestBoundsByCountAndBytes(t *testing.T) {
	t.Parallel()
	a := New(Config{AccountSandboxes: 3, AccountBytes: 256 * mib, ServerBytes: 320 * mib})
	ctx := context.Background()
	var releases []func()
	for range 3 {
		r, err := a.Acquire(ctx, "u_a", "p_1", 64*mib)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := a.Acquire(short, "u_a", "p_1", 64*mib)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Never || !strings.Contains(err.Error(), "--account-sandboxes") {
		t.Fatalf("a fourth sandbox of an account of three: %v, want a BusyError naming the flags", err)
	}
	// Another account has room by count, and the server by bytes: 192 of 320.
	b1, err := a.Acquire(ctx, "u_b", "dc_1", 64*mib)
	if err != nil {
		t.Fatal(err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if _, err := a.Acquire(short2, "u_b", "dc_1", 128*mib); !errors.As(err, &busy) {
		t.Fatalf("past the server's bytes: %v, want a BusyError", err)
	}
	if _, err := a.Acquire(ctx, "u_c", "dc_2", 512*mib); !errors.As(err, &busy) || !busy.Never {
		t.Fatalf("a sandbox larger than an account may hold: %v, want a BusyError that says never", err)
	}
	// A waiting call is admitted once a place is released.
	got := make(chan error, 1)
	go func() {
		r, err := a.Acquire(ctx, "u_a", "p_1", 64*mib)
		if err == nil {
			defer r()
		}
		got <- err
	}()
	wait.Until(t, "the call to wait", wait.Short, func() bool { return a.waiting("u_a") == 1 })
	releases[0]()
	if err := <-got; err != nil {
		t.Fatalf("after a release: %v", err)
	}
	for _, r := range append(releases[1:], b1) {
		r()
	}
	if n := a.held(); n != 0 {
		t.Errorf("%d accounts still tracked once everything was released", n)
	}
}

// TestTurnsByTarget: an account's waiting calls are admitted in turn by
// target, so a workflow that asked for many places first does not hold
// back another that asks after it.
func TestTurnsByTarget(t *testing.T) {
	t.Parallel()
	a := New(Config{AccountSandboxes: 1})
	ctx := context.Background()
	first, err := a.Acquire(ctx, "u_a", "p_burst", mib)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	ask := func(target string) {
		wg.Go(func() {
			r, err := a.Acquire(ctx, "u_a", target, mib)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, target)
			mu.Unlock()
			r()
		})
	}
	for i := range 5 {
		ask("p_burst")
		wait.Until(t, "the burst to queue", wait.Short, func() bool { return a.waiting("u_a") == i+1 })
	}
	ask("p_other")
	wait.Until(t, "the other workflow to queue", wait.Short, func() bool { return a.waiting("u_a") == 6 })
	first()
	wg.Wait()
	if i := indexOf(order, "p_other"); i < 0 || i > 1 {
		t.Errorf("admitted in the order %v: the other workflow waited behind the burst", order)
	}
}

// TestCancelledWaitLeavesNoPlace: a call whose context ends while it
// waits holds nothing, and a call behind it still gets in.
func TestCancelledWaitLeavesNoPlace(t *testing.T) {
	t.Parallel()
	a := New(Config{AccountSandboxes: 1})
	ctx := context.Background()
	held, _ := a.Acquire(ctx, "u_a", "p_1", mib)
	gone, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := a.Acquire(gone, "u_a", "p_1", mib); done <- err }()
	wait.Until(t, "the call to wait", wait.Short, func() bool { return a.waiting("u_a") == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v, want context.Canceled", err)
	}
	held()
	r, err := a.Acquire(ctx, "u_a", "p_1", mib)
	if err != nil {
		t.Fatalf("after a cancelled wait: %v", err)
	}
	r()
	if n := a.held(); n != 0 {
		t.Errorf("%d accounts tracked", n)
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// waiting is how many calls of accountID wait.
func (a *Admission) waiting(accountID string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if acc := a.accounts[accountID]; acc != nil {
		return len(acc.waiting)
	}
	return 0
}

// held is how many accounts are tracked.
func (a *Admission) held() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.accounts)
}
