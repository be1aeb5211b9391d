package store

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
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
// The uses are indexed so that this needs no scan of the sources:
// bucketComponentUses holds key(component id, source id) for every
// source's component, kept by the writes of sources.

// componentExists refuses a source write naming a component that is not
// stored. A save past the limit may drop a component between its own
// save and the write of the source that runs it (a deploy's hooks run
// between them), when every other component of its owner is in use.
func componentExists(tx kvTx, componentID string) error {
	ok, err := hasRecord(tx, componentsTable, componentID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("component %q: %w", componentID, ErrComponentDropped)
	}
	return nil
}

// useComponent records that source sourceID runs component componentID.
func useComponent(tx kvTx, componentID, sourceID string) error {
	if componentID == "" {
		return nil
	}
	if err := tx.addMember(componentUsesTable, componentID, sourceID); err != nil {
		return fmt.Errorf("record the use of component %q: %w", componentID, err)
	}
	return nil
}

// unuseComponent forgets that source sourceID runs component componentID.
func unuseComponent(tx kvTx, componentID, sourceID string) error {
	if componentID == "" {
		return nil
	}
	if err := tx.removeMember(componentUsesTable, componentID, sourceID); err != nil {
		return fmt.Errorf("forget the use of component %q: %w", componentID, err)
	}
	return nil
}

// componentInUse reports whether a source runs component id. key() is
// prefix-free, so key(id) prefixes the uses of id alone.
func componentInUse(tx *bolt.Tx, id string) bool {
	prefix := key(id)
	k, _ := tx.Bucket(bucketComponentUses).Cursor().Seek(prefix)
	return k != nil && bytes.HasPrefix(k, prefix)
}

// makeRoomForComponent drops owner's least recently saved unreachable
// components until a new one fits its limit, and returns the *LimitError
// of checkRoom when none is left to drop.
func (b *Bolt) makeRoomForComponent(tx *bolt.Tx, owner string) error {
	for {
		err := b.checkRoom(boltKV{tx, b}, CountComponents, owner)
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
// one. The component index holds owner's components in the order they
// were last saved. It decodes no component (their code may be megabytes
// each): the indexes of keys and of code, both by owner, say the rest.
func dropUnreachableComponent(tx *bolt.Tx, owner string) (bool, error) {
	prefix := key(owner)
	named := idsUnder(tx.Bucket(bucketComponentKeys), prefix)
	victim := ""
	c := tx.Bucket(bucketComponentOrder).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if id := string(v); !named[id] && !componentInUse(tx, id) {
			victim = id
			break
		}
	}
	if victim == "" {
		return false, nil
	}
	codes := tx.Bucket(bucketComponentCode)
	var codeKeys [][]byte
	cc := codes.Cursor()
	for k, v := cc.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cc.Next() {
		if string(v) == victim {
			codeKeys = append(codeKeys, clone(k))
		}
	}
	for _, k := range codeKeys {
		if err := codes.Delete(k); err != nil {
			return false, fmt.Errorf("drop component %q: %w", victim, err)
		}
	}
	if err := componentIndex.remove(tx, victim); err != nil {
		return false, err
	}
	if err := tx.Bucket(bucketComponents).Delete([]byte(victim)); err != nil {
		return false, fmt.Errorf("drop component %q: %w", victim, err)
	}
	return true, nil
}

// idsUnder returns the values (ids) of bk's keys under prefix.
func idsUnder(bk *bolt.Bucket, prefix []byte) map[string]bool {
	ids := map[string]bool{}
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		ids[string(v)] = true
	}
	return ids
}
