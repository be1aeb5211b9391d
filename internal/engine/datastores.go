package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Data stores are an account's named key-value stores, which its
// sources and workflows reach through data_store props, and its users
// through the API. The engine makes every write, within the bounds of
// one store (Config.DataStoreMaxKeys and DataStoreMaxBytes).

// DataStoreError is a data store request the caller should correct: a
// bad name, key or value, or a store that is full.
type DataStoreError struct{ Reason string }

func (e *DataStoreError) Error() string { return e.Reason }

// maxDataStoreName bounds a data store's name.
const maxDataStoreName = 128

// isDataStoreID reports whether a data_store prop naming s names a store
// by its id.
func isDataStoreID(s string) bool {
	_, byID := component.DataStoreRef(s)
	return byID
}

// CreateDataStore creates owner's data store named name.
func (e *Engine) CreateDataStore(ctx context.Context, owner, name string) (model.DataStore, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "" || len(name) > maxDataStoreName:
		return model.DataStore{}, &DataStoreError{Reason: fmt.Sprintf("a data store needs a name of 1 to %d bytes", maxDataStoreName)}
	case isDataStoreID(name):
		return model.DataStore{}, &DataStoreError{Reason: "a data store's name cannot look like an id (ds_...): props name stores by id or name"}
	}
	ds := model.DataStore{ID: ids.New(ids.DataStore), OwnerID: owner, Name: name, CreatedAt: e.clock.Now().Unix()}
	ds, err := e.store.CreateDataStore(ctx, ds)
	if errors.Is(err, model.ErrConflict) {
		return model.DataStore{}, &DataStoreError{Reason: "a data store named " + name + " already exists"}
	}
	return ds, err
}

// DeleteDataStore deletes a data store and its keys.
func (e *Engine) DeleteDataStore(ctx context.Context, id string) error {
	return e.store.DeleteDataStore(ctx, id)
}

// SetData sets key of the data store id to value (JSON), for ttl (0:
// for ever).
func (e *Engine) SetData(ctx context.Context, id, key string, value json.RawMessage, ttl time.Duration) error {
	if err := abi.ValidStoreKey(key); err != nil {
		return &DataStoreError{Reason: err.Error()}
	}
	if !json.Valid(value) {
		return &DataStoreError{Reason: "a data store value must be JSON"}
	}
	if len(value) > abi.MaxStoreValue {
		return &DataStoreError{Reason: fmt.Sprintf("a value of %d bytes is over the %d a data store keeps", len(value), abi.MaxStoreValue)}
	}
	if ttl < 0 || ttl > abi.MaxStoreTTL*time.Second {
		return &DataStoreError{Reason: "a ttl is from 1 second to a year"}
	}
	entry := model.DataEntry{Key: key, Value: compactJSON(value)}
	if ttl > 0 {
		entry.ExpiresAtMs = e.clock.Now().Add(ttl).UnixMilli()
	}
	err := e.store.DataSet(ctx, id, entry, store.DataBounds{MaxKeys: e.cfg.DataStoreMaxKeys, MaxBytes: e.cfg.DataStoreMaxBytes})
	if full := (*store.DataStoreFullError)(nil); errors.As(err, &full) {
		return &DataStoreError{Reason: full.Error()}
	}
	return err
}

// DeleteData removes key from the data store id; false when it had none.
func (e *Engine) DeleteData(ctx context.Context, id, key string) (bool, error) {
	return e.store.DataDelete(ctx, id, key)
}

// ClearData removes every key of the data store id.
func (e *Engine) ClearData(ctx context.Context, id string) error {
	return e.store.DataClear(ctx, id)
}

// compactJSON is value without insignificant space, as stores keep it.
func compactJSON(value json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, value); err != nil {
		return value
	}
	return b.Bytes()
}

// dataStoreOf returns owner's data store that a data_store prop's
// configured value names, by id or name; an error that says why not.
func (e *Engine) dataStoreOf(ctx context.Context, owner string, raw json.RawMessage) (model.DataStore, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return model.DataStore{}, errors.New("names no data store")
	}
	ref, byID := component.DataStoreRef(v)
	var ds model.DataStore
	var err error
	if byID {
		ds, err = e.store.GetDataStore(ctx, ref)
	} else {
		ds, err = e.store.DataStoreByName(ctx, owner, ref)
	}
	switch {
	case errors.Is(err, model.ErrNotFound) || (err == nil && ds.OwnerID != owner):
		return model.DataStore{}, fmt.Errorf("names the data store %q, which the account does not have (fount data-stores create %s)", ref, ref)
	case err != nil:
		return model.DataStore{}, err
	}
	return ds, nil
}

// dataStores is sandbox.DataStores for one source's or step's props.
type dataStores struct {
	e     *Engine
	owner string
	props map[string]json.RawMessage
}

// Do performs req on the store req.Prop names.
func (d dataStores) Do(ctx context.Context, req abi.StoreRequest) (abi.StoreReply, error) {
	raw, ok := d.props[req.Prop]
	if !ok || isNull(raw) {
		return abi.StoreReply{Error: "the prop " + req.Prop + " is configured with no data store"}, nil
	}
	ds, err := d.e.dataStoreOf(ctx, d.owner, raw)
	if err != nil {
		return abi.StoreReply{Error: "the prop " + req.Prop + " " + err.Error()}, nil
	}
	var reply abi.StoreReply
	switch req.Op {
	case abi.StoreGet, abi.StoreHas:
		entry, found, err := d.e.store.DataGet(ctx, ds.ID, req.Key)
		if err != nil {
			return reply, err
		}
		reply.Found = found
		if found && req.Op == abi.StoreGet {
			reply.Value = entry.Value
		}
	case abi.StoreSet:
		err = d.e.SetData(ctx, ds.ID, req.Key, req.Value, time.Duration(req.TTL)*time.Second)
	case abi.StoreDelete:
		_, err = d.e.DeleteData(ctx, ds.ID, req.Key)
	case abi.StoreKeys, abi.StoreEntries:
		entries, err := d.e.store.DataEntries(ctx, ds.ID)
		if err != nil {
			return reply, err
		}
		reply.Keys = make([]string, 0, len(entries))
		for _, en := range entries {
			if req.Op == abi.StoreKeys {
				reply.Keys = append(reply.Keys, en.Key)
			} else {
				reply.Entries = append(reply.Entries, abi.StoreEntry{Key: en.Key, Value: en.Value})
			}
		}
		if req.Op == abi.StoreEntries {
			reply.Keys = nil
		}
	case abi.StoreClear:
		err = d.e.ClearData(ctx, ds.ID)
	}
	if dse := (*DataStoreError)(nil); errors.As(err, &dse) {
		return abi.StoreReply{Error: dse.Reason}, nil
	}
	return reply, err
}

// DataStoreBounds are the most keys and bytes one data store holds.
func (e *Engine) DataStoreBounds() (keys int, bytes int64) {
	return e.cfg.DataStoreMaxKeys, e.cfg.DataStoreMaxBytes
}
