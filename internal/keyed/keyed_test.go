package keyed

import (
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// TestLockSerialisesAKey: a second Lock of a key waits for the first's
// unlock, another key does not, and no lock is left once all are done.
func TestLockSerialisesAKey(t *testing.T) {
	t.Parallel()
	var k Mutex
	unlock := k.Lock("a")
	k.Lock("b")() // another key is free
	got := make(chan struct{})
	go func() {
		defer close(got)
		k.Lock("a")()
	}()
	wait.Until(t, "the second caller to wait on a", 30*time.Second, func() bool { return k.Wanted("a") == 2 })
	select {
	case <-got:
		t.Fatal("a was locked twice at once")
	default:
	}
	unlock()
	<-got
	if n := k.Keys(); n != 0 {
		t.Errorf("%d keys left locked after every unlock", n)
	}
}

// TestLockUnderContention: many callers on few keys each hold their
// key alone.
func TestLockUnderContention(t *testing.T) {
	t.Parallel()
	var k Mutex
	held := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 64 {
		key := string(rune('a' + i%4))
		wg.Go(func() {
			defer k.Lock(key)()
			mu.Lock()
			held[key]++
			n := held[key]
			mu.Unlock()
			if n != 1 {
				t.Errorf("%s held by %d at once", key, n)
			}
			mu.Lock()
			held[key]--
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := k.Keys(); n != 0 {
		t.Errorf("%d keys left locked", n)
	}
}
