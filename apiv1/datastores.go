package apiv1

import "encoding/json"

// Data stores are fount's extension, after Pipedream's: named key-value
// stores of an account, which its sources and workflows reach through
// data_store props.

// CreateDataStoreRequest creates a data store of the caller (or of the
// organization org_id names).
type CreateDataStoreRequest struct {
	Common
	Name string `json:"name" required:"true" maxLength:"128" description:"unique among the account's data stores; props name a store by it or by its id"`
}

// DataStoreByIDRequest names a data store.
type DataStoreByIDRequest struct {
	Common
	ByID
}

// DataStore is a data store, with what it holds.
type DataStore struct {
	ID        string `json:"id" required:"true" description:"ds_ id"`
	OwnerID   string `json:"owner_id" required:"true"`
	Name      string `json:"name" required:"true"`
	CreatedAt int64  `json:"created_at" required:"true"`
	Keys      int    `json:"keys" required:"true" description:"keys it holds, expired ones included until they are swept"`
	Bytes     int64  `json:"bytes" required:"true" description:"bytes of its keys and values"`
	MaxKeys   int    `json:"max_keys" required:"true" description:"the most keys it may hold"`
	MaxBytes  int64  `json:"max_bytes" required:"true" description:"the most bytes of keys and values it may hold"`
}

// DataRecordRequest names one key of a data store.
type DataRecordRequest struct {
	Common
	ByID
	Key string `path:"key" json:"-" maxLength:"2048" required:"true" description:"the key, URL-escaped"`
}

// PutDataRecordRequest sets one key of a data store.
type PutDataRecordRequest struct {
	Common
	ByID
	Key        string          `path:"key" json:"-" maxLength:"2048" required:"true" description:"the key, URL-escaped"`
	Value      json.RawMessage `json:"value" required:"true" description:"any JSON value, 64 KiB at most"`
	TTLSeconds int64           `json:"ttl_seconds,omitempty" minimum:"0" maximum:"31622400" description:"seconds until the key expires (0: never)"`
}

// DataRecord is one key of a data store with its value.
type DataRecord struct {
	Key         string          `json:"key" required:"true"`
	Value       json.RawMessage `json:"value" required:"true"`
	ExpiresAtMs int64           `json:"expires_at_ms,omitempty" description:"when it expires, epoch ms"`
}

// DataRecords are every key of a data store, by key.
type DataRecords struct {
	Records []DataRecord `json:"records" required:"true" nullable:"false"`
}
