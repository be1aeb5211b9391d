package store

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestConnectedAccounts(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b accountsAPI) {
		acct := func(id, owner string) model.ConnectedAccount {
			return model.ConnectedAccount{ID: id, OwnerID: owner, UserID: owner, App: "github", Name: id, Fields: map[string]string{"oauth_access_token": "sealed"}}
		}
		for _, a := range []model.ConnectedAccount{acct("apn_1", "u_a"), acct("apn_2", "u_a"), acct("apn_3", "u_b")} {
			if _, err := b.CreateConnectedAccount(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.CreateConnectedAccount(ctx, acct("apn_1", "u_b")); !errors.Is(err, ErrConflict) {
			t.Errorf("a taken id: %v, want ErrConflict", err)
		}
		var le *LimitError
		if _, err := b.CreateConnectedAccount(ctx, acct("apn_4", "u_a")); !errors.As(err, &le) || le.Kind != model.CountAccounts {
			t.Errorf("past the limit: %v, want a *LimitError", err)
		}
		got, err := b.GetConnectedAccount(ctx, "apn_2")
		if err != nil || got.Fields["oauth_access_token"] != "sealed" || got.OwnerID != "u_a" {
			t.Errorf("get = %+v, %v", got, err)
		}
		pg, err := b.ListConnectedAccounts(ctx, "u_a", Page{Limit: 10})
		if err != nil || len(pg.Items) != 2 || pg.Items[0].ID != "apn_1" || pg.Items[1].ID != "apn_2" {
			t.Errorf("list of u_a = %+v, %v", pg.Items, err)
		}
		if err := b.DeleteConnectedAccount(ctx, "apn_1"); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "get deleted", func() error { _, err := b.GetConnectedAccount(ctx, "apn_1"); return err }(), ErrNotFound)
		wantErr(t, "delete again", b.DeleteConnectedAccount(ctx, "apn_1"), ErrNotFound)
		if _, err := b.CreateConnectedAccount(ctx, acct("apn_5", "u_a")); err != nil {
			t.Errorf("a delete frees room under the limit: %v", err)
		}
	}, WithLimits(Limits{model.CountAccounts: 2}))
}

// TestAccountLimitIsAtomic: concurrent creates never pass the limit on
// either backend (on JetStream, the owner's list is read and rewritten
// with its revision checked).
func TestAccountLimitIsAtomic(t *testing.T) {
	t.Parallel()
	const limit, tries = 3, 12
	eachBackend(t, func(t *testing.T, b accountsAPI) {
		var wg sync.WaitGroup
		errs := make(chan error, tries)
		for n := range tries {
			wg.Go(func() {
				_, err := b.CreateConnectedAccount(ctx, model.ConnectedAccount{ID: fmt.Sprint("apn_", n), OwnerID: "u_a"})
				errs <- err
			})
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
				t.Errorf("CreateConnectedAccount: %v", err)
			}
		}
		pg, err := b.ListConnectedAccounts(ctx, "u_a", Page{Limit: 100})
		wantErr(t, "ListConnectedAccounts", err, nil)
		if created != limit || pg.TotalCount != limit || len(pg.Items) != limit {
			t.Fatalf("%d concurrent creates: %d succeeded, %d listed; want %d", tries, created, pg.TotalCount, limit)
		}
		var le *LimitError
		if err := b.CheckLimit(ctx, model.CountAccounts, "u_a"); !errors.As(err, &le) {
			t.Errorf("CheckLimit at the limit: %v", err)
		}
	}, WithLimits(Limits{model.CountAccounts: limit}))
}
