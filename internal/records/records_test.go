package records

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// newService returns a Service over a new bolt store whose clock stands
// at *now.
func newService(t *testing.T, now *time.Time, cfg Config) (*Service, *store.Bolt) {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sealer, err := secret.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Secrets, cfg.Now = st, sealer, func() time.Time { return *now }
	return New(cfg), st
}

func TestDataStoreRequestsAreChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := t0
	s, _ := newService(t, &now, Config{DataStoreMaxKeys: 2, DataStoreMaxBytes: 1 << 10})
	ds, err := s.CreateDataStore(ctx, "u_owner", "  cache ")
	if err != nil || ds.Name != "cache" || !strings.HasPrefix(ds.ID, "ds_") {
		t.Fatalf("CreateDataStore: %+v, %v", ds, err)
	}
	for _, name := range []string{"", strings.Repeat("n", maxDataStoreName+1), ids.New(ids.DataStore), "cache"} {
		if _, err := s.CreateDataStore(ctx, "u_owner", name); !isDataStoreError(err) {
			t.Errorf("CreateDataStore(%.20q): %v, want a *DataStoreError", name, err)
		}
	}
	bad := []struct {
		key   string
		value string
		ttl   time.Duration
	}{
		{"", `1`, 0},
		{"k", `{nope`, 0},
		{"k", `1`, -time.Second},
		{"k", `1`, 400 * 24 * time.Hour},
	}
	for _, b := range bad {
		if err := s.SetData(ctx, ds.ID, b.key, json.RawMessage(b.value), b.ttl); !isDataStoreError(err) {
			t.Errorf("SetData(%q, %s, %v): %v, want a *DataStoreError", b.key, b.value, b.ttl, err)
		}
	}
	if err := s.SetData(ctx, ds.ID, "a", json.RawMessage(`{ "x" : 1 }`), time.Minute); err != nil {
		t.Fatal(err)
	}
	entry, found, err := s.Reader().DataGet(ctx, ds.ID, "a")
	if err != nil || !found || string(entry.Value) != `{"x":1}` || entry.ExpiresAtMs != t0.Add(time.Minute).UnixMilli() {
		t.Errorf("the entry kept: %+v %v %v, want the value compacted and its expiry from the clock", entry, found, err)
	}
	if err := s.SetData(ctx, ds.ID, "b", json.RawMessage(`2`), 0); err != nil {
		t.Fatal(err)
	}
	// A third key is over the store's bound, and says so.
	if err := s.SetData(ctx, ds.ID, "c", json.RawMessage(`3`), 0); !isDataStoreError(err) {
		t.Errorf("a key over the bound: %v, want a *DataStoreError", err)
	}
	if keys, bytes := s.DataStoreBounds(); keys != 2 || bytes != 1<<10 {
		t.Errorf("DataStoreBounds: %d, %d", keys, bytes)
	}
}

func isDataStoreError(err error) bool {
	var dse *DataStoreError
	return errors.As(err, &dse)
}

func TestDefaultBounds(t *testing.T) {
	t.Parallel()
	now := t0
	s, _ := newService(t, &now, Config{DataStoreMaxKeys: -1})
	if keys, bytes := s.DataStoreBounds(); keys != DefaultDataStoreMaxKeys || bytes != DefaultDataStoreMaxBytes {
		t.Errorf("DataStoreBounds of a zero and a negative bound: %d, %d, want the defaults", keys, bytes)
	}
}

func TestAccountRequestsAreChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := t0
	s, st := newService(t, &now, Config{})
	bad := []struct {
		param string
		req   AccountRequest
	}{
		{"app", AccountRequest{App: "Not A Slug", Name: "n", Fields: map[string]string{"k": "v"}}},
		{"name", AccountRequest{App: "slack", Name: "  ", Fields: map[string]string{"k": "v"}}},
		{"fields", AccountRequest{App: "slack", Name: "n"}},
		{"fields", AccountRequest{App: "slack", Name: "n", Fields: map[string]string{"no-dashes": "v"}}},
		{"fields.k", AccountRequest{App: "slack", Name: "n", Fields: map[string]string{"k": ""}}},
	}
	for _, b := range bad {
		var ae *AccountError
		if _, err := s.CreateAccount(ctx, b.req); !errors.As(err, &ae) || ae.Param != b.param {
			t.Errorf("%+v: %v, want an *AccountError naming %s", b.req, err, b.param)
		}
	}
	a, err := s.CreateAccount(ctx, AccountRequest{OwnerID: "u_owner", App: "slack", Name: "work", Fields: map[string]string{"api_key": "sk-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.Fields["api_key"], "sk-1") {
		t.Error("an account's field is kept in clear")
	}
	if plain, err := s.secrets.Open(a.Fields["api_key"], secret.AccountBinding(a.ID, "api_key")); err != nil || string(plain) != "sk-1" {
		t.Errorf("the sealed field opens to %q, %v", plain, err)
	}
	// A source of its owner configured with it keeps it, unless forced.
	comp, err := st.CreateComponent(ctx, model.Component{ID: ids.New(ids.Component), OwnerID: "u_owner", Code: "export default {}"})
	if err != nil {
		t.Fatal(err)
	}
	src := model.Source{ID: ids.New(ids.Source), OwnerID: "u_owner", ComponentID: comp.ID, Active: true,
		ConfiguredProps: map[string]json.RawMessage{"slack": json.RawMessage(`{"authProvisionId":"` + a.ID + `"}`)}}
	if _, _, err := st.CreateSource(ctx, src, store.RunCommit{}); err != nil {
		t.Fatal(err)
	}
	var inUse *AccountInUseError
	if err := s.DeleteAccount(ctx, a, false); !errors.As(err, &inUse) || len(inUse.Users) != 1 || inUse.Users[0] != src.ID {
		t.Errorf("DeleteAccount of one in use: %v, want an *AccountInUseError naming %s", err, src.ID)
	}
	if err := s.DeleteAccount(ctx, a, true); err != nil {
		t.Fatalf("a forced DeleteAccount: %v", err)
	}
	if _, err := s.Reader().GetConnectedAccount(ctx, a.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("the account after its delete: %v", err)
	}
}

func TestWebhookEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := t0
	s, st := newService(t, &now, Config{})
	h, err := s.CreateWebhook(ctx, WebhookRequest{OwnerID: "u_owner", URL: "https://example.com/hook"})
	if err != nil || !h.Active || h.SigningSecret == "" || h.CreatedAt != t0.Unix() {
		t.Fatalf("CreateWebhook: %+v, %v", h, err)
	}
	// Deactivated after failures, then activated again: a fresh start.
	h.Active, h.ConsecutiveFailures, h.FailingSinceMs, h.DisabledReason = false, 20, t0.UnixMilli(), "failing"
	if err := st.UpdateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(time.Hour)
	active, url := true, "https://example.com/other"
	got, err := s.UpdateWebhook(ctx, h.ID, WebhookChange{Active: &active, URL: &url})
	if err != nil || !got.Active || got.ConsecutiveFailures != 0 || got.DisabledReason != "" || got.URL != url || got.UpdatedAt != now.Unix() {
		t.Errorf("UpdateWebhook activating it: %+v, %v", got, err)
	}
	rotated, err := s.RotateWebhookSecret(ctx, h.ID, time.Minute)
	if err != nil || rotated.PreviousSecret != h.SigningSecret || rotated.SigningSecret == h.SigningSecret || rotated.PreviousUntilMs != now.Add(time.Minute).UnixMilli() {
		t.Errorf("RotateWebhookSecret: %+v, %v", rotated, err)
	}
	if err := s.DeleteWebhook(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateWebhook(ctx, h.ID, WebhookChange{Active: &active}); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("an edit of a deleted webhook: %v, want ErrNotFound", err)
	}
	if n := s.webhooks.Keys(); n != 0 {
		t.Errorf("%d webhook locks left", n)
	}
}

func TestSubscriptionsAndUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := t0
	s, _ := newService(t, &now, Config{})
	u, err := s.CreateUser(ctx, "ada", "ada@example.com", model.PlanFree, "hash")
	if err != nil || u.CreatedAt != t0.Unix() {
		t.Fatalf("CreateUser: %+v, %v", u, err)
	}
	if got, err := s.Reader().UserByKeyHash(ctx, "hash"); err != nil || got.ID != u.ID {
		t.Errorf("the user by its key: %+v, %v", got, err)
	}
	o, err := s.CreateOrg(ctx, "acme", "Acme", "ops@example.com", u.ID)
	if err != nil || len(o.Members) != 1 || o.Members[0] != u.ID {
		t.Fatalf("CreateOrg: %+v, %v", o, err)
	}
	listener := model.Listener{Kind: model.ListenerWebhook, ID: ids.New(ids.Webhook)}
	first, err := s.CreateSubscription(ctx, u.ID, "dc_emitter", listener, "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.CreateSubscription(ctx, u.ID, "dc_emitter", listener, "")
	if err != nil || again.ID != first.ID || again.ListenerKind != model.ListenerWebhook {
		t.Errorf("subscribing twice: %+v then %+v, %v; want the one that existed", first, again, err)
	}
	if err := s.DeleteSubscription(ctx, u.ID, "dc_emitter", listener.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSubscription(ctx, u.ID, "dc_emitter", listener.ID, ""); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("deleting it again: %v, want ErrNotFound", err)
	}
}
