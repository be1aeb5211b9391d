package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
)

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
		err = d.e.records.SetData(ctx, ds.ID, req.Key, req.Value, time.Duration(req.TTL)*time.Second)
	case abi.StoreDelete:
		_, err = d.e.records.DeleteData(ctx, ds.ID, req.Key)
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
		err = d.e.records.ClearData(ctx, ds.ID)
	}
	if dse := (*records.DataStoreError)(nil); errors.As(err, &dse) {
		return abi.StoreReply{Error: dse.Reason}, nil
	}
	return reply, err
}
