package store

import (
	"sync"

	bolt "go.etcd.io/bbolt"
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
	fn   func(tx *bolt.Tx) error
	done chan error
	lead chan struct{}
}

// grouped runs fn in a write transaction shared with the writers that
// arrive while the current one commits. fn may run twice: when another
// writer's function fails, the group's transaction is rolled back and
// each function is run again in a transaction of its own.
func (b *Bolt) grouped(fn func(tx *bolt.Tx) error) error {
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

	b.commitGroup(group)

	g.mu.Lock()
	if len(g.next) > 0 {
		g.next[0].lead <- struct{}{} // the group that formed meanwhile is its first writer's to commit
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return <-w.done
}

// commitGroup commits the group's functions in one transaction; if one
// fails, each runs again alone, so that one writer's error is its own.
func (b *Bolt) commitGroup(group []*groupWrite) {
	err := b.write(func(tx *bolt.Tx) error {
		for _, w := range group {
			if err := w.fn(tx); err != nil {
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
		w.done <- b.write(w.fn)
	}
}
