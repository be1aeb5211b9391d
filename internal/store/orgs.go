package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// CreateOrg stores o. Its members must be users; duplicates are dropped.
//
// # Errors
//
// ErrConflict when o.ID exists; ErrNotFound when a member is not a user;
// a *LimitError when a member already belongs to its limit of
// organizations.
func (r rules) CreateOrg(ctx context.Context, o model.Org) error {
	if o.ID == "" {
		return errors.New("store: create org: empty id")
	}
	o.Members = distinct(o.Members)
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if ok, err := hasRecord(tx, kv.Orgs, o.ID); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		seq, err := tx.ListAdd(kv.OrgList, "", o.ID)
		if err != nil {
			return err
		}
		for _, m := range o.Members {
			if err := r.addMembership(tx, o.ID, seq, m); err != nil {
				return err
			}
		}
		return putRecord(tx, kv.Orgs, o.ID, o)
	})
	if err != nil {
		return fmt.Errorf("store: create org %q: %w", o.ID, err)
	}
	return nil
}

// distinct returns ids without repeats, in their first order.
func distinct(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// addMembership lists the org created with seq among user userID's, in
// the orgs' creation order, within the user's limit of organizations.
func (r rules) addMembership(tx kv.Tx, orgID string, seq uint64, userID string) error {
	if ok, err := hasRecord(tx, kv.Users, userID); err != nil || !ok {
		return errors.Join(err, fmt.Errorf("user %q: %w", userID, kv.NotFound(ok)))
	}
	if err := r.checkRoom(tx, model.CountOrgs, userID); err != nil {
		return err
	}
	return tx.ListInsert(kv.OrgMemberList, userID, orgID, seq)
}

// GetOrg returns the org with id, or ErrNotFound.
func (r rules) GetOrg(ctx context.Context, id string) (model.Org, error) {
	var o model.Org
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.Orgs, id, &o) })
	if err != nil {
		return model.Org{}, fmt.Errorf("store: get org %q: %w", id, err)
	}
	return o, nil
}

// AddOrgMember appends userID to the org's members, unless already there,
// and returns the org.
//
// # Errors
//
// ErrNotFound for an unknown org or user; a *LimitError when the user
// already belongs to its limit of organizations.
func (r rules) AddOrgMember(ctx context.Context, orgID, userID string) (model.Org, error) {
	var o model.Org
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		o = model.Org{}
		if err := getRecord(tx, kv.Orgs, orgID, &o); err != nil {
			return err
		}
		if ok, err := hasRecord(tx, kv.Users, userID); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("user %q: %w", userID, kv.NotFound(ok)))
		}
		if slices.Contains(o.Members, userID) {
			return nil
		}
		seq, ok, err := tx.ListSeq(kv.OrgList, "", orgID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("org %q has no index entry", orgID)
		}
		if err := r.addMembership(tx, orgID, seq, userID); err != nil {
			return err
		}
		o.Members = append(o.Members, userID)
		return putRecord(tx, kv.Orgs, orgID, o)
	})
	if err != nil {
		return model.Org{}, fmt.Errorf("store: add member to org %q: %w", orgID, err)
	}
	return o, nil
}

// OrgsOfUser returns the orgs userID is a member of, in creation order.
func (r rules) OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error) {
	orgs, err := listAllOf[model.Org](ctx, r, kv.OrgMemberList, kv.Orgs, userID)
	if err != nil {
		return nil, fmt.Errorf("store: orgs of user %q: %w", userID, err)
	}
	return orgs, nil
}
