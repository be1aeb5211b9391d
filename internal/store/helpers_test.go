package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	boltengine "github.com/fount-dev/fount/internal/store/internal/bolt"
	jsengine "github.com/fount-dev/fount/internal/store/internal/jetstream"

	"github.com/fount-dev/fount/internal/model"
)

// openTestBolt opens a Bolt in a temp dir; on cleanup it runs bbolt's
// consistency check, then closes it.
func openTestBolt(t testing.TB, opts ...Option) *Bolt {
	t.Helper()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "fount.db"), opts...)
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	mustFixtureComponent(t, b)
	t.Cleanup(func() {
		checkBolt(t, b)
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// mustFixtureComponent stores the component of source() (a source's
// component must be stored), of an owner no test uses.
func mustFixtureComponent(t testing.TB, b testStore) {
	t.Helper()
	if _, err := b.CreateComponent(ctx, model.Component{ID: "sc_fixture", OwnerID: "u_fixtures", CodeHash: "h_fixture"}); err != nil {
		t.Fatalf("CreateComponent: %v", err)
	}
}

// checkBolt fails t when bbolt finds the file inconsistent.
func checkBolt(t testing.TB, b *Bolt) {
	t.Helper()
	if err := boltengine.Inspect(b.Engine).Check(); err != nil {
		t.Errorf("bbolt check: %v", err)
	}
}

// fakeClock is a settable clock for event ids.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// withClock makes st's clock c, starting at ms: the rules' and the
// engine's.
func withClock(st any, ms int64) *fakeClock {
	c := &fakeClock{t: time.UnixMilli(ms)}
	switch st := st.(type) {
	case *Bolt:
		st.now = c.now
		boltengine.Inspect(st.Engine).SetClock(c.now)
	case *JetStream:
		st.now = c.now
		jsengine.Inspect(st.Engine).SetClock(c.now)
	default:
		panic(fmt.Sprintf("withClock of a %T", st))
	}
	return c
}

// beneath is what both engines offer the tests beneath the rules (the
// Inspector of each, in its inspect.go).
type beneath interface {
	SetClock(now func() time.Time)
	SetDeliveryBounds(kept, maxPending int)
	DeliveryBounds() (kept, maxPending int)
	DeliveryRecords(ctx context.Context) (int, error)
	DueIndex(ctx context.Context, nowMs int64) ([]model.Delivery, error)
	HasEventClock(ctx context.Context, emitterID string) (bool, error)
	ForgetEventCount(ctx context.Context, emitterID, channel string) error
}

var (
	_ beneath = boltengine.Inspector{}
	_ beneath = jsengine.Inspector{}
)

// beneathOf is what st's engine offers the tests beneath the rules.
func beneathOf(st any) beneath {
	switch st := st.(type) {
	case *Bolt:
		return boltengine.Inspect(st.Engine)
	case *JetStream:
		return jsengine.Inspect(st.Engine)
	}
	panic(fmt.Sprintf("beneathOf a %T", st))
}

// wantErr fails t unless err matches want (nil: no error).
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

var ctx = context.Background()

// mustUser creates a user with id.
func mustUser(t testing.TB, b userCreator, id, keyHash string) model.User {
	t.Helper()
	u := model.User{ID: id, Username: "name-" + id, Email: id + "@example.com", Plan: model.PlanFree, CreatedAt: 1700000000}
	if err := b.CreateUser(ctx, u, keyHash); err != nil {
		t.Fatalf("CreateUser(%s): %v", id, err)
	}
	return u
}

// createSource, updateSource and deleteSource are the source writes
// without hook events.
func createSource(ctx context.Context, b testStore, s model.Source) error {
	_, _, err := b.CreateSource(ctx, s, RunCommit{})
	return err
}

func createComponent(ctx context.Context, b testStore, c model.Component) error {
	_, err := b.CreateComponent(ctx, c)
	return err
}

func updateSource(ctx context.Context, b testStore, s model.Source) error {
	_, err := b.UpdateSource(ctx, s, RunCommit{})
	return err
}

func deleteSource(ctx context.Context, b testStore, id string) error {
	_, err := b.DeleteSource(ctx, id, RunCommit{})
	return err
}
