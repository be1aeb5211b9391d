package records

import (
	"context"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// The API checks a new user's request and mints the user's API key (it
// authenticates with it); the Service makes the records.

// CreateUser creates a user whose API key hashes to keyHash.
func (s *Service) CreateUser(ctx context.Context, username, email, plan, keyHash string) (model.User, error) {
	u := model.User{ID: ids.New(ids.User), Username: username, Email: email, Plan: plan, CreatedAt: s.now().Unix()}
	return u, s.store.CreateUser(ctx, u, keyHash)
}

// CreateOrg creates an organization whose first member is creator, so
// that it is usable at once.
func (s *Service) CreateOrg(ctx context.Context, orgname, name, email, creator string) (model.Org, error) {
	o := model.Org{ID: ids.New(ids.Org), Orgname: orgname, Name: name, Email: email, Members: []string{creator}, CreatedAt: s.now().Unix()}
	return o, s.store.CreateOrg(ctx, o)
}

// AddOrgMember adds user to org, and returns the organization.
func (s *Service) AddOrgMember(ctx context.Context, org, user string) (model.Org, error) {
	return s.store.AddOrgMember(ctx, org, user)
}
