package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// TestDataStores: a data store's keys are set, read, listed, expired,
// bounded and cleared on both engines, and its name is unique per owner.
func TestDataStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, 1_000_000)
		ds, err := b.CreateDataStore(ctx, model.DataStore{ID: "ds_1", OwnerID: "u_1", Name: "cache"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.CreateDataStore(ctx, model.DataStore{ID: "ds_2", OwnerID: "u_1", Name: "cache"}); !errors.Is(err, ErrConflict) {
			t.Errorf("a second store named cache: %v", err)
		}
		if _, err := b.CreateDataStore(ctx, model.DataStore{ID: "ds_3", OwnerID: "u_2", Name: "cache"}); err != nil {
			t.Errorf("another owner's cache: %v", err)
		}
		bounds := DataBounds{MaxKeys: 3, MaxBytes: 100}
		set := func(key, value string, expires int64) error {
			return b.DataSet(ctx, ds.ID, model.DataEntry{Key: key, Value: json.RawMessage(value), ExpiresAtMs: expires}, bounds)
		}
		for _, kv := range [][2]string{{"b", `2`}, {"a", `{"x":1}`}, {"b", `"two"`}} {
			if err := set(kv[0], kv[1], 0); err != nil {
				t.Fatal(err)
			}
		}
		if e, ok, err := b.DataGet(ctx, ds.ID, "b"); err != nil || !ok || string(e.Value) != `"two"` {
			t.Errorf("get b: %+v %v %v", e, ok, err)
		}
		if err := set("soon", `1`, 1_000_500); err != nil {
			t.Fatal(err)
		}
		entries, _ := b.DataEntries(ctx, ds.ID)
		if got := fmt.Sprint(keysOf(entries)); got != "[a b soon]" {
			t.Errorf("entries %s", got)
		}
		var full *DataStoreFullError
		if err := set("d", `1`, 0); !errors.As(err, &full) {
			t.Errorf("a fourth key: %v, want a full store", err)
		}
		clock.set(clock.now().Add(1000 * 1_000_000)) // soon has expired
		if _, ok, _ := b.DataGet(ctx, ds.ID, "soon"); ok {
			t.Error("an expired key is still there")
		}
		if err := set("d", `1`, 0); err != nil {
			t.Errorf("a key in the room an expired one left: %v", err)
		}
		if err := set("big", `"`+string(make([]byte, 0))+fmt.Sprintf("%0100d", 0)+`"`, 0); !errors.As(err, &full) {
			t.Errorf("a value past the bytes: %v", err)
		}
		got, _ := b.GetDataStore(ctx, ds.ID)
		if got.Keys != 3 || got.Bytes != int64(len("a")+len(`{"x":1}`)+len("b")+len(`"two"`)+len("d")+len(`1`)) {
			t.Errorf("counts %d keys, %d bytes", got.Keys, got.Bytes)
		}
		if ok, err := b.DataDelete(ctx, ds.ID, "a"); err != nil || !ok {
			t.Errorf("delete a: %v %v", ok, err)
		}
		if err := b.DataClear(ctx, ds.ID); err != nil {
			t.Fatal(err)
		}
		if entries, _ := b.DataEntries(ctx, ds.ID); len(entries) != 0 {
			t.Errorf("%d entries after a clear", len(entries))
		}
		if got, _ := b.GetDataStore(ctx, ds.ID); got.Keys != 0 || got.Bytes != 0 {
			t.Errorf("after a clear: %d keys, %d bytes", got.Keys, got.Bytes)
		}
		if err := set("k", `1`, 0); err != nil {
			t.Fatal(err)
		}
		if err := b.DeleteDataStore(ctx, ds.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.DataStoreByName(ctx, "u_1", "cache"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the deleted store by name: %v", err)
		}
		if err := set("k", `1`, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("a set on a deleted store: %v", err)
		}
		if _, err := b.CreateDataStore(ctx, model.DataStore{ID: "ds_4", OwnerID: "u_1", Name: "cache"}); err != nil {
			t.Errorf("the name of a deleted store: %v", err)
		}
		if entries, err := b.DataEntries(ctx, "ds_4"); err != nil || len(entries) != 0 {
			t.Errorf("a new store has %v, %v", entries, err)
		}
	})
}

func keysOf(entries []model.DataEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Key
	}
	return out
}
