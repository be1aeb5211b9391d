// Package admission bounds the sandboxes that tenants' code holds at
// once. Each call into a sandbox holds an instance, whose memory is the
// call's memory limit at worst; the engine's worker pool bounds the calls
// of sources, hooks and introspection, but a workflow's concurrency runs
// many executions, and so many instances, in one worker. So every call
// is admitted first: an account holds at most Config.AccountSandboxes
// instances, and Config.AccountBytes of their memory limits together,
// and all accounts together Config.ServerBytes. A call that does not fit
// waits, until its deadline at most; an account's waiting calls are
// admitted in turn by target (source or workflow), so that one
// workflow's burst takes no more of its account's share than another
// workflow asking at the same time.
package admission

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Config bounds the sandboxes held at once.
type Config struct {
	AccountSandboxes int   // instances of one account; <= 0: no bound
	AccountBytes     int64 // memory limits of one account's instances; <= 0: no bound
	ServerBytes      int64 // memory limits of every account's instances; <= 0: no bound
}

// Admission admits calls into sandboxes. It is safe for concurrent use.
type Admission struct {
	cfg Config

	mu          sync.Mutex
	serverBytes int64
	accounts    map[string]*account
}

// account is what one account holds, and its calls waiting.
type account struct {
	count   int
	bytes   int64
	waiting []*waiter // in arrival order
	served  string    // the target last admitted from waiting
}

type waiter struct {
	target   string
	bytes    int64
	admitted chan struct{} // closed once the waiter holds its place
}

// New returns an Admission with cfg's bounds.
func New(cfg Config) *Admission {
	return &Admission{cfg: cfg, accounts: map[string]*account{}}
}

// BusyError is a call that found no room until its deadline, or that
// could never fit.
type BusyError struct {
	Bounds Config
	Bytes  int64 // the call's
	Never  bool  // the call alone is over a bound
}

func (e *BusyError) Error() string {
	if e.Never {
		return fmt.Sprintf("a sandbox of %d MiB is over what one account may hold (%d MiB, --account-sandbox-memory) or the server (%d MiB, --sandbox-memory)",
			e.Bytes>>20, e.Bounds.AccountBytes>>20, e.Bounds.ServerBytes>>20)
	}
	return fmt.Sprintf("no sandbox was free before the call's deadline: an account holds at most %d sandboxes at once and %d MiB of their memory (--account-sandboxes, --account-sandbox-memory), the server %d MiB (--sandbox-memory); lower the workflows' concurrency",
		e.Bounds.AccountSandboxes, e.Bounds.AccountBytes>>20, e.Bounds.ServerBytes>>20)
}

// Acquire waits until accountID may hold one more sandbox of bytes, for
// target, and returns its release; a *BusyError when ctx ends first (or
// ctx's error, when it was cancelled rather than timed out), or at once
// when the call can never fit.
func (a *Admission) Acquire(ctx context.Context, accountID, target string, bytes int64) (release func(), err error) {
	if (a.cfg.AccountBytes > 0 && bytes > a.cfg.AccountBytes) || (a.cfg.ServerBytes > 0 && bytes > a.cfg.ServerBytes) {
		return nil, &BusyError{Bounds: a.cfg, Bytes: bytes, Never: true}
	}
	release = func() { a.release(accountID, bytes) }
	a.mu.Lock()
	acc := a.accounts[accountID]
	if acc == nil {
		acc = &account{}
		a.accounts[accountID] = acc
	}
	if len(acc.waiting) == 0 && a.fits(acc, bytes) {
		a.take(acc, bytes)
		acc.served = target
		a.mu.Unlock()
		return release, nil
	}
	w := &waiter{target: target, bytes: bytes, admitted: make(chan struct{})}
	acc.waiting = append(acc.waiting, w)
	a.mu.Unlock()

	select {
	case <-w.admitted:
		return release, nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.admitted: // admitted as ctx ended: give the place back
		a.mu.Unlock()
		release()
	default:
		acc.waiting = slices.DeleteFunc(acc.waiting, func(o *waiter) bool { return o == w })
		a.forget(accountID, acc)
		a.admitWaiting() // a waiter behind it may fit where it did not
		a.mu.Unlock()
	}
	if ctx.Err() == context.Canceled {
		return nil, ctx.Err()
	}
	return nil, &BusyError{Bounds: a.cfg, Bytes: bytes}
}

// Stats are what all accounts hold now, and how many calls wait.
func (a *Admission) Stats() (held int, bytes int64, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, acc := range a.accounts {
		held += acc.count
		waiting += len(acc.waiting)
	}
	return held, a.serverBytes, waiting
}

// fits reports whether acc may hold one more sandbox of bytes. Called
// with a.mu held.
func (a *Admission) fits(acc *account, bytes int64) bool {
	return (a.cfg.AccountSandboxes <= 0 || acc.count < a.cfg.AccountSandboxes) &&
		(a.cfg.AccountBytes <= 0 || acc.bytes+bytes <= a.cfg.AccountBytes) &&
		(a.cfg.ServerBytes <= 0 || a.serverBytes+bytes <= a.cfg.ServerBytes)
}

func (a *Admission) take(acc *account, bytes int64) {
	acc.count++
	acc.bytes += bytes
	a.serverBytes += bytes
}

func (a *Admission) release(accountID string, bytes int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	acc := a.accounts[accountID]
	acc.count--
	acc.bytes -= bytes
	a.serverBytes -= bytes
	a.forget(accountID, acc)
	a.admitWaiting()
}

// forget drops an account that holds nothing and waits for nothing.
func (a *Admission) forget(accountID string, acc *account) {
	if acc.count == 0 && len(acc.waiting) == 0 {
		delete(a.accounts, accountID)
	}
}

// admitWaiting admits the waiting calls that fit now: in each account,
// in turn by target. Called with a.mu held.
func (a *Admission) admitWaiting() {
	for admitted := true; admitted; {
		admitted = false
		for _, acc := range a.accounts {
			if w := acc.next(); w != nil && a.fits(acc, w.bytes) {
				a.take(acc, w.bytes)
				acc.served = w.target
				acc.waiting = slices.DeleteFunc(acc.waiting, func(o *waiter) bool { return o == w })
				close(w.admitted)
				admitted = true
			}
		}
	}
}

// next is the waiter to admit next: the oldest waiter of the target that
// follows the one last served, in the order of their ids, round to the
// first.
func (acc *account) next() *waiter {
	if len(acc.waiting) == 0 {
		return nil
	}
	var targets []string
	for _, w := range acc.waiting {
		if !slices.Contains(targets, w.target) {
			targets = append(targets, w.target)
		}
	}
	slices.Sort(targets)
	want := targets[0]
	for _, t := range targets {
		if t > acc.served {
			want = t
			break
		}
	}
	for _, w := range acc.waiting {
		if w.target == want {
			return w
		}
	}
	return nil
}
