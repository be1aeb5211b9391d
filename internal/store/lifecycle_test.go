package store

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// TestSourceWritesCommitHookEvents: what a source's hooks emitted is
// stored and routed in the same transaction as the source write, and a
// delete keeps the deliveries and invocations its last events routed.
func TestSourceWritesCommitHookEvents(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_a", Active: true}), nil)
		toWebhook := func(ev model.Event) Routed {
			return Routed{
				Deliveries:  []model.Delivery{{ListenerID: "wh_1", EmitterID: ev.EmitterID, EventID: ev.ID, Channel: ev.Name, Payload: ev.Data}},
				Invocations: []model.Invocation{{TargetID: "dc_listener", Kind: "event", Event: ev.Data}},
			}
		}
		hooks := func(data string) RunCommit {
			return RunCommit{Events: []model.Event{{Name: "", EmitID: "e-" + data, Data: json.RawMessage(data)}}, Keep: 10, Route: toWebhook}
		}

		stored, events, err := b.CreateSource(ctx, source("dc_1", "u_a", "one"), hooks(`"deployed"`))
		wantErr(t, "CreateSource", err, nil)
		if stored.Order == 0 || len(events) != 1 || events[0].EmitterID != "dc_1" || events[0].ID == "" {
			t.Fatalf("create: source %+v, events %+v", stored, events)
		}
		updated := stored
		updated.Name = "One"
		events, err = b.UpdateSource(ctx, updated, hooks(`"activated"`))
		wantErr(t, "UpdateSource", err, nil)
		if len(events) != 1 {
			t.Fatalf("update events %+v", events)
		}
		log, err := b.ListEvents(ctx, "dc_1", "", 10)
		wantErr(t, "ListEvents", err, nil)
		if len(log) != 2 || string(log[0].Data) != `"activated"` || string(log[1].Data) != `"deployed"` {
			t.Fatalf("log after create and update: %+v", log)
		}

		events, err = b.DeleteSource(ctx, "dc_1", hooks(`"deactivate failed"`))
		wantErr(t, "DeleteSource", err, nil)
		if len(events) != 1 || events[0].ID == "" {
			t.Fatalf("delete events %+v", events)
		}
		if log, _ := b.ListEvents(ctx, "dc_1", "", 10); len(log) != 0 {
			t.Errorf("the deleted source's log survived: %+v", log)
		}
		pg, err := b.ListDeliveries(ctx, "wh_1", Page{Limit: 10})
		wantErr(t, "ListDeliveries", err, nil)
		if len(pg.Items) != 3 || string(pg.Items[0].Payload) != `"deactivate failed"` {
			t.Fatalf("deliveries %+v, want the three hook events, newest first", pg.Items)
		}
		invs, err := b.PendingInvocations(ctx, "dc_listener", 10)
		wantErr(t, "PendingInvocations", err, nil)
		if len(invs) != 3 {
			t.Fatalf("listener invocations %+v", invs)
		}

		// A refused create stores neither the source nor its hook events.
		if _, _, err := b.CreateSource(ctx, source("dc_2", "u_a", "taken"), RunCommit{}); err != nil {
			t.Fatal(err)
		}
		_, _, err = b.CreateSource(ctx, source("dc_3", "u_a", "taken"), hooks(`"never"`))
		wantErr(t, "CreateSource on a taken slug", err, ErrConflict)
		if log, _ := b.ListEvents(ctx, "dc_3", "", 10); len(log) != 0 {
			t.Errorf("a refused create stored events: %+v", log)
		}
	})
}

func TestCreationOrderAndAutoSubscriptions(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		before, _, err := b.CreateSource(ctx, source("dc_before", "u_a", "before"), RunCommit{})
		wantErr(t, "CreateSource", err, nil)
		auto, err := b.PutAutoSubscription(ctx, model.AutoSubscription{ID: "sub_a", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors", CreatedAt: before.CreatedAt})
		wantErr(t, "PutAutoSubscription", err, nil)
		after, _, err := b.CreateSource(ctx, source("dc_after", "u_a", "after"), RunCommit{})
		wantErr(t, "CreateSource", err, nil)
		if !(before.Order < auto.Order && auto.Order < after.Order) {
			t.Fatalf("orders %d, %d, %d are not increasing", before.Order, auto.Order, after.Order)
		}
		if auto.AppliesTo(before.Emitter()) || !auto.AppliesTo(after.Emitter()) {
			t.Errorf("the auto-subscription applies to before=%v after=%v; want only the later source", auto.AppliesTo(before.Emitter()), auto.AppliesTo(after.Emitter()))
		}
		again, err := b.PutAutoSubscription(ctx, model.AutoSubscription{ID: "sub_b", OwnerID: "u_a", ListenerID: "wh_1", EventName: "$errors"})
		wantErr(t, "PutAutoSubscription again", err, nil)
		if again.ID != auto.ID || again.Order != auto.Order {
			t.Errorf("an identical auto-subscription came back as %+v, want %+v", again, auto)
		}

		tests := []struct {
			name       string
			auto, src  uint64
			autoS, srS int64
			want       bool
		}{
			{"both ordered, source later", 5, 6, 100, 100, true},
			{"both ordered, source earlier", 6, 5, 100, 100, false},
			{"auto from before orders", 0, 6, 999, 100, true},
			{"source from before orders", 5, 0, 100, 999, false},
			{"neither ordered, same second: as before orders", 0, 0, 100, 100, true},
			{"neither ordered, source earlier", 0, 0, 100, 99, false},
			{"neither ordered, source later", 0, 0, 100, 101, true},
		}
		for _, tt := range tests {
			a := model.AutoSubscription{Order: tt.auto, CreatedAt: tt.autoS}
			s := model.Source{Order: tt.src, CreatedAt: tt.srS}
			if got := a.AppliesTo(s.Emitter()); got != tt.want {
				t.Errorf("%s: AppliesTo = %v", tt.name, got)
			}
		}
	})
}

// TestMigrateSchema1: a version 1 file, written as fount wrote it, opens
// with endpoint URLs turned into tokens and sealed secrets named, while an
// object prop that only looks sealed stays a plain value. bbolt only:
// the schema versions are its file's.
func TestMigrateSchema1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "fount.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := `{"name":"N","version":"1","type":"source","hooks":[],"has_additional_props":false,"configurable_props":[
		{"name":"http","type":"$.interface.http"},{"name":"token","type":"string","secret":true},{"name":"opts","type":"object"}]}`
	v1 := map[string]string{
		"sc_1": `{"id":"sc_1","owner_id":"u_a","name":"N","version":"1","code":"","code_hash":"","metadata":` + meta + `,"created_at":1,"updated_at":1}`,
		"dc_1": `{"id":"dc_1","owner_id":"u_a","user_id":"u_a","component_id":"sc_1","name":"n","name_slug":"n","active":true,"created_at":1,"updated_at":1,
			"configured_props":{"http":{"endpoint_url":"http://old.example:8080/h/AbC-12_x"},"token":{"$sealed":"c2VhbGVk"},"opts":{"$sealed":"not a secret"}}}`,
		"dc_2": `{"id":"dc_2","owner_id":"u_a","user_id":"u_a","component_id":"sc_gone","name":"m","name_slug":"m","active":true,"created_at":1,"updated_at":1,
			"configured_props":{"x":1}}`,
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{kv.Meta.Bucket, kv.Components.Bucket, kv.Sources.Bucket} {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		if err := tx.Bucket(kv.Meta.Bucket).Put([]byte("schema_version"), []byte("1")); err != nil {
			return err
		}
		if err := tx.Bucket(kv.Components.Bucket).Put([]byte("sc_1"), []byte(v1["sc_1"])); err != nil {
			return err
		}
		for _, id := range []string{"dc_1", "dc_2"} {
			if err := tx.Bucket(kv.Sources.Bucket).Put([]byte(id), []byte(v1[id])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatalf("OpenBolt of a version 1 file: %v", err)
	}
	defer b.Close()
	defer checkBolt(t, b)
	got, err := b.GetSource(ctx, "dc_1")
	wantErr(t, "GetSource", err, nil)
	if got.Endpoints["http"] != "AbC-12_x" || got.ConfiguredProps["http"] != nil {
		t.Errorf("endpoint: %+v / %s", got.Endpoints, got.ConfiguredProps["http"])
	}
	if !reflect.DeepEqual(got.SecretProps, []string{"token"}) {
		t.Errorf("SecretProps = %v, want [token] (opts is an object prop, not a secret)", got.SecretProps)
	}
	if string(got.ConfiguredProps["opts"]) != `{"$sealed":"not a secret"}` {
		t.Errorf("opts = %s", got.ConfiguredProps["opts"])
	}
	orphan, err := b.GetSource(ctx, "dc_2")
	wantErr(t, "GetSource of a source without its component", err, nil)
	if string(orphan.ConfiguredProps["x"]) != "1" {
		t.Errorf("orphan props = %v", orphan.ConfiguredProps)
	}
	comp, err := b.GetComponent(ctx, "sc_1")
	wantErr(t, "GetComponent", err, nil)
	if p, ok := comp.Metadata.Prop("http"); !ok || p.Type != component.TypeHTTP {
		t.Errorf("component metadata decoded as %+v", comp.Metadata)
	}
}

func TestDBClear(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		wantErr(t, "DBSet", b.DBSet(ctx, "dc_1", "k", []byte(`1`)), nil)
		wantErr(t, "DBSet", b.DBSet(ctx, "dc_2", "k", []byte(`2`)), nil)
		wantErr(t, "DBClear", b.DBClear(ctx, "dc_1"), nil)
		wantErr(t, "DBClear of a source without a db", b.DBClear(ctx, "dc_none"), nil)
		if _, ok, _ := b.DBGet(ctx, "dc_1", "k"); ok {
			t.Error("the cleared db still has its key")
		}
		if v, ok, _ := b.DBGet(ctx, "dc_2", "k"); !ok || string(v) != "2" {
			t.Error("another source's db was cleared")
		}
	})
}
