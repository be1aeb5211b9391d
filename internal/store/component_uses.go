package store

import (
	"errors"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Saved components have no delete in the API, so the limit of components
// cannot be met by asking the author to delete some: an author who saves
// code often (each deploy of changed code saves it) would be locked out
// for good. Instead, a save past the limit drops the owner's least
// recently saved components (saving equal code again counts as a save)
// that nothing reaches but their id: those no source uses and no key
// names (a key names the newest component saved with it). Only when
// every component is in use is the save refused.
//
// The uses are indexed so that this needs no scan of the sources: the
// set componentUsesTable holds, for every component, the sources that
// run it, kept by the writes of sources.

// componentExists refuses a source write naming a component that is not
// stored. A save past the limit may drop a component between its own
// save and the write of the source that runs it (a deploy's hooks run
// between them), when every other component of its owner is in use.
func componentExists(tx kv.Tx, componentID string) error {
	ok, err := hasRecord(tx, kv.Components, componentID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("component %q: %w", componentID, ErrComponentDropped)
	}
	return nil
}

// useComponent records that source sourceID runs component componentID.
func useComponent(tx kv.Tx, componentID, sourceID string) error {
	if componentID == "" {
		return nil
	}
	if err := tx.AddMember(kv.ComponentUses, componentID, sourceID); err != nil {
		return fmt.Errorf("record the use of component %q: %w", componentID, err)
	}
	return nil
}

// unuseComponent forgets that source sourceID runs component componentID.
func unuseComponent(tx kv.Tx, componentID, sourceID string) error {
	if componentID == "" {
		return nil
	}
	if err := tx.RemoveMember(kv.ComponentUses, componentID, sourceID); err != nil {
		return fmt.Errorf("forget the use of component %q: %w", componentID, err)
	}
	return nil
}

// makeRoomForComponent drops owner's least recently saved unreachable
// components until a new one fits its limit, and returns the *LimitError
// of checkRoom when none is left to drop.
func (r rules) makeRoomForComponent(tx kv.Tx, owner string) error {
	for {
		err := r.checkRoom(tx, model.CountComponents, owner)
		var le *LimitError
		if !errors.As(err, &le) {
			return err
		}
		dropped, derr := dropUnreachableComponent(tx, owner)
		if derr != nil {
			return derr
		}
		if !dropped {
			return err
		}
	}
}

// dropUnreachableComponent deletes owner's least recently saved component
// that no source uses and no key names, and reports whether there was
// one. The component list holds owner's components in the order they
// were last saved. It decodes no component but the one it drops (their
// code may be megabytes each): the indexes of keys, code and uses say
// the rest.
func dropUnreachableComponent(tx kv.Tx, owner string) (bool, error) {
	named, err := tx.LookupIDs(kv.ComponentKeys, owner)
	if err != nil {
		return false, err
	}
	ids, err := tx.ListIDs(kv.ComponentList, owner)
	if err != nil {
		return false, err
	}
	victim := ""
	for _, id := range ids {
		if named[id] {
			continue
		}
		uses, err := tx.Members(kv.ComponentUses, id)
		if err != nil {
			return false, err
		}
		if len(uses) == 0 {
			victim = id
			break
		}
	}
	if victim == "" {
		return false, nil
	}
	if err := tx.MapDropValue(kv.ComponentCode, owner, victim); err != nil {
		return false, err
	}
	if err := tx.ListRemove(kv.ComponentList, owner, victim); err != nil {
		return false, err
	}
	if err := tx.DeleteRecord(kv.Components, victim); err != nil {
		return false, fmt.Errorf("drop component %q: %w", victim, err)
	}
	return true, nil
}
