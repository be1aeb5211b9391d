package store

import (
	"reflect"
	"testing"

	"github.com/fount-dev/fount/component"
	"github.com/fount-dev/fount/model"
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
