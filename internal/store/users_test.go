package store

import (
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b usersAPI) {
		mustUser(t, b, "u_a", "hash-a")
		tests := []struct {
			name    string
			user    model.User
			keyHash string
			want    error
		}{
			{"new user with key", model.User{ID: "u_b"}, "hash-b", nil},
			{"new user without key", model.User{ID: "u_c"}, "", nil},
			{"second user without key", model.User{ID: "u_d"}, "", nil},
			{"id taken", model.User{ID: "u_a"}, "hash-z", ErrConflict},
			{"key taken", model.User{ID: "u_e"}, "hash-a", ErrConflict},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantErr(t, "CreateUser", b.CreateUser(ctx, tt.user, tt.keyHash), tt.want)
			})
		}
		if err := b.CreateUser(ctx, model.User{}, ""); err == nil {
			t.Error("CreateUser with an empty id succeeded")
		}
		// The refused users left nothing behind.
		if _, err := b.GetUser(ctx, "u_e"); err == nil {
			t.Error("u_e exists after a conflict")
		}
		if _, err := b.UserByKeyHash(ctx, "hash-z"); err == nil {
			t.Error("hash-z maps to a user after a conflict")
		}
		n, err := b.CountUsers(ctx)
		wantErr(t, "CountUsers", err, nil)
		if n != 4 {
			t.Errorf("CountUsers = %d, want 4", n)
		}
	})
}

func TestGetUserAndKeys(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b usersAPI) {
		if n, err := b.CountUsers(ctx); err != nil || n != 0 {
			t.Fatalf("CountUsers on empty = %d, %v", n, err)
		}
		want := model.User{ID: "u_a", Username: "ann", Email: "ann@example.com", Plan: model.PlanPaid, Owner: true, CreatedAt: 42}
		wantErr(t, "CreateUser", b.CreateUser(ctx, want, "hash-a"), nil)
		mustUser(t, b, "u_b", "hash-b")

		got, err := b.GetUser(ctx, "u_a")
		wantErr(t, "GetUser", err, nil)
		if got != want {
			t.Errorf("GetUser = %+v, want %+v", got, want)
		}
		_, err = b.GetUser(ctx, "u_zz")
		wantErr(t, "GetUser unknown", err, ErrNotFound)

		wantErr(t, "AddKeyHash", b.AddKeyHash(ctx, "u_a", "hash-a2"), nil)
		wantErr(t, "AddKeyHash again", b.AddKeyHash(ctx, "u_a", "hash-a2"), nil)
		wantErr(t, "AddKeyHash other's key", b.AddKeyHash(ctx, "u_a", "hash-b"), ErrConflict)
		wantErr(t, "AddKeyHash unknown user", b.AddKeyHash(ctx, "u_zz", "hash-q"), ErrNotFound)
		if err := b.AddKeyHash(ctx, "u_a", ""); err == nil {
			t.Error("AddKeyHash with an empty hash succeeded")
		}

		tests := []struct {
			keyHash string
			wantID  string
			want    error
		}{
			{"hash-a", "u_a", nil},
			{"hash-a2", "u_a", nil},
			{"hash-b", "u_b", nil},
			{"hash-q", "", ErrNotFound},
			{"nope", "", ErrNotFound},
			{"", "", ErrNotFound},
		}
		for _, tt := range tests {
			u, err := b.UserByKeyHash(ctx, tt.keyHash)
			wantErr(t, "UserByKeyHash("+tt.keyHash+")", err, tt.want)
			if u.ID != tt.wantID {
				t.Errorf("UserByKeyHash(%q) = %q, want %q", tt.keyHash, u.ID, tt.wantID)
			}
		}
	})
}
