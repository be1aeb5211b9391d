package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// Users and organizations are written here: the API checks the request
// and mints the user's API key (it authenticates with it), the engine
// makes the records.

// CreateUser creates a user whose API key hashes to keyHash.
func (e *Engine) CreateUser(ctx context.Context, username, email, plan, keyHash string) (model.User, error) {
	u := model.User{ID: ids.New(ids.User), Username: username, Email: email, Plan: plan, CreatedAt: e.clock.Now().Unix()}
	return u, e.store.CreateUser(ctx, u, keyHash)
}

// CreateOrg creates an organization whose first member is creator, so
// that it is usable at once.
func (e *Engine) CreateOrg(ctx context.Context, orgname, name, email, creator string) (model.Org, error) {
	o := model.Org{ID: ids.New(ids.Org), Orgname: orgname, Name: name, Email: email, Members: []string{creator}, CreatedAt: e.clock.Now().Unix()}
	return o, e.store.CreateOrg(ctx, o)
}

// AddOrgMember adds user to org, and returns the organization.
func (e *Engine) AddOrgMember(ctx context.Context, org, user string) (model.Org, error) {
	return e.store.AddOrgMember(ctx, org, user)
}
