package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fount-dev/fount/model"
)

// Components and sources on JetStream.
const (
	tblComponents    = "comp"      // component id → Component
	tblComponentKeys = "comp_key"  // owner, key → component id
	tblComponentCode = "comp_code" // owner → jsCodeIndex
	tblComponentUses = "comp_uses" // component id → jsIDs of the sources running it
)

// jsCodeIndex maps an owner's code (key(code hash, component url) as a
// string) to the component saved with it. It is one record per owner, so
// that a save reads it, and a drop rewrites it, with the revision checked.
type jsCodeIndex struct {
	Code map[string]string `json:"code"`
}

func codeIndexKey(codeHash, codeURL string) string {
	return string(key(codeHash, codeURL))
}

func (tx *jsTx) codeIndex(owner string) (jsCodeIndex, error) {
	ix := jsCodeIndex{Code: map[string]string{}}
	if err := tx.getJSON(tx.s.key(tblComponentCode, owner), &ix); err != nil && !errors.Is(err, ErrNotFound) {
		return jsCodeIndex{}, err
	}
	if ix.Code == nil {
		ix.Code = map[string]string{}
	}
	return ix, nil
}

// CreateComponent stores c, or returns the owner's equal component, as
// Bolt.CreateComponent does.
func (s *JetStream) CreateComponent(ctx context.Context, c model.Component) (model.Component, error) {
	if c.ID == "" {
		return model.Component{}, errors.New("store: create component: empty id")
	}
	var out model.Component
	err := s.update(ctx, func(tx *jsTx) error {
		out = c
		codes, err := tx.codeIndex(c.OwnerID)
		if err != nil {
			return err
		}
		same, ok, err := s.sameComponent(tx, codes, c)
		if err != nil {
			return err
		}
		if ok {
			out = same
			if err := tx.listRemove(componentIndex, same.OwnerID, same.ID); err != nil {
				return err
			}
			if _, err := tx.listAdd(componentIndex, same.OwnerID, same.ID); err != nil {
				return err
			}
		} else if err := s.addComponent(tx, codes, c); err != nil {
			return err
		}
		if out.Key == "" {
			return nil
		}
		tx.put(s.key(tblComponentKeys, out.OwnerID, out.Key), []byte(out.ID))
		return nil
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: create component %q: %w", c.ID, err)
	}
	return out, nil
}

// addComponent stores a new component c and indexes it by owner and code.
func (s *JetStream) addComponent(tx *jsTx, codes jsCodeIndex, c model.Component) error {
	if ok, err := tx.has(s.key(tblComponents, c.ID)); err != nil || ok {
		return errors.Join(err, idTaken(ok))
	}
	if err := s.makeRoomForComponent(tx, c.OwnerID, codes); err != nil {
		return err
	}
	if _, err := tx.listAdd(componentIndex, c.OwnerID, c.ID); err != nil {
		return err
	}
	if c.CodeHash != "" {
		codes.Code[codeIndexKey(c.CodeHash, c.ComponentURL)] = c.ID
		if err := tx.putJSON(s.key(tblComponentCode, c.OwnerID), codes); err != nil {
			return err
		}
	}
	return s.putComponent(tx, c)
}

// sameComponent returns the owner's component of c's code when it equals
// c in all but its id and times (see Bolt's sameComponent).
func (s *JetStream) sameComponent(tx *jsTx, codes jsCodeIndex, c model.Component) (model.Component, bool, error) {
	id, ok := codes.Code[codeIndexKey(c.CodeHash, c.ComponentURL)]
	if c.CodeHash == "" || !ok {
		return model.Component{}, false, nil
	}
	old, err := s.getComponent(tx, id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return model.Component{}, false, nil
		}
		return model.Component{}, false, err
	}
	return old, equalSaves(old, c), nil
}

// makeRoomForComponent drops owner's least recently saved unreachable
// components until a new one fits its limit (see Bolt's).
func (s *JetStream) makeRoomForComponent(tx *jsTx, owner string, codes jsCodeIndex) error {
	for {
		err := s.checkRoom(jsKV{tx}, CountComponents, owner)
		var le *LimitError
		if !errors.As(err, &le) {
			return err
		}
		dropped, derr := s.dropUnreachableComponent(tx, owner, codes)
		if derr != nil {
			return derr
		}
		if !dropped {
			return err
		}
	}
}

// dropUnreachableComponent deletes owner's least recently saved component
// that no source uses and no key names. The keys naming components are
// found by a scan; only CreateComponent writes them, and each of its
// transactions rewrites the owner's list of components, whose revision
// this one checks.
func (s *JetStream) dropUnreachableComponent(tx *jsTx, owner string, codes jsCodeIndex) (bool, error) {
	named := map[string]bool{}
	keys, err := s.scan(tx.ctx, s.key(tblComponentKeys, owner)+".*")
	if err != nil {
		return false, err
	}
	for _, e := range keys {
		named[string(e.value)] = true
	}
	for k, w := range tx.write { // keys this transaction named
		if parts, err := s.keyParts(tblComponentKeys, k); err == nil && len(parts) == 2 && parts[0] == owner && !w.deleted {
			named[string(w.value)] = true
		}
	}
	l, err := tx.list(componentIndex, owner)
	if err != nil {
		return false, err
	}
	victim := ""
	for _, it := range l.Items {
		if named[it.ID] {
			continue
		}
		uses, err := tx.ids(s.key(tblComponentUses, it.ID))
		if err != nil {
			return false, err
		}
		if len(uses) == 0 {
			victim = it.ID
			break
		}
	}
	if victim == "" {
		return false, nil
	}
	for code, id := range codes.Code {
		if id == victim {
			delete(codes.Code, code)
		}
	}
	if err := tx.putJSON(s.key(tblComponentCode, owner), codes); err != nil {
		return false, err
	}
	if err := tx.listRemove(componentIndex, owner, victim); err != nil {
		return false, err
	}
	if err := s.delComponent(tx, victim); err != nil {
		return false, err
	}
	return true, nil
}

// ComponentByCode returns owner's component of the code, or ErrNotFound.
func (s *JetStream) ComponentByCode(ctx context.Context, owner, codeHash, codeURL string) (model.Component, error) {
	var c model.Component
	err := s.view(ctx, func(tx *jsTx) error {
		codes, err := tx.codeIndex(owner)
		if err != nil {
			return err
		}
		id, ok := codes.Code[codeIndexKey(codeHash, codeURL)]
		if !ok {
			return ErrNotFound
		}
		c, err = s.getComponent(tx, id)
		return err
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: component of code %.12s: %w", codeHash, err)
	}
	return c, nil
}

// GetComponent returns the component with id, or ErrNotFound.
func (s *JetStream) GetComponent(ctx context.Context, id string) (model.Component, error) {
	var c model.Component
	err := s.view(ctx, func(tx *jsTx) error {
		var err error
		c, err = s.getComponent(tx, id)
		return err
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: get component %q: %w", id, err)
	}
	return c, nil
}

// ComponentByKey returns the newest component saved with key in ownerID's
// namespace, or ErrNotFound (always for the empty key).
func (s *JetStream) ComponentByKey(ctx context.Context, ownerID, k string) (model.Component, error) {
	var c model.Component
	err := s.view(ctx, func(tx *jsTx) error {
		if k == "" {
			return ErrNotFound
		}
		id, ok, err := tx.get(s.key(tblComponentKeys, ownerID, k))
		if err != nil || !ok {
			return errors.Join(err, notFound(ok))
		}
		c, err = s.getComponent(tx, string(id))
		return err
	})
	if err != nil {
		return model.Component{}, fmt.Errorf("store: component %q of %q: %w", k, ownerID, err)
	}
	return c, nil
}

// purgeSourceData removes what a deleted source or workflow kept beyond
// its records: its events, its db and its queued invocations.
func (s *JetStream) purgeSourceData(ctx context.Context, id string) error {
	// Its queued invocations first: a run of it in flight on its owner
	// then finds its invocation gone and commits nothing after the purge
	// of its events.
	if err := s.purge(ctx, s.key(tblInvocations, id)+".>"); err != nil {
		return err
	}
	if err := s.deleteEmitterAfter(ctx, id); err != nil {
		return err
	}
	if err := s.purge(ctx, s.key(tblTimers, id)+".>"); err != nil { // its timer props' last fires
		return err
	}
	return s.purge(ctx, s.key(tblDB, id)+".>")
}
