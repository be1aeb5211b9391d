package store

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	jsengine "github.com/fount-dev/fount/internal/store/internal/jetstream"

	"github.com/fount-dev/fount/internal/store/internal/kv"

	"github.com/fount-dev/fount/internal/model"
)

// testBackend opens a new, empty store of one backend for the tests that
// run against every backend (eachBackend).
type testBackend struct {
	name string
	open func(t testing.TB, opts ...Option) any
}

var testBackends = []testBackend{
	{"bolt", func(t testing.TB, opts ...Option) any { return openTestBolt(t, opts...) }},
	{"jetstream", func(t testing.TB, opts ...Option) any { return openTestJetStream(t, opts...) }},
}

// eachBackend runs fn, in parallel subtests, against a new store of every
// backend, opened with opts. S is the methods fn uses: while the
// JetStream backend is being built, a test names what it needs, and a
// backend without it fails the test rather than skip it.
func eachBackend[S any](t *testing.T, fn func(t *testing.T, st S), opts ...Option) {
	t.Helper()
	for _, b := range testBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, ok := b.open(t, opts...).(S)
			if !ok {
				t.Fatalf("the %s store lacks methods of %v", b.name, reflect.TypeFor[S]())
			}
			fn(t, st)
		})
	}
}

// eachReopenable runs fn, in parallel subtests, against the storage of
// every backend, which fn opens with open as often as it likes: what a
// restart of the server does. fn closes each store it opened but the
// last, which the test's cleanup checks (bbolt's file) and closes.
func eachReopenable(t *testing.T, fn func(t *testing.T, open func() testStore)) {
	t.Helper()
	t.Run("bolt", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "fount.db")
		var last *Bolt
		t.Cleanup(func() {
			if last != nil {
				checkBolt(t, last)
				_ = last.Close()
			}
		})
		fn(t, func() testStore {
			b, err := OpenBolt(path)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			last = b
			return b
		})
	})
	t.Run("jetstream", func(t *testing.T) {
		t.Parallel()
		ns := testNATS.Namespace()
		var last *JetStream
		t.Cleanup(func() {
			if last == nil {
				return
			}
			if err := jsengine.Inspect(last.Engine).DeleteStream(ctx); err != nil {
				t.Error(err)
			}
			_ = last.Close()
		})
		fn(t, func() testStore {
			s, err := OpenJetStream(ctx, JetStreamConfig{URLs: natsURL(t), Namespace: ns, Name: t.Name()})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			last = s
			return s
		})
	})
}

// checkConsistent checks what a backend can check of itself: bbolt's
// file; JetStream's stream has nothing of the kind to check.
func checkConsistent(t testing.TB, st testStore) {
	t.Helper()
	if b, ok := st.(*Bolt); ok {
		checkBolt(t, b)
	}
}

// testStore is what the shared suite runs against: every method of both
// interfaces.
type testStore interface {
	Store
	Queues
}

// The methods of each group of tests: what eachBackend needs of a store.
type (
	userCreator interface {
		CreateUser(ctx context.Context, u model.User, keyHash string) error
	}
	usersAPI interface {
		userCreator
		GetUser(ctx context.Context, id string) (model.User, error)
		UserByKeyHash(ctx context.Context, keyHash string) (model.User, error)
		AddKeyHash(ctx context.Context, userID, keyHash string) error
		CountUsers(ctx context.Context) (int, error)
	}
	orgsAPI interface {
		userCreator
		CreateOrg(ctx context.Context, o model.Org) error
		GetOrg(ctx context.Context, id string) (model.Org, error)
		AddOrgMember(ctx context.Context, orgID, userID string) (model.Org, error)
		OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error)
	}
	accountsAPI interface {
		CreateConnectedAccount(ctx context.Context, a model.ConnectedAccount) (model.ConnectedAccount, error)
		GetConnectedAccount(ctx context.Context, id string) (model.ConnectedAccount, error)
		ListConnectedAccounts(ctx context.Context, ownerID string, p Page) (PageOf[model.ConnectedAccount], error)
		DeleteConnectedAccount(ctx context.Context, id string) error
		CheckLimit(ctx context.Context, kind Counted, account string) error
	}
	dbAPI interface {
		DBGet(ctx context.Context, sourceID, key string) ([]byte, bool, error)
		DBSet(ctx context.Context, sourceID, key string, value []byte) error
		DBClear(ctx context.Context, sourceID string) error
	}
	eventsAPI interface {
		AppendEvents(ctx context.Context, emitterID string, events []model.Event, keep int) ([]model.Event, error)
		ListEvents(ctx context.Context, emitterID, channel string, limit int) ([]model.Event, error)
		PageEvents(ctx context.Context, emitterID, channel string, p EventPage) ([]model.Event, error)
		DeleteEvents(ctx context.Context, emitterID, channel, startID, endID string) (int, error)
		Channels(ctx context.Context, emitterID string) ([]string, error)
	}
	usageAPI interface {
		GetUsage(ctx context.Context, accountID, day string) (model.Usage, error)
		AddUsage(ctx context.Context, accountID, day string, invocations, computeMs int64) error
		AddNpmBytes(ctx context.Context, accountID, day string, bytes int64) error
		GetDedupe(ctx context.Context, sourceID string) (model.DedupeState, error)
	}
)

// hasEventClock reports whether st keeps an id clock for emitterID.
func hasEventClock(t *testing.T, st testStore, emitterID string) bool {
	t.Helper()
	found, err := beneathOf(st).HasEventClock(ctx, emitterID)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestCanceledContext: a canceled context fails a write and a read, and
// the write stored nothing.
func TestCanceledContext(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		if err := b.CreateUser(c, model.User{ID: "u_1"}, ""); err == nil {
			t.Fatal("CreateUser with a canceled context succeeded")
		}
		if _, err := b.GetUser(c, "u_1"); err == nil {
			t.Fatal("GetUser with a canceled context succeeded")
		}
		if _, err := b.GetUser(ctx, "u_1"); !errors.Is(err, kv.ErrNotFound) {
			t.Fatalf("the canceled CreateUser stored a user: %v", err)
		}
	})
}
