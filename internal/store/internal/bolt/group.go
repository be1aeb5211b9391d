package bolt

import (
	"fmt"
	"sync"

	bbolt "go.etcd.io/bbolt"
)

// groupCommit coalesces concurrent small writes (invocations queued by
// HTTP requests) into one transaction and one fsync, without waiting for
// company: a writer that finds no commit under way commits at once, and
// writers that arrive while a commit syncs form the next group, which the
// first of them commits as soon as the current one is done. bbolt's own
// Batch waits a fixed delay for company instead, which a lone writer
// pays in full.
type groupCommit struct {
	mu      sync.Mutex
	next    []*groupWrite // the group forming
	leading bool          // a group is being committed
}

// groupWrite is one writer's function and where its outcome goes: done
// with its error once committed, or lead when it is to commit the group
// it is first in.
type groupWrite struct {
	fn   func(tx *bbolt.Tx) error
	done chan error
	lead chan struct{}
}

// grouped runs fn in a write transaction shared with the writers that
// arrive while the current one commits. fn may run twice: when another
// writer's function fails, the group's transaction is rolled back and
// each function is run again in a transaction of its own.
func (b *Engine) grouped(fn func(tx *bbolt.Tx) error) error {
	g := &b.group
	w := &groupWrite{fn: fn, done: make(chan error, 1), lead: make(chan struct{}, 1)}
	g.mu.Lock()
	g.next = append(g.next, w)
	if g.leading {
		g.mu.Unlock()
		select {
		case err := <-w.done:
			return err
		case <-w.lead:
		}
		g.mu.Lock()
	}
	g.leading = true
	group := g.next
	g.next = nil
	g.mu.Unlock()
	defer g.handOff()
	b.commitGroup(group)
	return <-w.done
}

// handOff passes the commit to the first writer of the group that formed
// meanwhile, or ends the leading.
func (g *groupCommit) handOff() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.next) > 0 {
		g.next[0].lead <- struct{}{}
	} else {
		g.leading = false
	}
}

// commitGroup commits the group's functions in one transaction; if one
// fails (or panics), each runs again alone, so that one writer's error
// is its own.
func (b *Engine) commitGroup(group []*groupWrite) {
	err := b.write(func(tx *bbolt.Tx) error {
		for _, w := range group {
			if err := recovered(w.fn, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(group) == 1 {
		for _, w := range group {
			w.done <- err
		}
		return
	}
	for _, w := range group {
		w.done <- b.write(func(tx *bbolt.Tx) error { return recovered(w.fn, tx) })
	}
}

// recovered runs fn, turning a panic into its error: a writer's bug must
// not leave the others of its group waiting forever.
func recovered(fn func(tx *bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: a grouped write panicked: %v", p)
		}
	}()
	return fn(tx)
}
