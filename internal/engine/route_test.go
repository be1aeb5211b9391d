package engine

import (
	"slices"
	"testing"

	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/model"
)

// TestOrgSourceRouting: an org's source is routed by the org's
// subscriptions and by its creator's exact ones, never by a member's
// personal glob.
func TestOrgSourceRouting(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	for _, s := range []model.Subscription{
		{ID: "sub_1", OwnerID: "o_team", EmitterID: "dc_*", ListenerID: "wh_team"},
		{ID: "sub_2", OwnerID: "u_member", EmitterID: "dc_*", ListenerID: "wh_member_glob"},
		{ID: "sub_3", OwnerID: "u_member", EmitterID: "dc_orgsrc", ListenerID: "wh_member_exact"},
	} {
		if _, err := te.st.PutSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := route.New(ctx, te.st, model.Emitter{ID: "dc_orgsrc", OwnerID: "o_team", UserID: "u_member"}, 8)
	if err != nil {
		t.Fatal(err)
	}
	got := listenerIDs(r.Listeners(""))
	slices.Sort(got)
	if !slices.Equal(got, []string{"wh_member_exact", "wh_team"}) {
		t.Errorf("listeners %v", got)
	}
}

func listenerIDs(ls []model.Listener) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.ID
	}
	return out
}
