package api

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
)

func (s *Server) viewDataStore(ds model.DataStore) apiv1.DataStore {
	keys, bytes := s.edit.DataStoreBounds()
	return apiv1.DataStore{ID: ds.ID, OwnerID: ds.OwnerID, Name: ds.Name, CreatedAt: ds.CreatedAt, Keys: ds.Keys, Bytes: ds.Bytes,
		MaxKeys: keys, MaxBytes: bytes}
}

func viewDataRecord(e model.DataEntry) apiv1.DataRecord {
	return apiv1.DataRecord{Key: e.Key, Value: e.Value, ExpiresAtMs: e.ExpiresAtMs}
}

func (s *Server) createDataStore(w http.ResponseWriter, r *http.Request, req *apiv1.CreateDataStoreRequest) error {
	ctx := r.Context()
	owner, err := s.ownerFor(ctx, req.OrgID)
	if err != nil {
		return err
	}
	ds, err := s.edit.CreateDataStore(ctx, owner, req.Name)
	if err != nil {
		return err
	}
	s.writeData(w, r, s.viewDataStore(ds))
	return nil
}

// ownedDataStore is the data store id, when the caller may see it.
func (s *Server) ownedDataStore(ctx context.Context, id string) (model.DataStore, error) {
	ds, err := s.records.GetDataStore(ctx, id)
	if isNotFound(err) {
		return ds, errNotFound("data store")
	}
	if err != nil {
		return ds, err
	}
	return ds, s.visible(ctx, ds.OwnerID, "data store", "")
}

func (s *Server) getDataStore(w http.ResponseWriter, r *http.Request, req *apiv1.DataStoreByIDRequest) error {
	ds, err := s.ownedDataStore(r.Context(), req.ID)
	if err != nil {
		return err
	}
	s.writeData(w, r, s.viewDataStore(ds))
	return nil
}

func (s *Server) deleteDataStore(w http.ResponseWriter, r *http.Request, req *apiv1.DataStoreByIDRequest) error {
	ds, err := s.ownedDataStore(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.edit.DeleteDataStore(r.Context(), ds.ID); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) listDataStoresOf(w http.ResponseWriter, r *http.Request, owner string, p apiv1.PageParams) error {
	page, err := s.readPage(r, p)
	if err != nil {
		return err
	}
	pg, err := s.records.ListDataStores(r.Context(), owner, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, s.viewDataStore))
	return nil
}

func (s *Server) listMyDataStores(w http.ResponseWriter, r *http.Request, req *apiv1.ListRequest) error {
	return s.listDataStoresOf(w, r, caller(r.Context()).ID, req.PageParams)
}

func (s *Server) listOrgDataStores(w http.ResponseWriter, r *http.Request, req *apiv1.OrgListRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listDataStoresOf(w, r, orgID, req.PageParams)
}

func (s *Server) listDataRecords(w http.ResponseWriter, r *http.Request, req *apiv1.DataStoreByIDRequest) error {
	ds, err := s.ownedDataStore(r.Context(), req.ID)
	if err != nil {
		return err
	}
	entries, err := s.records.DataEntries(r.Context(), ds.ID)
	if err != nil {
		return err
	}
	out := apiv1.DataRecords{Records: make([]apiv1.DataRecord, 0, len(entries))}
	for _, e := range entries {
		out.Records = append(out.Records, viewDataRecord(e))
	}
	s.writeData(w, r, out)
	return nil
}

// ownedRecord is the data store id, when the caller may see it, and the
// path's key, unescaped (chi matches escaped paths).
func (s *Server) ownedRecord(ctx context.Context, id, rawKey string) (model.DataStore, string, error) {
	ds, err := s.ownedDataStore(ctx, id)
	if err != nil {
		return ds, "", err
	}
	key, err := url.PathUnescape(rawKey)
	if err != nil {
		return ds, "", errInvalid("key", "The key is not a valid URL-escaped string.")
	}
	return ds, key, nil
}

func (s *Server) getDataRecord(w http.ResponseWriter, r *http.Request, req *apiv1.DataRecordRequest) error {
	ds, key, err := s.ownedRecord(r.Context(), req.ID, req.Key)
	if err != nil {
		return err
	}
	e, found, err := s.records.DataGet(r.Context(), ds.ID, key)
	if err != nil {
		return err
	}
	if !found {
		return errNotFound("key")
	}
	s.writeData(w, r, viewDataRecord(e))
	return nil
}

func (s *Server) putDataRecord(w http.ResponseWriter, r *http.Request, req *apiv1.PutDataRecordRequest) error {
	ds, key, err := s.ownedRecord(r.Context(), req.ID, req.Key)
	if err != nil {
		return err
	}
	if len(req.Value) == 0 {
		return errInvalid("value", "The value is required: any JSON value.")
	}
	if err := s.edit.SetData(r.Context(), ds.ID, key, req.Value, time.Duration(req.TTLSeconds)*time.Second); err != nil {
		return err
	}
	e, _, err := s.records.DataGet(r.Context(), ds.ID, key)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewDataRecord(e))
	return nil
}

func (s *Server) deleteDataRecord(w http.ResponseWriter, r *http.Request, req *apiv1.DataRecordRequest) error {
	ds, key, err := s.ownedRecord(r.Context(), req.ID, req.Key)
	if err != nil {
		return err
	}
	found, err := s.edit.DeleteData(r.Context(), ds.ID, key)
	if err != nil {
		return err
	}
	if !found {
		return errNotFound("key")
	}
	return noContent(w)
}

func (s *Server) clearDataRecords(w http.ResponseWriter, r *http.Request, req *apiv1.DataStoreByIDRequest) error {
	ds, err := s.ownedDataStore(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.edit.ClearData(r.Context(), ds.ID); err != nil {
		return err
	}
	return noContent(w)
}
