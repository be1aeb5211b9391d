package component

import (
	"encoding/json"
	"testing"
)

// TestPropRefs: a data_store prop names a store by id or by name, and an
// app prop a connected account by its id alone.
func TestPropRefs(t *testing.T) {
	t.Parallel()
	stores := []struct {
		value string
		ref   string
		byID  bool
	}{
		{`"ds_abc"`, "ds_abc", true},
		{`" orders "`, "orders", false},
		{`{"data_store_id":"ds_abc"}`, "ds_abc", true},
		{`{"data_store_id":"orders"}`, "orders", false},
		{`42`, "", false},
	}
	for _, tt := range stores {
		var v any
		if err := json.Unmarshal([]byte(tt.value), &v); err != nil {
			t.Fatal(err)
		}
		if ref, byID := DataStoreRef(v); ref != tt.ref || byID != tt.byID {
			t.Errorf("DataStoreRef(%s) = %q, %v; want %q, %v", tt.value, ref, byID, tt.ref, tt.byID)
		}
	}
	accounts := map[string]string{
		`{"authProvisionId":"apn_1"}`: "apn_1",
		`{"authProvisionId":"ds_1"}`:  "",
		`{"authProvisionId":5}`:       "",
		`"apn_1"`:                     "",
	}
	for value, want := range accounts {
		if got, ok := AuthProvisionID(json.RawMessage(value)); got != want || ok != (want != "") {
			t.Errorf("AuthProvisionID(%s) = %q, %v; want %q", value, got, ok, want)
		}
	}
}
