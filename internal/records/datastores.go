package records

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
// through the API. Both write through a Service, within the bounds of
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
func (s *Service) CreateDataStore(ctx context.Context, owner, name string) (model.DataStore, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "" || len(name) > maxDataStoreName:
		return model.DataStore{}, &DataStoreError{Reason: fmt.Sprintf("a data store needs a name of 1 to %d bytes", maxDataStoreName)}
	case isDataStoreID(name):
		return model.DataStore{}, &DataStoreError{Reason: "a data store's name cannot look like an id (ds_...): props name stores by id or name"}
	}
	ds := model.DataStore{ID: ids.New(ids.DataStore), OwnerID: owner, Name: name, CreatedAt: s.now().Unix()}
	ds, err := s.store.CreateDataStore(ctx, ds)
	if errors.Is(err, model.ErrConflict) {
		return model.DataStore{}, &DataStoreError{Reason: "a data store named " + name + " already exists"}
	}
	return ds, err
}

// DeleteDataStore deletes a data store and its keys.
func (s *Service) DeleteDataStore(ctx context.Context, id string) error {
	return s.store.DeleteDataStore(ctx, id)
}

// SetData sets key of the data store id to value (JSON), for ttl (0:
// for ever).
func (s *Service) SetData(ctx context.Context, id, key string, value json.RawMessage, ttl time.Duration) error {
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
		entry.ExpiresAtMs = s.now().Add(ttl).UnixMilli()
	}
	err := s.store.DataSet(ctx, id, entry, s.bounds)
	if full := (*store.DataStoreFullError)(nil); errors.As(err, &full) {
		return &DataStoreError{Reason: full.Error()}
	}
	return err
}

// DeleteData removes key from the data store id; false when it had none.
func (s *Service) DeleteData(ctx context.Context, id, key string) (bool, error) {
	return s.store.DataDelete(ctx, id, key)
}

// ClearData removes every key of the data store id.
func (s *Service) ClearData(ctx context.Context, id string) error {
	return s.store.DataClear(ctx, id)
}

// compactJSON is value without insignificant space, as stores keep it.
func compactJSON(value json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, value); err != nil {
		return value
	}
	return b.Bytes()
}

// DataStoreBounds are the most keys and bytes one data store holds.
func (s *Service) DataStoreBounds() (keys int, bytes int64) {
	return s.bounds.MaxKeys, s.bounds.MaxBytes
}
