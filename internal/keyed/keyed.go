// Package keyed serialises work by key: one lock per key in use, made
// when first wanted and dropped when the last holder or waiter leaves,
// so that locks do not accumulate over the life of a server.
package keyed

import "sync"

// Mutex locks keys. Its zero value is ready to use; it must not be
// copied after first use.
type Mutex struct {
	mu    sync.Mutex
	locks map[string]*lock
}

type lock struct {
	mu   sync.Mutex
	refs int // holders and waiters
}

// Lock locks key, waiting for its holder if it has one, and returns its
// unlock.
func (k *Mutex) Lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*lock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &lock{}
		k.locks[key] = l
	}
	l.refs++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

// Keys is how many keys are held or waited for.
func (k *Mutex) Keys() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.locks)
}

// Wanted is how many callers hold key or wait for it.
func (k *Mutex) Wanted(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if l := k.locks[key]; l != nil {
		return l.refs
	}
	return 0
}
