package store

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	jsengine "github.com/fount-dev/fount/internal/store/internal/jetstream"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

func TestComponents(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		first := model.Component{ID: "sc_1", OwnerID: "u_a", Key: "rss", Name: "RSS", Version: "0.1.0",
			Code: "export default {}", CodeHash: "abc", Metadata: component.Metadata{Type: component.KindSource}, CreatedAt: 1, UpdatedAt: 1}
		comps := []model.Component{
			first,
			{ID: "sc_2", OwnerID: "u_a", Key: "rss", Name: "RSS", Version: "0.2.0"},
			{ID: "sc_3", OwnerID: "u_b", Key: "rss", Version: "9.0.0"},
			{ID: "sc_4", OwnerID: "u_a", Key: ""},
		}
		for _, c := range comps {
			wantErr(t, "CreateComponent "+c.ID, createComponent(ctx, b, c), nil)
		}
		wantErr(t, "CreateComponent taken id", createComponent(ctx, b, model.Component{ID: "sc_1"}), ErrConflict)
		if err := createComponent(ctx, b, model.Component{}); err == nil {
			t.Error("CreateComponent with an empty id succeeded")
		}

		got, err := b.GetComponent(ctx, "sc_1")
		wantErr(t, "GetComponent", err, nil)
		if !reflect.DeepEqual(got, first) {
			t.Errorf("GetComponent = %+v, want %+v", got, first)
		}
		_, err = b.GetComponent(ctx, "sc_zz")
		wantErr(t, "GetComponent unknown", err, ErrNotFound)

		tests := []struct {
			owner, key string
			wantID     string
			want       error
		}{
			{"u_a", "rss", "sc_2", nil}, // the newest with that key
			{"u_b", "rss", "sc_3", nil},
			{"u_c", "rss", "", ErrNotFound},
			{"u_a", "other", "", ErrNotFound},
			{"u_a", "", "", ErrNotFound}, // the empty key is never indexed
		}
		for _, tt := range tests {
			c, err := b.ComponentByKey(ctx, tt.owner, tt.key)
			wantErr(t, "ComponentByKey "+tt.owner+"/"+tt.key, err, tt.want)
			if c.ID != tt.wantID {
				t.Errorf("ComponentByKey(%s, %s) = %q, want %q", tt.owner, tt.key, c.ID, tt.wantID)
			}
		}
	})
}

// TestLargeComponents: a component whose record is larger than a NATS
// message (a bundled vendor SDK with its source map) is stored and read
// back whole, by id, key and code, on every backend; dropped past the
// limit, it takes its parts with it.
func TestLargeComponents(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		var bundle strings.Builder
		for i := 0; bundle.Len() < 12<<20; i++ {
			fmt.Fprintf(&bundle, "var v%d = %q;\n", i, strings.Repeat(fmt.Sprint(i%10), 50))
		}
		big := model.Component{ID: "sc_big", OwnerID: "u_a", Key: "big", CodeHash: "h_big", Code: "export default {}",
			Bundle: bundle.String(), BundleMap: `{"version":3,"mappings":"` + strings.Repeat("AAAA;", 200_000) + `"}`}
		if _, err := b.CreateComponent(ctx, big); err != nil {
			t.Fatal(err)
		}
		for name, read := range map[string]func() (model.Component, error){
			"by id":   func() (model.Component, error) { return b.GetComponent(ctx, "sc_big") },
			"by key":  func() (model.Component, error) { return b.ComponentByKey(ctx, "u_a", "big") },
			"by code": func() (model.Component, error) { return b.ComponentByCode(ctx, "u_a", "h_big", "") },
		} {
			got, err := read()
			if err != nil || got.Bundle != big.Bundle || got.BundleMap != big.BundleMap || got.Code != big.Code {
				t.Fatalf("%s: %d bytes of bundle, %v; want the %d stored", name, len(got.Bundle), err, len(big.Bundle))
			}
		}
		// Saved again, equal: the same component, read whole to compare.
		if again, err := b.CreateComponent(ctx, model.Component{ID: "sc_big2", OwnerID: "u_a", Key: "big", CodeHash: "h_big", Code: big.Code,
			Bundle: big.Bundle, BundleMap: big.BundleMap}); err != nil || again.ID != "sc_big" {
			t.Fatalf("saved again: %s, %v; want sc_big", again.ID, err)
		}
		js, ok := b.(*JetStream)
		if !ok {
			return
		}
		// JetStream only: the parts are records of its own.
		if found, err := jsengine.Inspect(js.Engine).HasPart(ctx, kv.Components, "sc_big", 0); err != nil || !found {
			t.Fatalf("the first part is not stored: %v, %v", found, err)
		}
		err := js.Update(ctx, func(tx kv.Tx) error { return tx.DeleteRecord(kv.Components, "sc_big") })
		if err != nil {
			t.Fatal(err)
		}
		if found, err := jsengine.Inspect(js.Engine).HasPart(ctx, kv.Components, "sc_big", 0); err != nil || found {
			t.Errorf("a part outlived its component: %v, %v", found, err)
		}
	})
}
