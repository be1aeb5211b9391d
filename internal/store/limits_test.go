package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	boltengine "github.com/fount-dev/fount/internal/store/internal/bolt"

	bolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// limited is one kind of record the limits cap, with a write that adds
// one for an account and, where the store has one, a write that removes
// the record that add made.
type limited struct {
	kind   Counted
	add    func(b testStore, account string, n int) error
	remove func(b testStore, account string, n int) error
}

func limitedKinds() []limited {
	return []limited{
		{model.CountSources,
			func(b testStore, acc string, n int) error {
				return createSource(ctx, b, source(fmt.Sprintf("dc_%s_%d", acc, n), acc, fmt.Sprint("s", n)))
			},
			func(b testStore, acc string, n int) error {
				return deleteSource(ctx, b, fmt.Sprintf("dc_%s_%d", acc, n))
			}},
		{model.CountComponents, // each run by a source: the limit drops components no source uses
			func(b testStore, acc string, n int) error {
				id := fmt.Sprintf("sc_%s_%d", acc, n)
				if err := createComponent(ctx, b, model.Component{ID: id, OwnerID: acc, CodeHash: fmt.Sprint("h", n)}); err != nil {
					return err
				}
				s := source(fmt.Sprintf("dc_%s_%d", acc, n), acc, fmt.Sprint("s", n))
				s.ComponentID = id
				return createSource(ctx, b, s)
			},
			func(b testStore, acc string, n int) error {
				return deleteSource(ctx, b, fmt.Sprintf("dc_%s_%d", acc, n))
			}},
		{model.CountWebhooks,
			func(b testStore, acc string, n int) error {
				return b.CreateWebhook(ctx, model.Webhook{ID: fmt.Sprintf("wh_%s_%d", acc, n), OwnerID: acc})
			},
			func(b testStore, acc string, n int) error {
				return b.DeleteWebhook(ctx, fmt.Sprintf("wh_%s_%d", acc, n))
			}},
		{model.CountSubscriptions, // subscriptions and auto-subscriptions, alternately: one count
			func(b testStore, acc string, n int) error {
				if n%2 == 1 {
					_, err := b.PutAutoSubscription(ctx, model.AutoSubscription{ID: fmt.Sprintf("sub_%s_%d", acc, n), OwnerID: acc, ListenerID: fmt.Sprint("wh_", n), EventName: "$errors"})
					return err
				}
				_, err := b.PutSubscription(ctx, model.Subscription{ID: fmt.Sprintf("sub_%s_%d", acc, n), OwnerID: acc, EmitterID: "dc_1", ListenerID: fmt.Sprint("wh_", n)})
				return err
			},
			func(b testStore, acc string, n int) error {
				return b.DeleteSubscription(ctx, acc, "dc_1", fmt.Sprint("wh_", n), "")
			}},
		{model.CountOrgs, // a new organization, or being added to one: one count
			func(b testStore, acc string, n int) error {
				id := fmt.Sprintf("o_%s_%d", acc, n)
				if n%2 == 1 {
					return b.CreateOrg(ctx, model.Org{ID: id, Members: []string{acc}})
				}
				if err := b.CreateOrg(ctx, model.Org{ID: id}); err != nil {
					return err
				}
				_, err := b.AddOrgMember(ctx, id, acc)
				return err
			}, nil},
	}
}

// TestLimits: each kind stops at its limit per account with a
// *LimitError and stores nothing; other accounts and other kinds are not
// affected; removing a record makes room again; 0 is no limit.
func TestLimits(t *testing.T) {
	t.Parallel()
	const limit = 3
	for _, k := range limitedKinds() {
		t.Run(string(k.kind), func(t *testing.T) {
			t.Parallel()
			t.Run("limit", func(t *testing.T) {
				eachBackend(t, func(t *testing.T, b testStore) { checkLimit(t, b, k, limit) }, WithLimits(Limits{k.kind: limit}))
			})
			t.Run("no limit", func(t *testing.T) {
				eachBackend(t, func(t *testing.T, unlimited testStore) {
					mustUser(t, unlimited, "u_a", "key")
					for n := range 3 * limit {
						wantErr(t, fmt.Sprint("unlimited add ", n), k.add(unlimited, "u_a", n), nil)
					}
				}, WithLimits(Limits{k.kind: 0}))
			})
		})
	}
}

// checkLimit is TestLimits for one kind on one store b.
func checkLimit(t *testing.T, b testStore, k limited, limit int) {
	t.Helper()
	for _, u := range []string{"u_a", "u_b"} {
		mustUser(t, b, u, "key-"+u)
	}
	for n := range limit {
		wantErr(t, fmt.Sprint("add ", n), k.add(b, "u_a", n), nil)
	}
	wantErr(t, "CheckLimit below the limit", b.CheckLimit(ctx, k.kind, "u_b"), nil)
	for _, err := range []error{k.add(b, "u_a", limit), b.CheckLimit(ctx, k.kind, "u_a")} {
		var le *LimitError
		if !errors.As(err, &le) || le.Kind != k.kind || le.Account != "u_a" || le.Max != limit {
			t.Fatalf("at the limit: %v, want a *LimitError{%s, u_a, %d}", err, k.kind, limit)
		}
	}
	// The count, read as the rules read it, shows that the refused write
	// stored nothing, on every store and for every kind.
	err := b.(kv.Engine).View(ctx, func(tx kv.Tx) error {
		n, err := countKind(tx, k.kind, "u_a")
		if err == nil && n != limit {
			err = fmt.Errorf("refused write stored something: %d, want %d", n, limit)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "another account", k.add(b, "u_b", 0), nil)
	if k.remove != nil {
		wantErr(t, "remove", k.remove(b, "u_a", 0), nil)
		wantErr(t, "add after a remove", k.add(b, "u_a", limit+1), nil)
		var le *LimitError
		if err := k.add(b, "u_a", limit+2); !errors.As(err, &le) {
			t.Fatalf("past the limit again after a remove and an add: %v, want a *LimitError", err)
		}
	}
}

// TestLimitsAreAtomic: concurrent creates cannot pass a limit, since
// each counts inside its own write transaction.
func TestLimitsAreAtomic(t *testing.T) {
	t.Parallel()
	const limit, tries = 5, 40
	eachBackend(t, func(t *testing.T, b testStore) {
		var wg sync.WaitGroup
		errs := make(chan error, tries)
		for n := range tries {
			wg.Go(func() { errs <- b.CreateWebhook(ctx, model.Webhook{ID: fmt.Sprint("wh_", n), OwnerID: "u_a"}) })
		}
		wg.Wait()
		close(errs)
		created := 0
		for err := range errs {
			var le *LimitError
			switch {
			case err == nil:
				created++
			case !errors.As(err, &le):
				t.Errorf("CreateWebhook: %v", err)
			}
		}
		pg, err := b.ListWebhooks(ctx, "u_a", Page{Limit: 100})
		wantErr(t, "ListWebhooks", err, nil)
		if created != limit || pg.TotalCount != limit {
			t.Fatalf("%d concurrent creates: %d succeeded, %d stored; want %d", tries, created, pg.TotalCount, limit)
		}
	}, WithLimits(Limits{model.CountWebhooks: limit}))
}

// TestNoOpWritesPassALimit: writes that add nothing (an existing
// subscription, unchanged code saved again) succeed at the limit.
func TestNoOpWritesPassALimit(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		sub := model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_1", ListenerID: "wh_1"}
		for _, id := range []string{"sub_1", "sub_2"} {
			sub.ID = id
			got, err := b.PutSubscription(ctx, sub)
			wantErr(t, "PutSubscription "+id, err, nil)
			if got.ID != "sub_1" {
				t.Errorf("PutSubscription %s = %s, want the existing sub_1", id, got.ID)
			}
		}
		c := model.Component{ID: "sc_1", OwnerID: "u_a", Code: "x", CodeHash: "hx"}
		for _, id := range []string{"sc_1", "sc_2"} {
			c.ID = id
			got, err := b.CreateComponent(ctx, c)
			wantErr(t, "CreateComponent "+id, err, nil)
			if got.ID != "sc_1" {
				t.Errorf("CreateComponent %s = %s, want the existing sc_1", id, got.ID)
			}
		}
	}, WithLimits(Limits{model.CountSubscriptions: 1, model.CountComponents: 1}))
}

// TestComponentsOfEqualCode: saving a component equal to one the owner
// saved (code, URL, metadata) returns that one and points its key at it;
// anything different is a new component.
func TestComponentsOfEqualCode(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		meta := component.Metadata{Type: component.KindSource, Name: "A"}
		v1 := model.Component{OwnerID: "u_a", Key: "k", Name: "A", Version: "1", Code: "one", CodeHash: "h1", Metadata: meta}
		v2 := v1
		v2.Code, v2.CodeHash, v2.Version = "two", "h2", "2"
		renamed := v1
		renamed.Name, renamed.Metadata.Name = "B", "B"
		withURL := v1
		withURL.ComponentURL = "https://example.com/a.mjs"
		other := v1
		other.OwnerID = "u_b"
		steps := []struct {
			id     string
			c      model.Component
			wantID string // the component returned, which the key then names
		}{
			{"sc_1", v1, "sc_1"},
			{"sc_2", v1, "sc_1"}, // unchanged: the same component
			{"sc_3", v2, "sc_3"},
			{"sc_4", v1, "sc_1"}, // back to v1: the key follows
			{"sc_5", renamed, "sc_5"},
			{"sc_6", withURL, "sc_6"},
			{"sc_7", other, "sc_7"},
		}
		for _, s := range steps {
			s.c.ID, s.c.CreatedAt = s.id, 100
			got, err := b.CreateComponent(ctx, s.c)
			wantErr(t, "CreateComponent "+s.id, err, nil)
			if got.ID != s.wantID {
				t.Fatalf("CreateComponent %s = %s, want %s", s.id, got.ID, s.wantID)
			}
			byKey, err := b.ComponentByKey(ctx, s.c.OwnerID, "k")
			wantErr(t, "ComponentByKey", err, nil)
			if byKey.ID != s.wantID {
				t.Fatalf("after saving %s the key names %s, want %s", s.id, byKey.ID, s.wantID)
			}
			if s.id != s.wantID {
				_, err := b.GetComponent(ctx, s.id)
				wantErr(t, "GetComponent of a component not stored", err, ErrNotFound)
			}
		}
	})
}

// TestMigrateSchema3: a version 3 file's components are counted against
// the limit once it is opened, and found by their code. bbolt only:
// the schema versions are its file's.
func TestMigrateSchema3(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/fount.db"
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	v3 := []model.Component{
		{ID: "sc_old", OwnerID: "u_a", Code: "x", CodeHash: "hx", CreatedAt: 1},
		{ID: "sc_new", OwnerID: "u_a", Code: "x", CodeHash: "hx", CreatedAt: 2},
		{ID: "sc_b", OwnerID: "u_b", Code: "y", CodeHash: "hy", CreatedAt: 1},
	}
	err = boltengine.Inspect(b.Engine).File().Update(func(tx *bolt.Tx) error { // the file as version 3 wrote it
		for _, c := range v3 {
			if err := putTestJSON(tx.Bucket(kv.Components.Bucket), c.ID, c); err != nil {
				return err
			}
		}
		for i, id := range []string{"sc_old", "sc_new"} { // sources run both: the limit may not drop them
			src := source(fmt.Sprint("dc_", i), "u_a", fmt.Sprint("s", i))
			src.ComponentID = id
			if err := putTestJSON(tx.Bucket(kv.Sources.Bucket), src.ID, src); err != nil {
				return err
			}
		}
		for _, name := range [][]byte{kv.ComponentList.Order, kv.ComponentList.Pos, kv.ComponentCode.Bucket, kv.ComponentUses.Bucket} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return tx.Bucket(kv.Meta.Bucket).Put([]byte("schema_version"), []byte("3"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenBolt(path, WithLimits(Limits{model.CountComponents: 3}))
	if err != nil {
		t.Fatalf("OpenBolt of a version 3 file: %v", err)
	}
	defer b.Close()
	defer checkBolt(t, b)
	got, err := b.CreateComponent(ctx, model.Component{ID: "sc_again", OwnerID: "u_a", Code: "x", CodeHash: "hx", CreatedAt: 3})
	wantErr(t, "CreateComponent of stored code", err, nil)
	if got.ID != "sc_new" {
		t.Errorf("saving stored code again = %s, want the newest equal one, sc_new", got.ID)
	}
	wantErr(t, "a third component", createComponent(ctx, b, model.Component{ID: "sc_3", OwnerID: "u_a", CodeHash: "h3"}), nil)
	// At the limit, a new component drops the one no source uses, and
	// keeps those the migrated sources run.
	wantErr(t, "a fourth component", createComponent(ctx, b, model.Component{ID: "sc_4", OwnerID: "u_a", CodeHash: "h4"}), nil)
	for id, want := range map[string]error{"sc_3": ErrNotFound, "sc_old": nil, "sc_new": nil, "sc_4": nil} {
		_, err := b.GetComponent(ctx, id)
		wantErr(t, "GetComponent "+id, err, want)
	}
	src := source("dc_4", "u_a", "s4")
	src.ComponentID = "sc_4"
	wantErr(t, "a source of the fourth", createSource(ctx, b, src), nil)
	var le *LimitError
	if err := createComponent(ctx, b, model.Component{ID: "sc_5", OwnerID: "u_a", CodeHash: "h5"}); !errors.As(err, &le) {
		t.Errorf("a component past the limit with every one in use: %v, want a *LimitError", err)
	}
}

// TestComponentsPastTheLimitDropTheUnreachable: with no way to delete a
// component, a save past the limit drops the least recently saved one
// that no source runs and no key names; an author is never locked out
// while one is left.
func TestComponentsPastTheLimitDropTheUnreachable(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		save := func(id, hash, key string) {
			t.Helper()
			got, err := b.CreateComponent(ctx, model.Component{ID: id, OwnerID: "u_a", Key: key, CodeHash: hash})
			wantErr(t, "save "+id, err, nil)
			if got.ID != id && got.CodeHash != hash {
				t.Fatalf("save %s returned %+v", id, got)
			}
		}
		has := func(ids ...string) {
			t.Helper()
			for _, id := range ids {
				if _, err := b.GetComponent(ctx, id); err != nil {
					t.Errorf("%s was dropped: %v", id, err)
				}
			}
		}
		dropped := func(ids ...string) {
			t.Helper()
			for _, id := range ids {
				if _, err := b.GetComponent(ctx, id); !errors.Is(err, ErrNotFound) {
					t.Errorf("%s was kept: %v", id, err)
				}
			}
		}
		save("sc_run", "h_run", "")  // a source runs it
		save("sc_old", "h_old", "")  // saved again below: most recent then
		save("sc_k1", "h_k1", "key") // its key then names sc_k2
		save("sc_k2", "h_k2", "key") // the newest of its key
		src := source("dc_1", "u_a", "s1")
		src.ComponentID = "sc_run"
		wantErr(t, "a source", createSource(ctx, b, src), nil)
		save("sc_again", "h_old", "") // equal code: returns sc_old, now the most recently saved

		save("sc_5", "h_5", "") // drops sc_k1: no key names it any more
		dropped("sc_k1")
		has("sc_run", "sc_old", "sc_k2", "sc_5")
		save("sc_6", "h_6", "") // drops sc_old, the least recently saved left
		dropped("sc_old")
		has("sc_run", "sc_k2", "sc_5", "sc_6")

		// A source moved to another component, or deleted, no longer holds
		// its old one.
		src.ComponentID = "sc_6"
		wantErr(t, "update the source", updateSource(ctx, b, src), nil)
		save("sc_7", "h_7", "") // drops sc_run, now unused
		dropped("sc_run")
		has("sc_k2", "sc_6", "sc_7")
		wantErr(t, "delete the source", deleteSource(ctx, b, "dc_1"), nil)
		save("sc_8", "h_8", "") // drops sc_5, the least recently saved unused
		save("sc_9", "h_9", "") // drops sc_6
		dropped("sc_5", "sc_6")
		has("sc_k2", "sc_7", "sc_8", "sc_9")

		// Every one in use or named: the save is refused, nothing stored.
		for i, id := range []string{"sc_7", "sc_8", "sc_9"} {
			s := source(fmt.Sprint("dc_u", i), "u_a", fmt.Sprint("u", i))
			s.ComponentID = id
			wantErr(t, "a source of "+id, createSource(ctx, b, s), nil)
		}
		var le *LimitError
		if _, err := b.CreateComponent(ctx, model.Component{ID: "sc_10", OwnerID: "u_a", CodeHash: "h_10"}); !errors.As(err, &le) {
			t.Fatalf("a save with every component in use: %v, want a *LimitError", err)
		}
		dropped("sc_10")
		has("sc_k2", "sc_7", "sc_8", "sc_9")
	}, WithLimits(Limits{model.CountComponents: 4}))
}

// TestSourceOfADroppedComponent: a component dropped for room after it
// was saved (a deploy's hooks run between the save and the source's
// write) cannot be given to a source; the write stores nothing.
func TestSourceOfADroppedComponent(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		wantErr(t, "save", createComponent(ctx, b, model.Component{ID: "sc_a", OwnerID: "u_a", CodeHash: "ha"}), nil)
		wantErr(t, "save another", createComponent(ctx, b, model.Component{ID: "sc_b", OwnerID: "u_a", CodeHash: "hb"}), nil)
		s := source("dc_1", "u_a", "one")
		s.ComponentID = "sc_a"
		wantErr(t, "a source of the dropped component", createSource(ctx, b, s), ErrComponentDropped)
		if _, err := b.GetSource(ctx, "dc_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused source was stored: %v", err)
		}
		s.ComponentID = "sc_b"
		wantErr(t, "a source of the kept component", createSource(ctx, b, s), nil)
		s.ComponentID = "sc_a"
		wantErr(t, "moving it to the dropped component", updateSource(ctx, b, s), ErrComponentDropped)
		if got, _ := b.GetSource(ctx, "dc_1"); got.ComponentID != "sc_b" {
			t.Errorf("the refused update was stored: %+v", got)
		}
	}, WithLimits(Limits{model.CountComponents: 1}))
}

// putTestJSON stores v as JSON under key in bk, as bbolt's engine does.
func putTestJSON(bk *bolt.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return bk.Put([]byte(key), data)
}
