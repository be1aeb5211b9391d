package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/model"
)

// CreateUser stores u and, when keyHash is not empty, maps keyHash to it.
//
// # Errors
//
// ErrConflict when u.ID exists or keyHash is already in use.
func (s *JetStream) CreateUser(ctx context.Context, u model.User, keyHash string) error {
	if u.ID == "" {
		return errors.New("store: create user: empty id")
	}
	err := s.update(ctx, func(tx *jsTx) error {
		if ok, err := tx.has(s.key(tblUsers, u.ID)); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		if u.Owner { // nodes starting together may each try to create the owner: one does
			k := s.key(tblMeta, "owner")
			if ok, err := tx.has(k); err != nil || ok {
				return errors.Join(err, ownerTaken(ok))
			}
			tx.put(k, []byte(u.ID))
		}
		if keyHash != "" {
			if err := s.putKeyHash(tx, u.ID, keyHash); err != nil {
				return err
			}
		}
		return tx.putJSON(s.key(tblUsers, u.ID), u)
	})
	if err != nil {
		return fmt.Errorf("store: create user %q: %w", u.ID, err)
	}
	return nil
}

// ownerTaken is the conflict of a second owner, or nil.
func ownerTaken(exists bool) error {
	if exists {
		return fmt.Errorf("the server has an owner: %w", ErrConflict)
	}
	return nil
}

// idTaken is the conflict of a create whose id exists, or nil.
func idTaken(exists bool) error {
	if exists {
		return fmt.Errorf("id taken: %w", ErrConflict)
	}
	return nil
}

// putKeyHash maps keyHash to userID unless it maps to another user.
func (s *JetStream) putKeyHash(tx *jsTx, userID, keyHash string) error {
	k := s.key(tblUserKeys, keyHash)
	cur, ok, err := tx.get(k)
	switch {
	case err != nil:
		return err
	case ok && string(cur) == userID:
		return nil
	case ok:
		return fmt.Errorf("key in use: %w", ErrConflict)
	}
	tx.put(k, []byte(userID))
	return nil
}

// GetUser returns the user with id, or ErrNotFound.
func (s *JetStream) GetUser(ctx context.Context, id string) (model.User, error) {
	var u model.User
	err := s.view(ctx, func(tx *jsTx) error { return tx.getJSON(s.key(tblUsers, id), &u) })
	if err != nil {
		return model.User{}, fmt.Errorf("store: get user %q: %w", id, err)
	}
	return u, nil
}

// UserByKeyHash returns the user owning the API key with that hash, or
// ErrNotFound.
func (s *JetStream) UserByKeyHash(ctx context.Context, keyHash string) (model.User, error) {
	var u model.User
	err := s.view(ctx, func(tx *jsTx) error {
		if keyHash == "" {
			return ErrNotFound
		}
		id, ok, err := tx.get(s.key(tblUserKeys, keyHash))
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		return tx.getJSON(s.key(tblUsers, string(id)), &u)
	})
	if err != nil {
		return model.User{}, fmt.Errorf("store: user by key: %w", err)
	}
	return u, nil
}

// AddKeyHash gives user userID another API key. Adding a key the user
// already has is a no-op.
//
// # Errors
//
// ErrNotFound for an unknown user; ErrConflict when another user has the key.
func (s *JetStream) AddKeyHash(ctx context.Context, userID, keyHash string) error {
	if keyHash == "" {
		return fmt.Errorf("store: add key to user %q: empty key hash", userID)
	}
	err := s.update(ctx, func(tx *jsTx) error {
		if ok, err := tx.has(s.key(tblUsers, userID)); err != nil || !ok {
			return errors.Join(err, notFound(ok))
		}
		return s.putKeyHash(tx, userID, keyHash)
	})
	if err != nil {
		return fmt.Errorf("store: add key to user %q: %w", userID, err)
	}
	return nil
}

// notFound is ErrNotFound for a record that does not exist, or nil.
func notFound(exists bool) error {
	if exists {
		return nil
	}
	return ErrNotFound
}

// CountUsers returns the number of users.
func (s *JetStream) CountUsers(ctx context.Context) (int, error) {
	users, err := s.scan(ctx, s.key(tblUsers)+".*")
	if err != nil {
		return 0, fmt.Errorf("store: count users: %w", err)
	}
	return len(users), nil
}

// CreateOrg stores o. Its members must be users; duplicates are dropped.
//
// # Errors
//
// ErrConflict when o.ID exists; ErrNotFound when a member is not a user;
// a *LimitError when a member already belongs to its limit of
// organizations.
func (s *JetStream) CreateOrg(ctx context.Context, o model.Org) error {
	if o.ID == "" {
		return errors.New("store: create org: empty id")
	}
	o.Members = distinct(o.Members)
	err := s.update(ctx, func(tx *jsTx) error {
		if ok, err := tx.has(s.key(tblOrgs, o.ID)); err != nil || ok {
			return errors.Join(err, idTaken(ok))
		}
		seq, err := tx.listAdd(orgIndex, "", o.ID)
		if err != nil {
			return err
		}
		for _, m := range o.Members {
			if err := s.addMembership(tx, o.ID, seq, m); err != nil {
				return err
			}
		}
		return tx.putJSON(s.key(tblOrgs, o.ID), o)
	})
	if err != nil {
		return fmt.Errorf("store: create org %q: %w", o.ID, err)
	}
	return nil
}

// addMembership lists the org created with seq among user userID's,
// within the user's limit of organizations.
func (s *JetStream) addMembership(tx *jsTx, orgID string, seq uint64, userID string) error {
	if ok, err := tx.has(s.key(tblUsers, userID)); err != nil || !ok {
		return errors.Join(err, fmt.Errorf("user %q: %w", userID, notFound(ok)))
	}
	if err := s.checkRoom(jsKV{tx}, CountOrgs, userID); err != nil {
		return err
	}
	return tx.listInsert(orgMemberIndex, userID, orgID, seq)
}

// GetOrg returns the org with id, or ErrNotFound.
func (s *JetStream) GetOrg(ctx context.Context, id string) (model.Org, error) {
	var o model.Org
	err := s.view(ctx, func(tx *jsTx) error { return tx.getJSON(s.key(tblOrgs, id), &o) })
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
func (s *JetStream) AddOrgMember(ctx context.Context, orgID, userID string) (model.Org, error) {
	var o model.Org
	err := s.update(ctx, func(tx *jsTx) error {
		o = model.Org{}
		if err := tx.getJSON(s.key(tblOrgs, orgID), &o); err != nil {
			return err
		}
		if ok, err := tx.has(s.key(tblUsers, userID)); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("user %q: %w", userID, notFound(ok)))
		}
		if slices.Contains(o.Members, userID) {
			return nil
		}
		orgs, err := tx.list(orgIndex, "")
		if err != nil {
			return err
		}
		i := slices.IndexFunc(orgs.Items, func(it jsListItem) bool { return it.ID == orgID })
		if i < 0 {
			return fmt.Errorf("org %q has no index entry", orgID)
		}
		if err := s.addMembership(tx, orgID, orgs.Items[i].Seq, userID); err != nil {
			return err
		}
		o.Members = append(o.Members, userID)
		return tx.putJSON(s.key(tblOrgs, orgID), o)
	})
	if err != nil {
		return model.Org{}, fmt.Errorf("store: add member to org %q: %w", orgID, err)
	}
	return o, nil
}

// OrgsOfUser returns the orgs userID is a member of, in creation order.
func (s *JetStream) OrgsOfUser(ctx context.Context, userID string) ([]model.Org, error) {
	orgs := []model.Org{}
	err := s.view(ctx, func(tx *jsTx) error {
		l, err := tx.list(orgMemberIndex, userID)
		if err != nil {
			return err
		}
		for _, it := range l.Items {
			var o model.Org
			if err := tx.getJSON(s.key(tblOrgs, it.ID), &o); err != nil {
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
