package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

const tinySource = `export default { key: "tiny", name: "Tiny Source", version: "1.0.0", props: { n: { type: "integer", min: 1, max: 5, default: 2 } }, run() {} }`

func TestComponents(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.must(h.call("POST", "/v1/components", "owner-key", map[string]any{"component_code": tinySource}), 200)
	d := r.data()
	sum := sha256.Sum256([]byte(tinySource))
	if !strings.HasPrefix(d["id"].(string), "sc_") || d["code_hash"] != hex.EncodeToString(sum[:]) || d["name"] != "Tiny Source" || d["version"] != "1.0.0" || d["code"] != tinySource {
		t.Fatalf("component: %v", d)
	}
	props := d["configurable_props"].([]any)
	if len(props) != 1 || props[0].(map[string]any)["name"] != "n" || props[0].(map[string]any)["type"] != "integer" {
		t.Errorf("configurable_props: %v", props)
	}
	id := d["id"].(string)
	if g := h.must(h.call("GET", "/v1/components/"+id, "owner-key", nil), 200); g.data()["id"] != id {
		t.Errorf("get by id: %v", g.data())
	}
	if g := h.must(h.call("GET", "/v1/components/tiny", "owner-key", nil), 200); g.data()["id"] != id {
		t.Errorf("get by key: %v", g.data())
	}

	t.Run("precedence and required fields", func(t *testing.T) {
		if r := h.call("POST", "/v1/components", "owner-key", map[string]any{}); r.status != 400 || r.errParam() != "component_code" {
			t.Errorf("neither field: %d %s", r.status, r.raw)
		}
		// Code wins; the URL is only metadata and is not fetched (no fetcher here).
		r := h.call("POST", "/v1/components", "owner-key", map[string]any{"component_code": tinySource, "component_url": "https://example.com/c.mjs"})
		if r.status != 200 {
			t.Errorf("code with url: %d %s", r.status, r.raw)
		}
		if r := h.call("POST", "/v1/components", "owner-key", map[string]any{"component_url": "https://example.com/c.mjs"}); r.status != 400 || r.errParam() != "component_url" {
			t.Errorf("url alone without a fetcher: %d %s", r.status, r.raw)
		}
		if r := h.call("POST", "/v1/components", "owner-key", map[string]any{"component_url": "ftp://example.com/c.mjs"}); r.status != 400 || r.errParam() != "component_url" {
			t.Errorf("ftp url: %d %s", r.status, r.raw)
		}
	})
	t.Run("bad code says where", func(t *testing.T) {
		r := h.call("POST", "/v1/components", "owner-key", map[string]any{"component_code": "export default {\n  name: \"x\", version: \"1\",\n  run() { return ) }\n}"})
		if r.status != 400 || r.errCode() != "invalid_component" || !contains(r.raw, "line 3, column 18") {
			t.Errorf("syntax error: %d %s", r.status, r.raw)
		}
		r = h.call("POST", "/v1/components", "owner-key", map[string]any{"component_code": `export default { name: "x", version: "1" }`})
		if r.status != 400 || !contains(r.raw, "run method") {
			t.Errorf("no run: %d %s", r.status, r.raw)
		}
	})
	t.Run("registry", func(t *testing.T) {
		r := h.must(h.call("GET", "/v1/components/registry/http-new-requests", "owner-key", nil), 200)
		if r.data()["name"] != "New Requests" {
			t.Errorf("registry: %v", r.data())
		}
		if r := h.call("GET", "/v1/components/registry/nope", "owner-key", nil); r.status != 404 {
			t.Errorf("unknown registry key: %d", r.status)
		}
	})
}

func TestSources(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.must(h.deploy("owner-key", "http-request.mjs", map[string]any{"token": "s3cret", "allowedMethods": []string{"POST"}}, nil), 200)
	src := r.data()
	id := src["id"].(string)
	if !strings.HasPrefix(id, "dc_") || src["user_id"] != h.owner.ID || src["active"] != true || src["name"] != "new-requests" || src["name_slug"] != "new-requests" {
		t.Fatalf("source: %v", src)
	}
	cp := src["configured_props"].(map[string]any)
	if cp["token"] != secret.Marker {
		t.Errorf("a secret prop is shown: %v", cp["token"])
	}
	endpoint := cp["http"].(map[string]any)["endpoint_url"].(string)
	if !strings.HasPrefix(endpoint, "http://fount.test/h/") || len(endpoint) < len("http://fount.test/h/")+20 {
		t.Errorf("endpoint_url %q", endpoint)
	}
	if strings.Contains(r.raw, "s3cret") {
		t.Fatal("the secret value appears in the response")
	}
	stored, _ := h.st.GetSource(context.Background(), id)
	if raw, _ := json.Marshal(stored); strings.Contains(string(raw), "s3cret") || !slices.Contains(stored.SecretProps, "token") {
		t.Fatalf("the secret is stored in clear, or not named as sealed: %s", raw)
	}

	t.Run("name defaults to a unique slug", func(t *testing.T) {
		r := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200)
		if r.data()["name_slug"] != "new-requests-2" {
			t.Errorf("second slug %v", r.data()["name_slug"])
		}
		r = h.must(h.deploy("owner-key", "http-request.mjs", nil, map[string]any{"name": "My Hook!"}), 200)
		if r.data()["name"] != "My Hook!" || r.data()["name_slug"] != "my-hook" {
			t.Errorf("named: %v", r.data())
		}
		if r := h.deploy("owner-key", "http-request.mjs", nil, map[string]any{"name": "my hook"}); r.status != 409 || r.errParam() != "name" {
			t.Errorf("taken name: %d %s", r.status, r.raw)
		}
	})

	t.Run("component field precedence", func(t *testing.T) {
		comp := h.must(h.call("POST", "/v1/components", "owner-key", map[string]any{"component_code": tinySource}), 200).data()["id"].(string)
		// component_id wins over code.
		r := h.must(h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_id": comp, "component_code": "garbage ((("}), 200)
		if r.data()["component_id"] != comp {
			t.Errorf("component_id did not win: %v", r.data())
		}
		// component_code wins over component_url, which is then only
		// metadata (this server has no fetcher, so a fetch would fail).
		r = h.must(h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_code": tinySource, "component_url": "https://example.com/t.mjs"}), 200)
		saved, err := h.st.GetComponent(context.Background(), r.data()["component_id"].(string))
		if err != nil || saved.ComponentURL != "https://example.com/t.mjs" || saved.Code != tinySource {
			t.Errorf("code with url: %v %+v", err, saved)
		}
		if r := h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_url": "https://example.com/t.mjs"}); r.status != 400 || r.errParam() != "component_url" {
			t.Errorf("url alone is fetched (and this server cannot): %d %s", r.status, r.raw)
		}
		// The same precedence on update.
		r = h.must(h.call("PUT", "/v1/sources/"+r.data()["id"].(string), "owner-key", map[string]any{"component_id": comp, "component_code": "((("}), 200)
		if r.data()["component_id"] != comp {
			t.Errorf("update: component_id did not win: %v", r.data())
		}
		if r := h.call("POST", "/v1/sources", "owner-key", map[string]any{"name": "x"}); r.status != 400 || r.errCode() != "missing_parameter" {
			t.Errorf("no component field: %d %s", r.status, r.raw)
		}
		if r := h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_id": "sc_nope"}); r.status != 404 || r.errParam() != "component_id" {
			t.Errorf("unknown component_id: %d %s", r.status, r.raw)
		}
	})

	t.Run("props are validated", func(t *testing.T) {
		tests := []struct {
			props  map[string]any
			status int
			param  string
		}{
			{map[string]any{"n": 9}, 400, "configured_props.n"},
			{map[string]any{"n": 0}, 400, "configured_props.n"},
			{map[string]any{"n": "3"}, 400, "configured_props.n"},
			{map[string]any{"n": 2.5}, 400, "configured_props.n"},
			{map[string]any{"zzz": 1}, 400, "configured_props.zzz"},
			{map[string]any{"n": 3}, 200, ""},
		}
		timer := `export default { name: "t", version: "1", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } }, run() {} }`
		for _, tc := range []struct {
			value  any
			status int
		}{
			{map[string]any{"cron": "*/5 * * * *"}, 200}, {map[string]any{"cron": "@hourly"}, 200}, {map[string]any{"cron": "0 */5 * * * *"}, 200},
			{map[string]any{"cron": "61 * * * *"}, 400}, {map[string]any{"cron": "every tuesday"}, 400}, {map[string]any{"intervalSeconds": 0}, 400},
			{map[string]any{"intervalSeconds": 1.5}, 400}, {"soon", 400},
		} {
			r := h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_code": timer, "configured_props": map[string]any{"timer": tc.value}})
			if r.status != tc.status {
				t.Errorf("timer %v: %d %s", tc.value, r.status, r.raw)
			}
		}
		for _, tt := range tests {
			r := h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_code": tinySource, "configured_props": tt.props})
			if r.status != tt.status || r.errParam() != tt.param {
				t.Errorf("props %v: %d %s", tt.props, r.status, r.raw)
			}
		}
		big := strings.Repeat("x", component.MaxPropValue+1)
		r := h.deploy("owner-key", "http-request.mjs", map[string]any{"token": big}, nil)
		if r.status != 413 || r.errParam() != "configured_props.token" {
			t.Errorf("a prop over 64 KB: %d %.200s", r.status, r.raw)
		}
		r = h.deploy("owner-key", "http-request.mjs", map[string]any{"allowedMethods": []string{"GET", "TRACE"}}, nil)
		if r.status != 400 || !contains(r.raw, "options") {
			t.Errorf("a value outside static options: %d %s", r.status, r.raw)
		}
		r = h.call("POST", "/v1/sources", "owner-key", map[string]any{"component_code": `export default { name: "r", version: "1", props: { feed: { type: "string" } }, run() {} }`})
		if r.status != 400 || r.errParam() != "configured_props.feed" || !contains(r.raw, "required") {
			t.Errorf("a missing required prop: %d %s", r.status, r.raw)
		}
	})

	t.Run("update keeps the id, the endpoint and the secret", func(t *testing.T) {
		r := h.must(h.call("PUT", "/v1/sources/"+id, "owner-key", map[string]any{
			"component_code": readTestComponent(t, "http-request.mjs"), "configured_props": map[string]any{"token": secret.Marker, "allowedMethods": []string{"GET"}},
		}), 200)
		d := r.data()
		if d["id"] != id || d["configured_props"].(map[string]any)["http"].(map[string]any)["endpoint_url"] != endpoint {
			t.Errorf("update: %v", d)
		}
		after, _ := h.st.GetSource(context.Background(), id)
		if string(after.ConfiguredProps["token"]) != string(stored.ConfiguredProps["token"]) || !slices.Contains(after.SecretProps, "token") ||
			string(after.ConfiguredProps["allowedMethods"]) != `["GET"]` {
			t.Errorf("stored props after update: %v %v, want the sealed token kept", after.ConfiguredProps, after.SecretProps)
		}
		r = h.must(h.call("PUT", "/v1/sources/"+id, "owner-key", map[string]any{"component_id": d["component_id"], "active": false}), 200)
		if r.data()["active"] != false {
			t.Errorf("active false: %v", r.data())
		}
		r = h.must(h.call("PUT", "/v1/sources/"+id, "owner-key", map[string]any{"component_id": d["component_id"]}), 200)
		if r.data()["active"] != true {
			t.Errorf("active defaults to true on update: %v", r.data())
		}
		if r := h.call("PUT", "/v1/sources/"+id, "owner-key", map[string]any{"active": true}); r.status != 400 {
			t.Errorf("update without a component field: %d", r.status)
		}
	})

	t.Run("list and delete", func(t *testing.T) {
		r := h.must(h.call("GET", "/v1/users/me/sources/", "owner-key", nil), 200)
		if r.pageInfo()["total_count"].(float64) < 3 {
			t.Errorf("list: %v", r.pageInfo())
		}
		h.must(h.call("DELETE", "/v1/sources/"+id, "owner-key", nil), 204)
		if r := h.call("DELETE", "/v1/sources/"+id, "owner-key", nil); r.status != 404 {
			t.Errorf("second delete: %d", r.status)
		}
	})
}

func TestSubscriptions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200).data()["id"].(string)
	b := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200).data()["id"].(string)
	wh := h.must(h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": "https://example.com/h"}), 200).data()["id"].(string)
	q := func(emitter, listener, name string) string {
		return "?" + url.Values{"emitter_id": {emitter}, "listener_id": {listener}, "event_name": {name}}.Encode()
	}
	first := h.must(h.call("POST", "/v1/subscriptions"+q(a, b, ""), "owner-key", nil), 200).data()
	if !strings.HasPrefix(first["id"].(string), "sub_") || first["emitter_id"] != a || first["listener_id"] != b || first["event_name"] != "" {
		t.Fatalf("subscription: %v", first)
	}
	again := h.must(h.call("POST", "/v1/subscriptions"+q(a, b, ""), "owner-key", nil), 200).data()
	if again["id"] != first["id"] {
		t.Errorf("creating the same subscription twice made a new one")
	}
	h.must(h.call("POST", "/v1/subscriptions"+q(a, wh, "orders"), "owner-key", nil), 200)
	h.must(h.call("POST", "/v1/subscriptions"+q("dc_*", wh, "$errors"), "owner-key", nil), 200)
	h.must(h.call("POST", "/v1/subscriptions"+q("p_*", b, ""), "owner-key", nil), 200)
	for _, bad := range []struct{ q, param string }{
		{q("", b, ""), "emitter_id"}, {q(a, "", ""), "listener_id"}, {q("dc_nope", b, ""), "emitter_id"},
		{q(a, "wh_nope", ""), "listener_id"}, {q("wh_x", b, ""), "emitter_id"}, {q(a, "zz_1", ""), "listener_id"},
	} {
		if r := h.call("POST", "/v1/subscriptions"+bad.q, "owner-key", nil); r.status < 400 || r.errParam() != bad.param {
			t.Errorf("POST /subscriptions%s: %d %s", bad.q, r.status, r.raw)
		}
	}
	list := h.must(h.call("GET", "/v1/users/me/subscriptions", "owner-key", nil), 200)
	if len(list.list()) != 4 || list.body["page_info"] != nil {
		t.Errorf("list: %s", list.raw)
	}
	h.must(h.call("DELETE", "/v1/subscriptions"+q(a, wh, "orders"), "owner-key", nil), 204)
	if r := h.call("DELETE", "/v1/subscriptions"+q(a, wh, "orders"), "owner-key", nil); r.status != 404 {
		t.Errorf("deleting twice: %d", r.status)
	}
	// Deleting a source removes the subscriptions naming it.
	h.must(h.call("DELETE", "/v1/sources/"+b, "owner-key", nil), 204)
	list = h.must(h.call("GET", "/v1/users/me/subscriptions", "owner-key", nil), 200)
	if len(list.list()) != 1 {
		t.Errorf("after deleting the listener: %s", list.raw)
	}

	auto := h.must(h.call("POST", "/v1/auto_subscriptions?event_name=%24errors&listener_id="+wh, "owner-key", nil), 200).data()
	if auto["event_name"] != "$errors" || auto["listener_id"] != wh {
		t.Errorf("auto subscription: %v", auto)
	}
	if r := h.call("POST", "/v1/auto_subscriptions?event_name=orders&listener_id="+wh, "owner-key", nil); r.status != 400 || r.errParam() != "event_name" {
		t.Errorf("auto subscription to a custom channel: %d %s", r.status, r.raw)
	}
}

func TestWebhookURLs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://example.com", true}, {"http://example.com/path/to?x=1", true}, {"https://example.com:8443/h", true},
		{"http://127.0.0.1:9000/h", true}, {"http://[::1]:9000/h", true}, {"https://sub.example.co.uk/", true},
		{"example.com/hook", false}, {"ftp://example.com", false}, {"file:///etc/passwd", false}, {"javascript:alert(1)", false},
		{"https://", false}, {"https:///path", false}, {"https://user:pw@example.com", false}, {"https://example.com:0", false},
		{"https://example.com:99999", false}, {"https://example.com:", false}, {"https://exa mple.com", false},
		{"https://-bad-.com", false}, {"https://example.com/#frag", false}, {"", false}, {"mailto:a@example.com", false},
	}
	for _, tt := range tests {
		r := h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": tt.url})
		if tt.ok && r.status != 200 {
			t.Errorf("%q refused: %s", tt.url, r.raw)
		}
		if !tt.ok && (r.status != 400 || r.errParam() != "url") {
			t.Errorf("%q: %d %s, want 400 naming url", tt.url, r.status, r.raw)
		}
	}
	r := h.must(h.call("POST", "/v1/webhooks", "owner-key", map[string]any{"url": "https://example.com/x", "name": "n", "description": "d"}), 200)
	d := r.data()
	if !strings.HasPrefix(d["signing_secret"].(string), "whsec_") || d["user_id"] != h.owner.ID || d["active"] != true || d["name"] != "n" || d["description"] != "d" {
		t.Errorf("create: %v", d)
	}
	list := h.must(h.call("GET", "/v1/users/me/webhooks?limit=100", "owner-key", nil), 200)
	if contains(list.raw, "whsec_") || contains(list.raw, `"user_id"`) {
		t.Errorf("the list shows the signing secret or user_id: %s", list.raw)
	}
	h.must(h.call("DELETE", "/v1/webhooks/"+d["id"].(string), "owner-key", nil), 204)
	if r := h.call("DELETE", "/v1/webhooks/"+d["id"].(string), "owner-key", nil); r.status != 404 {
		t.Errorf("deleting twice: %d", r.status)
	}
}

func TestEventSummaries(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200).data()["id"].(string)
	ctx := context.Background()
	var events []model.Event
	for i := range 12 {
		events = append(events, model.Event{EmitID: "e", Data: json.RawMessage(`{"i":` + string(rune('0'+i%10)) + `}`), Summary: "s"})
	}
	events = append(events, model.Event{EmitID: "big", Data: json.RawMessage(`"` + strings.Repeat("y", 3000) + `"`)})
	stored, err := h.st.AppendEvents(ctx, id, events, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.AppendEvents(ctx, id, []model.Event{{Name: "orders", Data: json.RawMessage(`1`)}}, 100); err != nil {
		t.Fatal(err)
	}
	r := h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries", "owner-key", nil), 200)
	if len(r.list()) != 10 {
		t.Fatalf("default limit: %d", len(r.list()))
	}
	// total_count is the channel's events, not the page's (the spec).
	for q, want := range map[string]float64{"": 13, "?limit=3": 13, "?limit=3&after=" + stored[5].ID: 13, "?event_name=orders": 1, "?event_name=none": 0} {
		info := h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries"+q, "owner-key", nil), 200).pageInfo()
		if info["total_count"] != want {
			t.Errorf("%s: total_count %v, want %v", q, info["total_count"], want)
		}
	}
	newest := r.list()[0].(map[string]any)
	if newest["id"] != stored[12].ID || newest["metadata"].(map[string]any)["emitter_id"] != id || newest["metadata"].(map[string]any)["name"] != "" {
		t.Errorf("newest first: %v", newest)
	}
	if newest["metadata"].(map[string]any)["truncated"] != true || len(mustJSON(t, newest["event"])) > 1200 {
		t.Errorf("a 3 KB event is not truncated: %v", newest["metadata"])
	}
	r = h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries?limit=1&expand=event", "owner-key", nil), 200)
	if ev := r.list()[0].(map[string]any)["event"].(string); len(ev) != 3000 {
		t.Errorf("expand=event gave %d bytes", len(ev))
	}
	r = h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries?event_name=orders", "owner-key", nil), 200)
	if len(r.list()) != 1 {
		t.Errorf("channel orders: %s", r.raw)
	}
	// Paging with the cursors of page_info: after is the next (older)
	// page, before the page before it; an empty limit is the default.
	page := func(q string) []string {
		var got []string
		for _, it := range h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries?"+q, "owner-key", nil), 200).list() {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		return got
	}
	ids := func(from, to int) []string { // stored[to] down to stored[from], newest first
		var out []string
		for i := to; i >= from; i-- {
			out = append(out, stored[i].ID)
		}
		return out
	}
	if got := page("limit=5&after=" + stored[8].ID); !slices.Equal(got, ids(3, 7)) {
		t.Errorf("after: %v, want %v", got, ids(3, 7))
	}
	if got := page("limit=3&before=" + stored[2].ID); !slices.Equal(got, ids(3, 5)) {
		t.Errorf("before: %v, want %v", got, ids(3, 5))
	}
	if got := page("limit=&after=" + stored[12].ID); !slices.Equal(got, ids(2, 11)) {
		t.Errorf("an empty limit: %v, want the default 10", got)
	}
	for _, bad := range []string{"?limit=0", "?limit=101", "?expand=all", "?after=yesterday", "?after=1-0&before=2-0"} {
		if r := h.call("GET", "/v1/sources/"+id+"/event_summaries"+bad, "owner-key", nil); r.status != 400 {
			t.Errorf("%s: %d", bad, r.status)
		}
	}
	if r := h.call("GET", "/v1/workflows/p_x/event_summaries", "owner-key", nil); r.status != 404 {
		t.Errorf("workflow events: %d", r.status)
	}
	if r := h.call("GET", "/v1/workflows/p_x/$errors/event_summaries", "owner-key", nil); r.status != 404 {
		t.Errorf("workflow errors: %d", r.status)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDeleteEventsRules checks the spec's five rules, each on a fresh
// source with events e0..e5.
func TestDeleteEventsRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name       string
		start, end int // indexes into the six events; -1 for none
		remaining  []int
	}{
		{"neither: all", -1, -1, nil},
		{"start only: it and later", 3, -1, []int{0, 1, 2}},
		{"end only: it and earlier", -1, 2, []int{3, 4, 5}},
		{"both: inclusive range", 1, 3, []int{0, 4, 5}},
		{"same id twice: that event", 2, 2, []int{0, 1, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200).data()["id"].(string)
			var evs []model.Event
			for range 6 {
				evs = append(evs, model.Event{Data: json.RawMessage(`{}`)})
			}
			stored, err := h.st.AppendEvents(context.Background(), id, evs, 100)
			if err != nil {
				t.Fatal(err)
			}
			q := url.Values{}
			if tt.start >= 0 {
				q.Set("start_id", stored[tt.start].ID)
			}
			if tt.end >= 0 {
				q.Set("end_id", stored[tt.end].ID)
			}
			h.must(h.call("DELETE", "/v1/sources/"+id+"/events?"+q.Encode(), "owner-key", nil), 202)
			var want []string
			for i := len(tt.remaining) - 1; i >= 0; i-- {
				want = append(want, stored[tt.remaining[i]].ID)
			}
			wait.For(t, fmt.Sprintf("the events %v to remain", want), wait.Short, func() ([]string, bool) {
				r := h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries?limit=100", "owner-key", nil), 200)
				var got []string
				for _, it := range r.list() {
					got = append(got, it.(map[string]any)["id"].(string))
				}
				return got, strings.Join(got, ",") == strings.Join(want, ",")
			})
		})
	}
	id := h.must(h.deploy("owner-key", "http-request.mjs", nil, nil), 200).data()["id"].(string)
	if r := h.call("DELETE", "/v1/sources/"+id+"/events?start_id=yesterday", "owner-key", nil); r.status != 400 || r.errParam() != "start_id" {
		t.Errorf("a malformed id: %d %s", r.status, r.raw)
	}
}

func TestUsersAndOrgs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	me := h.must(h.call("GET", "/v1/users/me", "owner-key", nil), 200).data()
	if me["id"] != h.owner.ID || me["daily_invocations_quota"] == nil || me["billing_period_start_ts"] != nil {
		t.Errorf("free user: %v", me)
	}
	r := h.must(h.call("POST", "/v1/users", "owner-key", map[string]any{"username": "payer", "email": "p@example.com", "plan": "paid"}), 200)
	paidKey := r.data()["api_key"].(string)
	paid := h.must(h.call("GET", "/v1/users/me", paidKey, nil), 200).data()
	if paid["billing_period_start_ts"] == nil || paid["daily_invocations_quota"] != nil {
		t.Errorf("paid user: %v", paid)
	}
	for _, bad := range []map[string]any{
		{"username": "", "email": "a@example.com"}, {"username": "ok", "email": "nope"}, {"username": "ok", "email": "a@example.com", "plan": "gold"},
	} {
		if r := h.call("POST", "/v1/users", "owner-key", bad); r.status != 400 {
			t.Errorf("create user %v: %d", bad, r.status)
		}
	}
	if r := h.call("POST", "/v1/users", paidKey, map[string]any{"username": "x", "email": "x@example.com"}); r.status != 403 {
		t.Errorf("a non-owner creating users: %d", r.status)
	}
	org := h.must(h.call("POST", "/v1/orgs", "owner-key", map[string]any{"orgname": "acme", "name": "Acme", "email": "ops@acme.example"}), 200).data()
	if !strings.HasPrefix(org["id"].(string), "o_") {
		t.Fatalf("org: %v", org)
	}
	if r := h.call("POST", "/v1/orgs", paidKey, map[string]any{"orgname": "x"}); r.status != 403 {
		t.Errorf("a non-owner creating orgs: %d", r.status)
	}
	me = h.must(h.call("GET", "/v1/users/me", "owner-key", nil), 200).data()
	if orgs := me["orgs"].([]any); len(orgs) != 1 || orgs[0].(map[string]any)["orgname"] != "acme" {
		t.Errorf("orgs of the creator: %v", me["orgs"])
	}
}

// TestCrossTenant: one tenant never sees another's resources; org members
// share the org's.
func TestCrossTenant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	aliceID, alice := h.newUser("alice")
	_, bob := h.newUser("bob")
	carolID, carol := h.newUser("carol")
	org := h.must(h.call("POST", "/v1/orgs", "owner-key", map[string]any{"orgname": "team"}), 200).data()["id"].(string)
	h.must(h.call("POST", "/v1/orgs/"+org+"/members", "owner-key", map[string]any{"user_id": aliceID}), 200)
	h.must(h.call("POST", "/v1/orgs/"+org+"/members", "owner-key", map[string]any{"user_id": carolID}), 200)

	own := h.must(h.deploy(alice, "http-request.mjs", nil, nil), 200).data()["id"].(string)
	shared := h.must(h.deploy(alice, "http-request.mjs", nil, map[string]any{"org_id": org}), 200).data()
	sharedID := shared["id"].(string)
	comp := shared["component_id"].(string)
	wh := h.must(h.call("POST", "/v1/webhooks", alice, map[string]any{"url": "https://example.com"}), 200).data()["id"].(string)

	// Bob sees none of Alice's things, and learns nothing of their existence.
	for _, c := range []struct{ method, path string }{
		{"PUT", "/v1/sources/" + own}, {"DELETE", "/v1/sources/" + own}, {"GET", "/v1/sources/" + own + "/event_summaries"},
		{"DELETE", "/v1/sources/" + own + "/events"}, {"GET", "/v1/components/" + comp}, {"DELETE", "/v1/webhooks/" + wh},
		{"PUT", "/v1/sources/" + sharedID},
	} {
		var body any
		if c.method == "PUT" {
			body = map[string]any{"component_id": comp}
		}
		if r := h.call(c.method, c.path, bob, body); r.status != 404 {
			t.Errorf("bob %s %s: %d, want 404", c.method, c.path, r.status)
		}
	}
	if r := h.call("POST", "/v1/subscriptions?emitter_id="+own+"&listener_id="+wh, bob, nil); r.status != 404 {
		t.Errorf("bob subscribing alice's resources: %d", r.status)
	}
	if r := h.call("GET", "/v1/orgs/"+org+"/sources", bob, nil); r.status != 403 {
		t.Errorf("bob listing the org: %d", r.status)
	}
	if r := h.deploy(bob, "http-request.mjs", nil, map[string]any{"org_id": org}); r.status != 403 {
		t.Errorf("bob creating in the org: %d", r.status)
	}
	if r := h.must(h.call("GET", "/v1/users/me/sources", bob, nil), 200); len(r.list()) != 0 {
		t.Errorf("bob's list shows %d sources", len(r.list()))
	}

	// Carol, a member, reads and updates the org's source, but not Alice's own.
	if r := h.must(h.call("GET", "/v1/orgs/"+org+"/sources", carol, nil), 200); len(r.list()) != 1 || r.list()[0].(map[string]any)["id"] != sharedID {
		t.Errorf("carol's org list: %s", r.raw)
	}
	if r := h.call("PUT", "/v1/sources/"+sharedID, carol, map[string]any{"component_id": comp, "name": "renamed"}); r.status != 200 {
		t.Errorf("carol updating the org source: %d %s", r.status, r.raw)
	}
	if r := h.call("GET", "/v1/components/"+comp, carol, nil); r.status != 200 {
		t.Errorf("carol reading the org's component: %d", r.status)
	}
	if r := h.call("DELETE", "/v1/sources/"+own, carol, nil); r.status != 404 {
		t.Errorf("carol deleting alice's own source: %d", r.status)
	}
	if r := h.call("GET", "/v1/orgs/o_nope/sources", carol, nil); r.status != 404 {
		t.Errorf("an unknown org: %d", r.status)
	}
	if r := h.call("GET", "/v1/orgs/"+org+"/subscriptions", carol, nil); r.status != 200 {
		t.Errorf("carol listing org subscriptions: %d", r.status)
	}
	// The org's webhooks are listed for its members, apart from their own.
	orgHook := h.must(h.call("POST", "/v1/webhooks?org_id="+org, alice, map[string]any{"url": "https://example.com/org"}), 200).data()["id"].(string)
	if r := h.must(h.call("GET", "/v1/orgs/"+org+"/webhooks", carol, nil), 200); len(r.list()) != 1 || r.list()[0].(map[string]any)["id"] != orgHook {
		t.Errorf("carol's list of the org's webhooks: %s", r.raw)
	}
	if r := h.call("GET", "/v1/orgs/"+org+"/webhooks", bob, nil); r.status != 403 {
		t.Errorf("bob listing the org's webhooks: %d", r.status)
	}
	if r := h.must(h.call("GET", "/v1/users/me/webhooks", alice, nil), 200); len(r.list()) != 1 || r.list()[0].(map[string]any)["id"] != wh {
		t.Errorf("alice's own webhooks: %s", r.raw)
	}

	// A member's subscription to an org source lives with the org, where
	// every member (and the engine) finds it; deleting it works the same way.
	carolHook := h.must(h.call("POST", "/v1/webhooks", carol, map[string]any{"url": "https://example.com/carol"}), 200).data()["id"].(string)
	h.must(h.call("POST", "/v1/subscriptions?emitter_id="+sharedID+"&listener_id="+carolHook, carol, nil), 200)
	if r := h.must(h.call("GET", "/v1/orgs/"+org+"/subscriptions", alice, nil), 200); len(r.list()) != 1 {
		t.Errorf("the org's subscriptions, as alice sees them: %s", r.raw)
	}
	if r := h.must(h.call("GET", "/v1/users/me/subscriptions", carol, nil), 200); len(r.list()) != 0 {
		t.Errorf("carol's personal subscriptions: %s", r.raw)
	}
	h.must(h.call("DELETE", "/v1/subscriptions?emitter_id="+sharedID+"&listener_id="+carolHook+"&event_name=", carol, nil), 204)
}
