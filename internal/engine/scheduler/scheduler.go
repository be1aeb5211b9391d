// Package scheduler is the engine's pool of workers: everything that runs
// component code (draining the queues of sources and workflows, and the
// lifecycle work of the API's calls) takes one of its workers, fairly
// between accounts.
package scheduler

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
)

// ErrStopped is returned by Run when the scheduler is not running.
var ErrStopped = errors.New("engine: stopped")

// Scheduler runs everything that executes component code on one bounded
// pool of workers: the queued invocations of sources (drains) and the
// lifecycle work that evaluates code in the API's name (loading a
// component, running its hooks, introspecting it), so that one limit
// bounds the CPU that tenants' code gets.
//
// Work is fair between accounts. Each account has its own queue, and
// accounts with work waiting are served round-robin; an account never
// holds more than perAccount workers, so one account's runaway sources
// take at most that share of the pool while others go on at once. Within
// an account, sources wait in the order they were kicked; a source runs on
// one worker at a time, so its invocations are serialised, and a source
// with more work kicks itself again and goes to the back of its account's
// queue. Lifecycle work goes before its account's queued drains, since a
// request waits for it, but within the account's share: an account whose
// code keeps its workers busy waits for one of them to deploy, update or
// delete (the engine bounds that wait: Run takes a context).
//
// K names what has queued work to drain (the engine's targets).
type Scheduler[K comparable] struct {
	drain      func(ctx context.Context, target K)
	accountOf  func(target K) string
	clock      clock.Clock
	perAccount int

	mu       sync.Mutex
	cond     *sync.Cond
	accounts map[string]*accountQueue[K] // accounts with work waiting or running
	ring     []string                    // accounts with work waiting (and only those), in serving order
	busy     map[K]string                // target → account, for targets queued or being drained
	dirty    map[K]bool                  // kicked again while being drained
	retries  map[K]clock.Timer
	running  bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// accountQueue is one account's work: what waits, and how many of its
// tasks hold a worker.
type accountQueue[K comparable] struct {
	waiting []task[K]
	running int
}

// task is a target to drain or a job to run.
type task[K comparable] struct {
	target K
	job    *job
}

// job is a piece of lifecycle work waiting for, or holding, a worker.
type job struct {
	fn   func(ctx context.Context)
	done chan struct{} // closed when fn has returned, or the job was dropped
	ran  bool          // fn was called
}

// New returns a scheduler whose workers drain a target with drain, in
// the turn of the account accountOf names.
func New[K comparable](clk clock.Clock, perAccount int, accountOf func(K) string, drain func(ctx context.Context, target K)) *Scheduler[K] {
	s := &Scheduler[K]{
		drain: drain, accountOf: accountOf, clock: clk, perAccount: max(1, perAccount),
		accounts: map[string]*accountQueue[K]{}, busy: map[K]string{}, dirty: map[K]bool{}, retries: map[K]clock.Timer{},
	}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Start starts the workers.
func (s *Scheduler[K]) Start(workers int) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.running, s.cancel = true, cancel
	s.mu.Unlock()
	for range workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for {
				account, t, ok := s.next()
				if !ok {
					return
				}
				if t.job != nil {
					t.job.fn(ctx)
					close(t.job.done)
				} else {
					s.drain(ctx, t.target)
				}
				s.done(account, t)
			}
		}()
	}
}

// Stop cancels the work in progress, drops the jobs still waiting (their
// callers get ErrStopped), stops pending retries and waits for the
// workers. It is safe to call twice, and before Start.
func (s *Scheduler[K]) Stop() {
	s.mu.Lock()
	s.running = false
	for id, t := range s.retries {
		t.Stop()
		delete(s.retries, id)
	}
	for _, q := range s.accounts {
		for _, t := range q.waiting {
			if t.job != nil {
				close(t.job.done)
			}
		}
		q.waiting = nil
	}
	s.ring = nil
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.cond.Broadcast()
	s.wg.Wait()
}

// Run runs fn on a worker, in account's turn, and returns when it has
// returned. fn's context is cancelled when the scheduler stops. If ctx
// ends before a worker takes the job, the job is dropped and ctx's error
// returned; ErrStopped when the scheduler is not running.
func (s *Scheduler[K]) Run(ctx context.Context, account string, fn func(ctx context.Context)) error {
	j := &job{fn: fn, done: make(chan struct{})}
	s.mu.Lock()
	if !s.running {
		s.mu.Unlock()
		return ErrStopped
	}
	s.enqueueLocked(account, task[K]{job: j})
	s.mu.Unlock()
	select {
	case <-j.done:
	case <-ctx.Done():
		s.mu.Lock()
		dropped := s.dropLocked(account, j)
		s.mu.Unlock()
		if dropped {
			return ctx.Err()
		}
		<-j.done // a worker has it: wait for it to finish
	}
	s.mu.Lock()
	ran := j.ran
	s.mu.Unlock()
	if !ran {
		return ErrStopped
	}
	return nil
}

// AccountFull reports whether account holds its whole share of the
// workers, and what the share is.
func (s *Scheduler[K]) AccountFull(account string) (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.accounts[account]
	return q != nil && q.running >= s.perAccount, s.perAccount
}

// dropLocked removes a job that no worker has taken yet.
func (s *Scheduler[K]) dropLocked(account string, j *job) bool {
	q := s.accounts[account]
	if q == nil {
		return false
	}
	i := slices.IndexFunc(q.waiting, func(t task[K]) bool { return t.job == j })
	if i < 0 {
		return false
	}
	q.waiting = slices.Delete(q.waiting, i, i+1)
	if len(q.waiting) == 0 {
		s.ring = slices.DeleteFunc(s.ring, func(a string) bool { return a == account })
	}
	s.forgetIfIdleLocked(account, q)
	return true
}

// Kick tells the scheduler that a target has queued work.
func (s *Scheduler[K]) Kick(id K) {
	account := s.accountOf(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kickLocked(account, id)
}

func (s *Scheduler[K]) kickLocked(account string, id K) {
	if !s.running {
		return
	}
	if _, busy := s.busy[id]; busy {
		s.dirty[id] = true
		return
	}
	s.busy[id] = account
	s.enqueueLocked(account, task[K]{target: id})
}

// enqueueLocked puts t in account's queue (a drain at the back, a job
// before the drains), and the account in the ring if it was not waiting
// already.
func (s *Scheduler[K]) enqueueLocked(account string, t task[K]) {
	q := s.accounts[account]
	if q == nil {
		q = &accountQueue[K]{}
		s.accounts[account] = q
	}
	if len(q.waiting) == 0 {
		s.ring = append(s.ring, account)
	}
	if t.job != nil {
		// Someone waits on a job (an API request): it goes before the
		// account's queued drains, after its other jobs.
		i := slices.IndexFunc(q.waiting, func(w task[K]) bool { return w.job == nil })
		if i >= 0 {
			q.waiting = slices.Insert(q.waiting, i, t)
			s.cond.Signal()
			return
		}
	}
	q.waiting = append(q.waiting, t)
	s.cond.Signal()
}

// KickAfter kicks a target after d, unless Stop comes first: the retry
// of a drain that failed.
func (s *Scheduler[K]) KickAfter(id K, d time.Duration) {
	account := s.accountOf(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running || s.retries[id] != nil {
		return
	}
	var t clock.Timer
	t = s.clock.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.retries[id] == t {
			delete(s.retries, id)
			s.kickLocked(account, id)
		}
	})
	s.retries[id] = t
}

// next waits for a task: the first waiting one of the first account in
// the ring that has a worker to spare. The account goes to the back of
// the ring if it has more waiting.
func (s *Scheduler[K]) next() (string, task[K], bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.running {
		for i, account := range s.ring {
			q := s.accounts[account]
			if q.running >= s.perAccount {
				continue
			}
			t := q.waiting[0]
			q.waiting = q.waiting[1:]
			q.running++
			s.ring = slices.Delete(s.ring, i, i+1)
			if len(q.waiting) > 0 {
				s.ring = append(s.ring, account)
			}
			if t.job != nil {
				t.job.ran = true
			}
			return account, t, true
		}
		s.cond.Wait() // nothing can start until work comes or a worker frees up
	}
	return "", task[K]{}, false
}

// done ends a task: the account's worker is free again, and a source
// kicked while it was drained goes to the back of its account's queue.
func (s *Scheduler[K]) done(account string, t task[K]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.accounts[account]
	q.running--
	// The freed worker may let this account, or another, run: wake every
	// worker that waits, since Signal could pick one that finds nothing.
	s.cond.Broadcast()
	if t.job != nil {
		s.forgetIfIdleLocked(account, q)
		return
	}
	id := t.target
	if s.dirty[id] && s.running {
		delete(s.dirty, id)
		s.enqueueLocked(account, task[K]{target: id})
		return
	}
	delete(s.dirty, id)
	delete(s.busy, id)
	s.forgetIfIdleLocked(account, q)
}

// forgetIfIdleLocked drops an account that has nothing waiting or running.
func (s *Scheduler[K]) forgetIfIdleLocked(account string, q *accountQueue[K]) {
	if len(q.waiting) == 0 && q.running == 0 {
		delete(s.accounts, account)
		if i := slices.Index(s.ring, account); i >= 0 {
			s.ring = slices.Delete(s.ring, i, i+1)
		}
	}
}

// Idle reports whether no target is queued or being drained.
func (s *Scheduler[K]) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.busy) == 0
}
