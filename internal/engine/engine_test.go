package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

func TestQuotaCaching(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.QuotaInvocations = 2 })
	if err := te.st.CreateUser(ctx, model.User{ID: "u_free", Plan: model.PlanFree}, "h1"); err != nil {
		t.Fatal(err)
	}
	if err := te.st.CreateUser(ctx, model.User{ID: "u_paid", Plan: model.PlanPaid}, "h2"); err != nil {
		t.Fatal(err)
	}
	use := func(account string, n int64) {
		inv, _ := te.st.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_x", Kind: kindManual})
		if _, err := te.st.CompleteRuns(ctx, []store.CompletedRun{{Invocation: inv, Commit: store.RunCommit{UsageAccount: account, UsageDay: batch.Day(te.clock.Now()), Invocations: n}}}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		account string
		use     int64
		want    bool
	}{
		{"u_free", 0, false},
		{"u_paid", 5, false},
		{"o_team", 5, false},
		{"u_gone", 5, false},
	}
	for _, tt := range tests {
		use(tt.account, tt.use)
		if over, err := te.quotas.Over(ctx, tt.account, batch.Day(te.clock.Now())); err != nil || over != tt.want {
			t.Errorf("over(%s) = %v, %v", tt.account, over, err)
		}
	}
	if over, _ := te.quotas.OverCached(ctx, "u_free"); over {
		t.Fatal("a fresh free account is over its quota")
	}
	use("u_free", 2)
	if over, _ := te.quotas.OverCached(ctx, "u_free"); over {
		t.Error("the cached answer was not used within its TTL")
	}
	te.clock.Advance(batch.QuotaCacheTTL)
	if over, _ := te.quotas.OverCached(ctx, "u_free"); !over {
		t.Error("the cached answer was used past its TTL")
	}
	if over, _ := te.quotas.Over(ctx, "u_free", batch.Day(te.clock.Now().Add(24*time.Hour))); over {
		t.Error("yesterday's usage counts today")
	}
}

// TestTimerRunsAndCatchesUpAfterRestart drives a timer prop with the
// fake clock, through the engine and the store's record of the last fire.
func TestTimerRunsAndCatchesUpAfterRestart(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	ticker := &fakeComponent{
		meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "timer", Type: component.TypeTimer, Default: json.RawMessage(`{"intervalSeconds":60}`)}}},
		run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
			return caps.Emit.Emit(ctx, abi.Emit{Event: event})
		},
	}
	src := te.deploy(te.saveComponent("ticker", ticker), nil)
	te.clock.Advance(61 * time.Second)
	evs := te.waitEvents(src.ID, "", 1)
	var ev struct {
		Timestamp       int64 `json:"timestamp"`
		IntervalSeconds int64 `json:"interval_seconds"`
	}
	if err := json.Unmarshal(evs[0].Data, &ev); err != nil || ev.IntervalSeconds != 60 || ev.Timestamp != te.clock.Now().Add(-time.Second).Unix() {
		t.Fatalf("timer event %s", evs[0].Data)
	}
	// Down for ten minutes: one catch-up fire at start, not ten.
	te.Stop()
	te.clock.Advance(10 * time.Minute)
	again := te.restart()
	te.clock.Advance(time.Millisecond)
	te.waitEvents(src.ID, "", 2)
	waitFor(t, "the catch-up run to be committed", func() bool { return again.workers.Idle() })
	if n := len(te.events(src.ID, "")); n != 2 {
		t.Errorf("%d runs after the restart, want one catch-up run", n-1)
	}
}

// TestObjectPropShapedLikeASealedValue: a value is opened because its prop
// is secret, not because of its shape.
func TestObjectPropShapedLikeASealedValue(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("shapes", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{
		{Name: "opts", Type: component.TypeObject},
		{Name: "token", Type: component.TypeString, Secret: true},
	}}})
	src := te.deploy(comp, map[string]any{"opts": map[string]string{secret.SealedKey: "not sealed"}, "token": "hunter2"})
	if !slices.Equal(src.SecretProps, []string{"token"}) || string(src.ConfiguredProps["opts"]) != `{"$sealed":"not sealed"}` {
		t.Fatalf("stored %v / %s", src.SecretProps, src.ConfiguredProps["opts"])
	}
	if strings.Contains(string(src.ConfiguredProps["token"]), "hunter2") {
		t.Fatal("the secret is stored in clear")
	}
	te.sources.Forget(src.ID)
	l, err := te.sources.Live(ctx, src.ID)
	if err != nil {
		t.Fatalf("the source does not load: %v", err)
	}
	f := l.Box.(*fakeSource)
	if string(f.prop("opts")) != `{"$sealed":"not sealed"}` || string(f.prop("token")) != `"hunter2"` {
		t.Errorf("loaded with opts %s token %s", f.prop("opts"), f.prop("token"))
	}
}

func TestPrepareProps(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	meta := &component.Metadata{ConfigurableProps: []component.Prop{
		{Name: "http", Type: component.TypeHTTP},
		{Name: "timer", Type: component.TypeTimer, Default: json.RawMessage(`{"intervalSeconds":30}`)},
		{Name: "db", Type: component.TypeDB},
		{Name: "n", Type: component.TypeInteger, Min: ptr(int64(1))},
		{Name: "token", Type: component.TypeString, Secret: true, Optional: true},
		{Name: "gone", Type: component.TypeString, Optional: true},
	}}
	first, err := te.prepareProps(meta, rawProps(map[string]any{"n": 2, "token": "t0", "gone": "x"}), nil, propsSource)
	if err != nil {
		t.Fatal(err)
	}
	previous := &model.Source{}
	first.apply(previous)
	if previous.Endpoints["http"] == "" || string(previous.ConfiguredProps["timer"]) != `{"cron":null,"interval_seconds":30}` {
		t.Fatalf("first: %+v", previous)
	}
	tests := []struct {
		name    string
		meta    *component.Metadata
		given   map[string]any
		prev    *model.Source
		check   func(t *testing.T, s model.Source)
		wantErr string
	}{
		{name: "required prop missing", meta: meta, given: map[string]any{}, wantErr: "The prop n is required"},
		{name: "unknown prop", meta: meta, given: map[string]any{"n": 1, "x": 1}, wantErr: "The prop x is not a prop of this component"},
		{name: "bad value", meta: meta, given: map[string]any{"n": 0}, wantErr: "must be at least 1"},
		{name: "marker without a stored secret", meta: meta, given: map[string]any{"n": 1, "token": secret.Marker}, wantErr: "has no stored value"},
		{name: "update keeps endpoint and secret by marker", meta: meta, prev: previous, given: map[string]any{"n": 3, "token": secret.Marker},
			check: func(t *testing.T, s model.Source) {
				if s.Endpoints["http"] != previous.Endpoints["http"] || string(s.ConfiguredProps["token"]) != string(previous.ConfiguredProps["token"]) || string(s.ConfiguredProps["n"]) != "3" {
					t.Errorf("update: %+v", s)
				}
			}},
		{name: "update without props keeps the values the component still has", prev: previous, given: nil,
			meta: &component.Metadata{ConfigurableProps: []component.Prop{meta.ConfigurableProps[0], meta.ConfigurableProps[3], meta.ConfigurableProps[4]}},
			check: func(t *testing.T, s model.Source) {
				if string(s.ConfiguredProps["n"]) != "2" || s.ConfiguredProps["gone"] != nil || !slices.Equal(s.SecretProps, []string{"token"}) ||
					string(s.ConfiguredProps["token"]) != string(previous.ConfiguredProps["token"]) {
					t.Errorf("kept: %+v", s)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var given map[string]json.RawMessage
			if tt.given != nil {
				given = rawProps(tt.given)
			}
			p, err := te.prepareProps(tt.meta, given, tt.prev, propsSource)
			if tt.wantErr != "" {
				var pe *component.PropError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a PropError with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s model.Source
			p.apply(&s)
			tt.check(t, s)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// propsSource is the source TestPrepareProps seals for.
var propsSource = model.Source{ID: "dc_props", OwnerID: "u_owner"}

// TestIngress drives a source's HTTP interface through the engine's
// handler: the run gets the request, respond() answers it, and requests
// that cannot be served are refused with a clear status.
func TestIngress(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.MaxBody = 16; c.RespondTimeout = time.Hour })
	responder := &fakeComponent{
		meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "http", Type: component.TypeHTTP, CustomResponse: true}}},
		run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
			var e struct {
				Path string `json:"path"`
				Body any    `json:"body"`
			}
			_ = json.Unmarshal(event, &e)
			if e.Path == "/silent" {
				return nil
			}
			b, _ := json.Marshal(e.Body)
			return caps.Respond.Respond(ctx, abi.Response{Status: 201, Headers: map[string]string{"X-Path": e.Path}, Body: string(b)})
		},
	}
	src := te.deploy(te.saveComponent("responder", responder), nil)
	srv := httptest.NewServer(te.Ingress())
	defer srv.Close()
	url := srv.URL + "/h/" + string(src.Endpoints["http"])
	post := func(path, body string) (*http.Response, string) {
		resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := post("/a/b", `{"k":"v"}`); resp.StatusCode != 201 || body != `{"k":"v"}` || resp.Header.Get("X-Path") != "/a/b" {
		t.Errorf("respond(): %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, body := post("/silent", `1`); resp.StatusCode != 500 || !strings.Contains(body, "without calling respond()") {
		t.Errorf("a run without respond(): %d %s", resp.StatusCode, body)
	}
	if resp, _ := post("", strings.Repeat("x", 17)); resp.StatusCode != 413 {
		t.Errorf("an oversize body: %d", resp.StatusCode)
	}
	if resp, err := http.Post(srv.URL+"/h/nope", "text/plain", nil); err != nil || resp.StatusCode != 404 {
		t.Errorf("an unknown endpoint: %v %v", resp, err)
	}
	req, _ := http.NewRequest(http.MethodOptions, url, nil)
	req.Header.Set("Access-Control-Request-Headers", "X-Custom")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Headers") != "X-Custom" {
		t.Errorf("CORS preflight: %v %v", resp, err)
	}
	te.Stop()
	if resp, _ := post("", `1`); resp.StatusCode != 404 {
		t.Errorf("after Stop: %d", resp.StatusCode)
	}
}

func TestQuotaRefusesIngress(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.QuotaInvocations = 1 })
	if err := te.st.CreateUser(ctx, model.User{ID: "u_owner", Plan: model.PlanFree}, "h"); err != nil {
		t.Fatal(err)
	}
	comp := te.saveComponent("hook", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "http", Type: component.TypeHTTP}}}})
	src := te.deploy(comp, nil)
	srv := httptest.NewServer(te.Ingress())
	defer srv.Close()
	url := srv.URL + "/h/" + string(src.Endpoints["http"])
	if resp, err := http.Post(url, "text/plain", nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	waitFor(t, "the run's usage to be counted", func() bool {
		u, _ := te.st.GetUsage(ctx, "u_owner", batch.Day(te.clock.Now()))
		return u.Invocations == 1
	})
	te.clock.Advance(batch.QuotaCacheTTL)
	if resp, err := http.Post(url, "text/plain", nil); err != nil || resp.StatusCode != 429 {
		t.Errorf("over the quota: %v %v", resp, err)
	}
}

// TestUnboundSecretsAreResealedAtStart: a secret sealed before values were
// bound (store schema 1) is bound to its source when the engine starts,
// and still reaches its component.
func TestUnboundSecretsAreResealedAtStart(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("legacy-secret", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "token", Type: component.TypeString, Secret: true}}}})
	src := te.deploy(comp, map[string]any{"token": "hunter2"})
	legacy, _ := json.Marshal(map[string]string{secret.SealedKey: te.cfg.Secrets.Seal([]byte(`"hunter2"`), "")})
	src.ConfiguredProps["token"] = legacy
	if _, err := te.st.UpdateSource(ctx, src, store.RunCommit{}); err != nil {
		t.Fatal(err)
	}
	te.Stop()
	again := te.restart()
	stored, _ := te.st.GetSource(ctx, src.ID)
	if string(stored.ConfiguredProps["token"]) == string(legacy) || !strings.Contains(string(stored.ConfiguredProps["token"]), `"v2.`) {
		t.Fatalf("the legacy value was not resealed: %s", stored.ConfiguredProps["token"])
	}
	l, err := again.sources.Live(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Box.(*fakeSource).prop("token"); string(got) != `"hunter2"` {
		t.Errorf("the component got %s", got)
	}
}

// TestSealedValuesDoNotOpenElsewhere: a sealed value copied into another
// source (another tenant's, even as the same prop) does not open there.
func TestSealedValuesDoNotOpenElsewhere(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("secretive", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "token", Type: component.TypeString, Secret: true}}}})
	victim := te.deploy(comp, map[string]any{"token": "hunter2"})
	thief, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_thief", UserID: "u_thief", Component: comp, Props: rawProps(map[string]any{"token": "mine"})})
	if err != nil {
		t.Fatal(err)
	}
	thief.ConfiguredProps["token"] = victim.ConfiguredProps["token"] // as if copied from a stolen store file
	if _, err := te.st.UpdateSource(ctx, thief, store.RunCommit{}); err != nil {
		t.Fatal(err)
	}
	te.sources.Forget(thief.ID)
	if _, err := te.sources.Live(ctx, thief.ID); err == nil || !strings.Contains(err.Error(), "secret prop token") {
		t.Fatalf("the copied value loaded: %v", err)
	}
}

// TestHookErrorsNameTheirJSError: a hook that threw is described on
// $errors by the JavaScript error it threw, not by the wrapping message.
func TestHookErrorsNameTheirJSError(t *testing.T) {
	t.Parallel()
	ev := emit.ErrorEvent(&HookError{Hook: "deploy", Name: "TypeError", Msg: "x is undefined"}, model.Invocation{Kind: hookKind("deploy")})
	var got struct {
		Error struct{ Name, Message string } `json:"error"`
	}
	if err := json.Unmarshal(ev.Data, &got); err != nil || got.Error.Name != "TypeError" || got.Error.Message != "x is undefined" {
		t.Errorf("the $errors event of a hook error: %s (%v)", ev.Data, err)
	}
}
