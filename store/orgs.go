package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/model"
	bolt "go.etcd.io/bbolt"
)

// CreateOrg stores o. Its members must be users; duplicates are dropped.
//
// # Errors
//
// ErrConflict when o.ID exists; ErrNotFound when a member is not a user;
// a *LimitError when a member already belongs to its limit of
// organizations.
func (b *Bolt) CreateOrg(ctx context.Context, o model.Org) error {
	if o.ID == "" {
		return errors.New("store: create org: empty id")
	}
	o.Members = distinct(o.Members)
	err := b.update(ctx, func(tx *bolt.Tx) error {
		orgs := tx.Bucket(bucketOrgs)
		if has(orgs, []byte(o.ID)) {
			return fmt.Errorf("id taken: %w", ErrConflict)
		}
		seq, err := orgIndex.add(tx, "", o.ID)
		if err != nil {
			return err
		}
		for _, m := range o.Members {
			if err := b.checkRoom(boltKV{tx}, CountOrgs, m); err != nil {
				return err
			}
			if err := addMembership(tx, o.ID, seq, m); err != nil {
				return err
			}
		}
		return putJSON(orgs, o.ID, o)
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

// addMembership indexes user userID as a member of the org created with seq.
func addMembership(tx *bolt.Tx, orgID string, seq uint64, userID string) error {
	if !has(tx.Bucket(bucketUsers), []byte(userID)) {
		return fmt.Errorf("user %q: %w", userID, ErrNotFound)
	}
	k := append(key(userID), be8(seq)...)
	return tx.Bucket(bucketOrgMembers).Put(k, []byte(orgID))
}

// GetOrg returns the org with id, or ErrNotFound.
func (b *Bolt) GetOrg(ctx context.Context, id string) (model.Org, error) {
	var o model.Org
	err := b.view(ctx, func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketOrgs), id, &o)
	})
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
func (b *Bolt) AddOrgMember(ctx context.Context, orgID, userID string) (model.Org, error) {
	var o model.Org
	err := b.update(ctx, func(tx *bolt.Tx) error {
		orgs := tx.Bucket(bucketOrgs)
		if err := getJSON(orgs, orgID, &o); err != nil {
			return err
		}
		if !has(tx.Bucket(bucketUsers), []byte(userID)) {
			return fmt.Errorf("user %q: %w", userID, ErrNotFound)
		}
		if slices.Contains(o.Members, userID) {
			return nil
		}
		if err := b.checkRoom(boltKV{tx}, CountOrgs, userID); err != nil {
			return err
		}
		seq, ok := orgIndex.seq(tx, orgID)
		if !ok {
			return fmt.Errorf("org %q has no index entry", orgID)
		}
		if err := addMembership(tx, orgID, seq, userID); err != nil {
			return err
		}
		o.Members = append(o.Members, userID)
		return putJSON(orgs, orgID, o)
	})
	if err != nil {
		return model.Org{}, fmt.Errorf("store: add member to org %q: %w", orgID, err)
	}
	return o, nil
}

// OrgsOfUser returns the orgs userID is a member of, in creation order.
func (b *Bolt) OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error) {
	orgs := []model.Org{}
	err := b.view(ctx, func(tx *bolt.Tx) error {
		_, ids := scanPrefix(tx.Bucket(bucketOrgMembers), key(userID))
		for _, id := range ids {
			var o model.Org
			if err := getJSON(tx.Bucket(bucketOrgs), string(id), &o); err != nil {
				return err
			}
			orgs = append(orgs, o)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: orgs of user %q: %w", userID, err)
	}
	return orgs, nil
}
