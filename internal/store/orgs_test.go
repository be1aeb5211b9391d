package store

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestOrgs(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b orgsAPI) {
		for _, id := range []string{"u_a", "u_b", "u_c"} {
			mustUser(t, b, id, "")
		}
		orgs := []model.Org{
			{ID: "o_1", Orgname: "one", Name: "One", Members: []string{"u_a"}, CreatedAt: 1},
			{ID: "o_2", Orgname: "two", Name: "Two", Members: []string{"u_b", "u_a", "u_b"}, CreatedAt: 2},
			{ID: "o_3", Orgname: "three", Name: "Three", Members: []string{"u_b"}, CreatedAt: 3},
		}
		for _, o := range orgs {
			wantErr(t, "CreateOrg "+o.ID, b.CreateOrg(ctx, o), nil)
		}
		wantErr(t, "CreateOrg taken id", b.CreateOrg(ctx, model.Org{ID: "o_1"}), ErrConflict)
		wantErr(t, "CreateOrg unknown member", b.CreateOrg(ctx, model.Org{ID: "o_4", Members: []string{"u_zz"}}), ErrNotFound)
		if _, err := b.GetOrg(ctx, "o_4"); err == nil {
			t.Error("o_4 exists after a refused create")
		}
		if err := b.CreateOrg(ctx, model.Org{}); err == nil {
			t.Error("CreateOrg with an empty id succeeded")
		}

		o2, err := b.GetOrg(ctx, "o_2")
		wantErr(t, "GetOrg", err, nil)
		if !slices.Equal(o2.Members, []string{"u_b", "u_a"}) || o2.Orgname != "two" {
			t.Errorf("GetOrg(o_2) = %+v", o2)
		}
		_, err = b.GetOrg(ctx, "o_zz")
		wantErr(t, "GetOrg unknown", err, ErrNotFound)

		// u_c joins o_3 (created last) and then o_1: OrgsOfUser still lists
		// them in creation order.
		addTests := []struct {
			org, user   string
			wantMembers []string
			want        error
		}{
			{"o_3", "u_c", []string{"u_b", "u_c"}, nil},
			{"o_1", "u_c", []string{"u_a", "u_c"}, nil},
			{"o_1", "u_c", []string{"u_a", "u_c"}, nil}, // idempotent
			{"o_1", "u_zz", nil, ErrNotFound},
			{"o_zz", "u_a", nil, ErrNotFound},
		}
		for _, tt := range addTests {
			o, err := b.AddOrgMember(ctx, tt.org, tt.user)
			wantErr(t, "AddOrgMember "+tt.org+" "+tt.user, err, tt.want)
			if !slices.Equal(o.Members, tt.wantMembers) {
				t.Errorf("AddOrgMember(%s, %s) members = %v, want %v", tt.org, tt.user, o.Members, tt.wantMembers)
			}
		}
		o1, _ := b.GetOrg(ctx, "o_1")
		if !slices.Equal(o1.Members, []string{"u_a", "u_c"}) {
			t.Errorf("stored o_1 members = %v", o1.Members)
		}

		ofTests := []struct {
			user string
			want []string
		}{
			{"u_a", []string{"o_1", "o_2"}},
			{"u_b", []string{"o_2", "o_3"}},
			{"u_c", []string{"o_1", "o_3"}},
			{"u_zz", []string{}},
		}
		for _, tt := range ofTests {
			got, err := b.OrgsOfUser(ctx, tt.user)
			wantErr(t, "OrgsOfUser", err, nil)
			ids := []string{}
			for _, o := range got {
				ids = append(ids, o.ID)
			}
			if got == nil || !slices.Equal(ids, tt.want) {
				t.Errorf("OrgsOfUser(%s) = %v, want %v", tt.user, ids, tt.want)
			}
		}
	})
}
