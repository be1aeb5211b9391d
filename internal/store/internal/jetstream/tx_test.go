package jetstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// The tests of this file are JetStream's own: its transactions (the
// revisions a batch checks, atomic batches, subjects, the size of a
// message), which bbolt, one writer over one file, has no counterpart of.

func TestJSTxWritesReadsAndDeletes(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	a, b := s.key("t", "a"), s.key("t", "b")
	err := s.update(ctx, func(tx *jsTx) error {
		tx.put(a, []byte("1"))
		tx.put(b, []byte("2"))
		if v, ok, err := tx.get(a); err != nil || !ok || string(v) != "1" {
			t.Errorf("a transaction reads its own write as %q %v %v", v, ok, err)
		}
		return nil
	})
	wantErr(t, "update", err, nil)
	wantErr(t, "delete", s.update(ctx, func(tx *jsTx) error { tx.del(a); return nil }), nil)
	err = s.view(ctx, func(tx *jsTx) error {
		if v, ok, err := tx.get(a); err != nil || ok {
			t.Errorf("a deleted key reads as %q %v %v", v, ok, err)
		}
		if v, ok, err := tx.get(b); err != nil || !ok || string(v) != "2" {
			t.Errorf("b reads as %q %v %v", v, ok, err)
		}
		if v, ok, err := tx.get(s.key("t", "never")); err != nil || ok {
			t.Errorf("a key never written reads as %q %v %v", v, ok, err)
		}
		return nil
	})
	wantErr(t, "view", err, nil)
	got, err := s.scan(ctx, s.key("t")+".>")
	if err != nil || len(got) != 1 || got[0].subject != b {
		t.Errorf("scan: %v %v, want only b", got, err)
	}
}

// TestJSTxConflictRefusesTheWholeBatch: a transaction whose read changed
// under it stores none of its writes, and a retry sees the change.
func TestJSTxConflictRefusesTheWholeBatch(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	guard, x, y := s.key("t", "guard"), s.key("t", "x"), s.key("t", "y")
	wantErr(t, "seed", s.update(ctx, func(tx *jsTx) error { tx.put(guard, []byte("0")); return nil }), nil)

	stale := s.begin(ctx)
	if _, _, err := stale.get(guard); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "change the guard", s.update(ctx, func(tx *jsTx) error { tx.put(guard, []byte("1")); return nil }), nil)
	stale.put(x, []byte("x"))
	stale.put(y, []byte("y"))
	if err := stale.commit(ctx); !errors.Is(err, errTxConflict) {
		t.Fatalf("a commit over a changed read: %v, want a conflict", err)
	}
	err := s.view(ctx, func(tx *jsTx) error {
		for _, k := range []string{x, y} {
			if _, ok, err := tx.get(k); err != nil || ok {
				t.Errorf("%s was stored by a refused batch (%v)", k, err)
			}
		}
		return nil
	})
	wantErr(t, "view", err, nil)

	// A key read as absent conflicts with its creation.
	racing := s.begin(ctx)
	if _, ok, err := racing.get(x); err != nil || ok {
		t.Fatalf("x: %v %v", ok, err)
	}
	wantErr(t, "create x", s.update(ctx, func(tx *jsTx) error { tx.put(x, []byte("first")); return nil }), nil)
	racing.put(x, []byte("second"))
	if err := racing.commit(ctx); !errors.Is(err, errTxConflict) {
		t.Fatalf("creating a key created meanwhile: %v, want a conflict", err)
	}
}

// TestJSTxConcurrentIncrements: read-modify-write transactions from many
// goroutines lose no update.
func TestJSTxConcurrentIncrements(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	counter := s.key("t", "counter")
	const workers, each = 4, 10
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				err := s.update(ctx, func(tx *jsTx) error {
					v, _, err := tx.get(counter)
					if err != nil {
						return err
					}
					n, _ := strconv.Atoi(string(v))
					tx.put(counter, []byte(strconv.Itoa(n+1)))
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	err := s.view(ctx, func(tx *jsTx) error {
		v, _, err := tx.get(counter)
		if string(v) != strconv.Itoa(workers*each) {
			t.Errorf("counter %q after %d increments", v, workers*each)
		}
		return err
	})
	wantErr(t, "view", err, nil)
}

// TestJSKeysCannotBeWildcards: a part that looks like a wildcard or holds
// a separator is one literal token.
func TestJSKeysCannotBeWildcards(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	wantErr(t, "put", s.update(ctx, func(tx *jsTx) error {
		tx.put(s.key("users", "u_alice"), []byte("alice"))
		return nil
	}), nil)
	long := strings.Repeat("k", 8000) // past the server's limit of a protocol line, unhashed
	wantErr(t, "a long key", s.update(ctx, func(tx *jsTx) error { tx.put(s.key("keys", long), []byte("v")); return nil }), nil)
	err := s.view(ctx, func(tx *jsTx) error {
		v, ok, err := tx.get(s.key("keys", long))
		if err != nil || !ok || string(v) != "v" {
			t.Errorf("a long key reads %q %v %v", v, ok, err)
		}
		return nil
	})
	wantErr(t, "view", err, nil)
	for _, id := range []string{"*", ">", "u_alice.x", "", " "} {
		err := s.view(ctx, func(tx *jsTx) error {
			if v, ok, err := tx.get(s.key("users", id)); err != nil || ok {
				t.Errorf("id %q reads %q %v %v", id, v, ok, err)
			}
			return nil
		})
		wantErr(t, "view", err, nil)
		parts, err := s.keyParts("users", s.key("users", id, "more"))
		if err != nil || len(parts) != 2 || parts[0] != id || parts[1] != "more" {
			t.Errorf("keyParts of %q: %q %v", id, parts, err)
		}
	}
}

func FuzzToken(f *testing.F) {
	for _, s := range []string{"", "u_x", "*", ">", "a.b", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, part string) {
		tok := token(part)
		if len(part) > jsMaxTokenPart {
			if _, err := untoken(tok); !errors.Is(err, errHashedPart) || len(tok) > 64 {
				t.Fatalf("token %q of a part of %d bytes", tok, len(part))
			}
			return
		}
		for _, c := range tok {
			if c == '.' || c == '*' || c == '>' || c <= ' ' {
				t.Fatalf("token %q of %q holds %q", tok, part, c)
			}
		}
		back, err := untoken(tok)
		if err != nil || back != part {
			t.Fatalf("untoken(token(%q)) = %q, %v", part, back, err)
		}
		_, _ = untoken(part) // must not panic on anything
	})
}

// TestJSTooLargeIsSaid: a record past the servers' max_payload is refused
// before anything is sent, with kv.ErrTooLarge naming the sizes (the
// connection would otherwise fail the publish with a bare error).
func TestJSTooLargeIsSaid(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	err := s.update(ctx, func(tx *jsTx) error {
		tx.put(s.key("big", "1"), make([]byte, 9<<20))
		tx.put(s.key("small", "1"), []byte("x"))
		return nil
	})
	if !errors.Is(err, kv.ErrTooLarge) || !strings.Contains(err.Error(), "max_payload") {
		t.Fatalf("a 9 MiB record: %v, want kv.ErrTooLarge", err)
	}
	if _, found, err := s.begin(ctx).get(s.key("small", "1")); err != nil || found {
		t.Errorf("the rest of the transaction was stored: %v, %v", found, err)
	}
}

// TestTransientErrors: which refusals of the servers are waited out.
// A refusal to place the stream's replicas is, while the stream is
// created (a cluster starting with fount has a leader before it has
// heard from every server); elsewhere it is not.
func TestTransientErrors(t *testing.T) {
	t.Parallel()
	noPeers := &jetstream.APIError{Code: 400, ErrorCode: jsErrClusterNoPeers, Description: "no suitable peers for placement, peer offline"}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"no responders", nats.ErrNoResponders, true},
		{"no leader", &jetstream.APIError{Code: 503, ErrorCode: jsErrClusterNotAvailable}, true},
		{"no peers, creating the stream", fmt.Errorf("create: %w", placementPending(noPeers)), true},
		{"no peers, elsewhere", noPeers, false},
		{"stream not found", jetstream.ErrStreamNotFound, false},
		{"other refusal, creating the stream", placementPending(&jetstream.APIError{Code: 400, ErrorCode: 10052}), false},
	}
	for _, c := range cases {
		if got := transient(c.err); got != c.want {
			t.Errorf("%s: transient(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
	if err := placementPending(noPeers); !errors.Is(err, noPeers) || err.Error() != noPeers.Error() {
		t.Errorf("placementPending hides the server's error: %v", err)
	}
}
