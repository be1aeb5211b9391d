package bolt

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
	bbolt "go.etcd.io/bbolt"
)

// The tests of this file are bbolt's own: group commit gathers the
// writes of EnqueueInvocation into one bbolt transaction; JetStream's
// enqueue is one message, needing none.

// TestGroupedWritesAllLand: many writers at once each get their own
// outcome, every successful one is stored once, and a failing writer
// fails alone.
func TestGroupedWritesAllLand(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	const writers = 64
	var wg sync.WaitGroup
	errs := make([]error, writers)
	ids := make([]string, writers)
	for i := range writers {
		wg.Go(func() {
			src := "dc_1"
			if i == writers/2 {
				src = "" // refused: its error must be its own
			}
			inv, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: src, Kind: "http"})
			errs[i], ids[i] = err, inv.ID
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		switch {
		case i == writers/2 && err == nil:
			t.Error("an invocation without a source was queued")
		case i != writers/2 && err != nil:
			t.Errorf("writer %d: %v", i, err)
		case i != writers/2 && seen[ids[i]]:
			t.Errorf("id %s given twice", ids[i])
		}
		seen[ids[i]] = true
	}
	pending, err := s.PendingInvocations(ctx, "dc_1", 1000)
	if err != nil || len(pending) != writers-1 {
		t.Fatalf("%d invocations queued, want %d (%v)", len(pending), writers-1, err)
	}
}

// TestGroupCommitIsolatesAFailure: when one function of a group fails,
// the others still commit, and each writer hears its own outcome.
func TestGroupCommitIsolatesAFailure(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	boom := errors.New("boom")
	put := func(key string) func(tx *bbolt.Tx) error {
		return func(tx *bbolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("group_test"))
			if err != nil {
				return err
			}
			return bk.Put([]byte(key), []byte("v"))
		}
	}
	group := []*groupWrite{
		{fn: put("a"), done: make(chan error, 1)},
		{fn: func(*bbolt.Tx) error { return boom }, done: make(chan error, 1)},
		{fn: put("c"), done: make(chan error, 1)},
	}
	s.commitGroup(group)
	for i, want := range []error{nil, boom, nil} {
		if got := <-group[i].done; !errors.Is(got, want) {
			t.Errorf("writer %d heard %v, want %v", i, got, want)
		}
	}
	err := s.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte("group_test"))
		if bk == nil || bk.Get([]byte("a")) == nil || bk.Get([]byte("c")) == nil {
			t.Error("the writes beside the failing one were not committed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupedWriteThatPanicsFailsAlone: a function that panics is its
// writer's error, and later writes still go through.
func TestGroupedWriteThatPanicsFailsAlone(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	err := s.grouped(func(*bbolt.Tx) error { panic("a bug") })
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("a panicking write answered %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_1", Kind: "http"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a write after a panicking one never returned")
	}
}
