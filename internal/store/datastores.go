package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// DataStoreFullError refuses a write that would take a data store past
// its bounds of keys or bytes; nothing is written then.
type DataStoreFullError struct {
	Name      string
	MaxKeys   int
	MaxBytes  int64
	WantKeys  int
	WantBytes int64
}

func (e *DataStoreFullError) Error() string {
	if e.WantKeys > e.MaxKeys {
		return fmt.Sprintf("data store %s is full: it may hold %d keys", e.Name, e.MaxKeys)
	}
	return fmt.Sprintf("data store %s is full: it may hold %d bytes of keys and values, and this write would make it %d", e.Name, e.MaxBytes, e.WantBytes)
}

// DataBounds bound one data store.
type DataBounds struct {
	MaxKeys  int
	MaxBytes int64
}

// clearBatch is how many keys one transaction of a clear removes, well
// within a JetStream batch.
const clearBatch = 256

// CreateDataStore stores ds, its name unique among its owner's stores.
//
// # Errors
//
// ErrConflict when the id or the name is taken; a *LimitError past the
// owner's limit of data stores.
func (r rules) CreateDataStore(ctx context.Context, ds model.DataStore) (model.DataStore, error) {
	if ds.ID == "" || ds.Name == "" {
		return model.DataStore{}, errors.New("store: create data store: empty id or name")
	}
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		if err := claimSlug(tx, kv.DataStoreKeys, ds.OwnerID, ds.Name, ds.ID); err != nil {
			return err
		}
		return r.createRecord(tx, kv.DataStores, kv.DataStoreList, model.CountDataStores, ds.OwnerID, ds.ID, ds)
	})
	if err != nil {
		return model.DataStore{}, fmt.Errorf("store: create data store %q: %w", ds.Name, err)
	}
	return ds, nil
}

// GetDataStore returns the data store with id, or ErrNotFound.
func (r rules) GetDataStore(ctx context.Context, id string) (model.DataStore, error) {
	var ds model.DataStore
	err := r.kv.View(ctx, func(tx kv.Tx) error { return getRecord(tx, kv.DataStores, id, &ds) })
	if err != nil {
		return model.DataStore{}, fmt.Errorf("store: get data store %q: %w", id, err)
	}
	return ds, nil
}

// DataStoreByName returns owner's data store named name, or ErrNotFound.
func (r rules) DataStoreByName(ctx context.Context, owner, name string) (model.DataStore, error) {
	var ds model.DataStore
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		id, ok, err := lookup(tx, kv.DataStoreKeys, owner, name)
		if err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		return getRecord(tx, kv.DataStores, id, &ds)
	})
	if err != nil {
		return model.DataStore{}, fmt.Errorf("store: data store %q of %q: %w", name, owner, err)
	}
	return ds, nil
}

// ListDataStores returns a page of owner's data stores, in the order
// they were created.
func (r rules) ListDataStores(ctx context.Context, owner string, p Page) (PageOf[model.DataStore], error) {
	pg, err := pageOfList[model.DataStore](ctx, r, kv.DataStoreList, kv.DataStores, owner, p)
	if err != nil {
		return PageOf[model.DataStore]{}, fmt.Errorf("store: list data stores of %q: %w", owner, err)
	}
	return pg, nil
}

// DeleteDataStore removes the data store with id and its keys, or
// returns ErrNotFound. The record goes first, in one transaction; its
// keys then go in batches, unreachable already.
func (r rules) DeleteDataStore(ctx context.Context, id string) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var ds model.DataStore
		if err := getRecord(tx, kv.DataStores, id, &ds); err != nil {
			return err
		}
		if err := releaseSlug(tx, kv.DataStoreKeys, ds.OwnerID, ds.Name, id); err != nil {
			return err
		}
		if err := tx.ListRemove(kv.DataStoreList, ds.OwnerID, id); err != nil {
			return err
		}
		return tx.DeleteRecord(kv.DataStores, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete data store %q: %w", id, err)
	}
	return r.dropEntries(ctx, id)
}

// dataEntries reads every entry of a store in tx, by key.
func dataEntries(tx kv.Tx, id string) ([]model.DataEntry, error) {
	raw, err := tx.LookupIDs(kv.DataEntries, id)
	if err != nil {
		return nil, err
	}
	out := make([]model.DataEntry, 0, len(raw))
	for data := range raw {
		var e model.DataEntry
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			return nil, fmt.Errorf("decode a data entry of %q: %w", id, err)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b model.DataEntry) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

// entrySize is what an entry counts against its store's bytes.
func entrySize(e model.DataEntry) int64 { return int64(len(e.Key) + len(e.Value)) }

// live reports whether e is there at nowMs.
func live(e model.DataEntry, nowMs int64) bool { return e.ExpiresAtMs == 0 || e.ExpiresAtMs > nowMs }

// DataGet returns the entry of key in the data store id, if it is there
// (not expired).
func (r rules) DataGet(ctx context.Context, id, key string) (model.DataEntry, bool, error) {
	var e model.DataEntry
	found := false
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		data, ok, err := tx.Value(kv.DataEntries, id, key)
		if err != nil || !ok {
			return err
		}
		if err := json.Unmarshal(data, &e); err != nil {
			return err
		}
		found = live(e, r.now().UnixMilli())
		return nil
	})
	if err != nil {
		return model.DataEntry{}, false, fmt.Errorf("store: get %q of data store %q: %w", key, id, err)
	}
	return e, found, nil
}

// DataEntries returns the entries of the data store id that are there
// (not expired), by key.
func (r rules) DataEntries(ctx context.Context, id string) ([]model.DataEntry, error) {
	var out []model.DataEntry
	err := r.kv.View(ctx, func(tx kv.Tx) error {
		if ok, err := hasRecord(tx, kv.DataStores, id); err != nil || !ok {
			return errors.Join(err, kv.NotFound(ok))
		}
		all, err := dataEntries(tx, id)
		now := r.now().UnixMilli()
		out = slices.DeleteFunc(all, func(e model.DataEntry) bool { return !live(e, now) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: entries of data store %q: %w", id, err)
	}
	return out, nil
}

// DataSet sets key of the data store id to e (its Key is key), within
// bounds: a *DataStoreFullError when the store would pass them, even
// once its expired keys are swept. ErrNotFound when the store is gone.
func (r rules) DataSet(ctx context.Context, id string, e model.DataEntry, bounds DataBounds) error {
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var ds model.DataStore
		if err := getRecord(tx, kv.DataStores, id, &ds); err != nil {
			return err
		}
		keys, bytes := ds.Keys+1, ds.Bytes+entrySize(e)
		if old, ok, err := tx.Value(kv.DataEntries, id, e.Key); err != nil {
			return err
		} else if ok {
			var prev model.DataEntry
			if err := json.Unmarshal(old, &prev); err != nil {
				return err
			}
			keys, bytes = keys-1, bytes-entrySize(prev)
		}
		if keys > bounds.MaxKeys || bytes > bounds.MaxBytes {
			swept, err := sweepExpired(tx, id, e.Key, r.now().UnixMilli())
			if err != nil {
				return err
			}
			keys, bytes = keys-swept.Keys, bytes-swept.Bytes
		}
		if keys > bounds.MaxKeys || bytes > bounds.MaxBytes {
			return &DataStoreFullError{Name: ds.Name, MaxKeys: bounds.MaxKeys, MaxBytes: bounds.MaxBytes, WantKeys: keys, WantBytes: bytes}
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if err := tx.PutValue(kv.DataEntries, data, id, e.Key); err != nil {
			return err
		}
		ds.Keys, ds.Bytes = keys, bytes
		return putRecord(tx, kv.DataStores, id, ds)
	})
	if err != nil {
		return fmt.Errorf("store: set %q of data store %q: %w", e.Key, id, err)
	}
	return nil
}

// sweepExpired removes the expired entries of store id but key's, and
// returns what they counted.
func sweepExpired(tx kv.Tx, id, key string, nowMs int64) (model.DataStore, error) {
	var swept model.DataStore
	all, err := dataEntries(tx, id)
	if err != nil {
		return swept, err
	}
	for _, e := range all {
		if live(e, nowMs) || e.Key == key {
			continue
		}
		if err := tx.DeleteValue(kv.DataEntries, id, e.Key); err != nil {
			return swept, err
		}
		swept.Keys++
		swept.Bytes += entrySize(e)
	}
	return swept, nil
}

// DataDelete removes key from the data store id, and reports whether it
// was there (not expired).
func (r rules) DataDelete(ctx context.Context, id, key string) (bool, error) {
	found := false
	err := r.kv.Update(ctx, func(tx kv.Tx) error {
		var ds model.DataStore
		if err := getRecord(tx, kv.DataStores, id, &ds); err != nil {
			return err
		}
		data, ok, err := tx.Value(kv.DataEntries, id, key)
		if err != nil || !ok {
			return err
		}
		var e model.DataEntry
		if err := json.Unmarshal(data, &e); err != nil {
			return err
		}
		found = live(e, r.now().UnixMilli())
		if err := tx.DeleteValue(kv.DataEntries, id, key); err != nil {
			return err
		}
		ds.Keys, ds.Bytes = max(0, ds.Keys-1), max(0, ds.Bytes-entrySize(e))
		return putRecord(tx, kv.DataStores, id, ds)
	})
	if err != nil {
		return false, fmt.Errorf("store: delete %q of data store %q: %w", key, id, err)
	}
	return found, nil
}

// DataClear removes every key of the data store id.
func (r rules) DataClear(ctx context.Context, id string) error {
	if _, err := r.GetDataStore(ctx, id); err != nil {
		return err
	}
	return r.dropEntries(ctx, id)
}

// dropEntries removes the entries of store id, a batch per transaction,
// and counts them off its record while it exists.
func (r rules) dropEntries(ctx context.Context, id string) error {
	for {
		more := false
		err := r.kv.Update(ctx, func(tx kv.Tx) error {
			all, err := dataEntries(tx, id)
			if err != nil {
				return err
			}
			var gone model.DataStore
			for _, e := range all {
				if gone.Keys == clearBatch {
					more = true
					break
				}
				if err := tx.DeleteValue(kv.DataEntries, id, e.Key); err != nil {
					return err
				}
				gone.Keys++
				gone.Bytes += entrySize(e)
			}
			var ds model.DataStore
			switch err := getRecord(tx, kv.DataStores, id, &ds); {
			case errors.Is(err, ErrNotFound):
				return nil // deleted: nothing counts its keys
			case err != nil:
				return err
			}
			ds.Keys, ds.Bytes = max(0, ds.Keys-gone.Keys), max(0, ds.Bytes-gone.Bytes)
			return putRecord(tx, kv.DataStores, id, ds)
		})
		if err != nil {
			return fmt.Errorf("store: clear data store %q: %w", id, err)
		}
		if !more {
			return nil
		}
	}
}
