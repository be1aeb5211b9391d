package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/fount-dev/fount/apiv1"
)

// CreateDataStore creates a data store named name, in the organization
// orgID when not empty.
func (c *Client) CreateDataStore(ctx context.Context, name, orgID string) (apiv1.DataStore, []byte, error) {
	var ds apiv1.DataStore
	raw, err := c.Do(ctx, http.MethodPost, "/data_stores", orgQuery(orgID), apiv1.CreateDataStoreRequest{Name: name}, &ds)
	return ds, raw, err
}

// DataStores lists the caller's data stores (first 100).
func (c *Client) DataStores(ctx context.Context) ([]apiv1.DataStore, []byte, error) {
	var out []apiv1.DataStore
	raw, err := c.Do(ctx, http.MethodGet, "/users/me/data_stores", url.Values{"limit": {"100"}}, nil, &out)
	return out, raw, err
}

// DeleteDataStore deletes a data store and its keys.
func (c *Client) DeleteDataStore(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/data_stores/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// DataRecords returns every key of a data store with its value.
func (c *Client) DataRecords(ctx context.Context, id string) ([]apiv1.DataRecord, []byte, error) {
	var out apiv1.DataRecords
	raw, err := c.Do(ctx, http.MethodGet, "/data_stores/"+url.PathEscape(id)+"/records", nil, nil, &out)
	return out.Records, raw, err
}

// DataRecord returns one key of a data store.
func (c *Client) DataRecord(ctx context.Context, id, key string) (apiv1.DataRecord, []byte, error) {
	var out apiv1.DataRecord
	raw, err := c.Do(ctx, http.MethodGet, "/data_stores/"+url.PathEscape(id)+"/records/"+url.PathEscape(key), nil, nil, &out)
	return out, raw, err
}

// SetDataRecord sets one key of a data store to value (JSON), for ttl
// (0: for ever).
func (c *Client) SetDataRecord(ctx context.Context, id, key string, value json.RawMessage, ttl time.Duration) (apiv1.DataRecord, []byte, error) {
	var out apiv1.DataRecord
	req := apiv1.PutDataRecordRequest{Value: value, TTLSeconds: int64(ttl / time.Second)}
	raw, err := c.Do(ctx, http.MethodPut, "/data_stores/"+url.PathEscape(id)+"/records/"+url.PathEscape(key), nil, req, &out)
	return out, raw, err
}

// DeleteDataRecord removes one key of a data store.
func (c *Client) DeleteDataRecord(ctx context.Context, id, key string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/data_stores/"+url.PathEscape(id)+"/records/"+url.PathEscape(key), nil, nil, nil)
	return err
}

// ClearDataRecords removes every key of a data store.
func (c *Client) ClearDataRecords(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/data_stores/"+url.PathEscape(id)+"/records", nil, nil, nil)
	return err
}
