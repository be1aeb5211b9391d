package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fount-dev/fount/internal/wait"
)

func TestConfigureListsRemoteOptionsByPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	comp := h.must(h.call("POST", "/v1/components", h.ownerKey, map[string]any{"component_code": readTestComponent(t, "configurable.mjs")}), 200).data()
	id := comp["id"].(string)
	options := func(r response) string {
		t.Helper()
		b, _ := json.Marshal(r.data()["options"])
		return string(b)
	}
	first := h.must(h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, map[string]any{
		"prop_name": "city", "configured_props": map[string]any{"region": "eu"}}), 200)
	if got := options(first); got != `[{"label":"PARIS","value":"paris"},{"label":"BERLIN","value":"berlin"}]` {
		t.Fatalf("first page: %s", got)
	}
	ctx := first.data()["context"]
	if ctx == nil {
		t.Fatalf("the first page has no context for the next: %s", first.raw)
	}
	second := h.must(h.call("POST", "/v1/components/configurable/configure", h.ownerKey, map[string]any{
		"prop_name": "city", "configured_props": map[string]any{"region": "eu"}, "page": 1, "prev_context": ctx}), 200)
	if got := options(second); got != `[{"label":"MADRID","value":"madrid"}]` || second.data()["context"] != nil {
		t.Fatalf("second page: %s", second.raw)
	}
	static := h.must(h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, map[string]any{"prop_name": "region"}), 200)
	if got := options(static); got != `["eu","us"]` {
		t.Fatalf("static options: %s", got)
	}

	tests := []struct {
		name  string
		body  map[string]any
		code  string
		param string
	}{
		{"no prop", map[string]any{}, "missing_parameter", "prop_name"},
		{"unknown prop", map[string]any{"prop_name": "nosuch"}, "invalid_parameter", "configured_props.nosuch"},
		{"prop without options", map[string]any{"prop_name": "detailed"}, "invalid_parameter", "configured_props.detailed"},
		{"options method throws", map[string]any{"prop_name": "city", "configured_props": map[string]any{"region": "broken"}}, "component_method_failed", ""},
	}
	for _, tt := range tests {
		r := h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, tt.body)
		if r.status != http.StatusBadRequest || r.errCode() != tt.code || r.errParam() != tt.param {
			t.Errorf("%s: %d %s", tt.name, r.status, r.raw)
		}
	}
	if r := h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, map[string]any{"prop_name": "city", "configured_props": map[string]any{"region": "broken"}}); !contains(r.raw, "no cities in a broken region") {
		t.Errorf("the thrown error is not named: %s", r.raw)
	}
	// Another user cannot run someone else's component.
	_, other := h.newUser("other")
	if r := h.call("POST", "/v1/components/"+id+"/configure", other, map[string]any{"prop_name": "city"}); r.status != 404 {
		t.Errorf("another user: %d %s", r.status, r.raw)
	}
}

func TestReloadPropsAddsWhatAdditionalPropsReturns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.must(h.call("POST", "/v1/components", h.ownerKey, map[string]any{"component_code": readTestComponent(t, "configurable.mjs")}), 200).data()["id"].(string)
	names := func(r response) []string {
		var out []string
		for _, p := range r.data()["configurable_props"].([]any) {
			out = append(out, p.(map[string]any)["name"].(string))
		}
		return out
	}
	plain := h.must(h.call("POST", "/v1/components/"+id+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"detailed": false}}), 200)
	if got := names(plain); len(got) != 4 {
		t.Fatalf("without detail: %v", got)
	}
	detailed := h.must(h.call("POST", "/v1/components/"+id+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"detailed": true}}), 200)
	got := names(detailed)
	if len(got) != 5 || got[4] != "depth" {
		t.Fatalf("with detail: %v", got)
	}
	depth := detailed.data()["configurable_props"].([]any)[4].(map[string]any)
	if depth["type"] != "integer" || depth["label"] != "Depth" || depth["max"] != float64(5) {
		t.Errorf("the added prop reads %v", depth)
	}
}

// TestDeployTakesAdditionalProps: a value of a prop that additionalProps
// adds is accepted at deploy when the method adds it for the values given,
// refused otherwise, and reaches the run as this.<name>.
func TestDeployTakesAdditionalProps(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := readTestComponent(t, "configurable.mjs")
	refused := h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_code": code,
		"configured_props": map[string]any{"region": "eu", "city": "paris", "depth": 3}})
	if refused.status != 400 || refused.errParam() != "configured_props.depth" {
		t.Fatalf("depth without detailed: %d %s", refused.status, refused.raw)
	}
	src := h.must(h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_code": code,
		"configured_props": map[string]any{"region": "eu", "city": "paris", "detailed": true, "depth": 3}}), 200).data()
	id := src["id"].(string)
	if src["configured_props"].(map[string]any)["depth"] != float64(3) {
		t.Fatalf("the source's props: %v", src["configured_props"])
	}
	h.must(h.call("POST", "/v1/sources/"+id+"/run", h.ownerKey, map[string]any{}), 202)
	events := wait.For(t, "the run's event", wait.Long, func() ([]any, bool) {
		events := h.must(h.call("GET", "/v1/sources/"+id+"/event_summaries?expand=event", h.ownerKey, nil), 200).list()
		return events, len(events) > 0
	})
	if len(events) == 0 {
		t.Fatal("the run emitted nothing")
	}
	if got := events[0].(map[string]any)["event"].(map[string]any); got["depth"] != float64(3) || got["city"] != "paris" {
		t.Fatalf("the run saw %v", got)
	}
	// An update that keeps the props keeps the added one too.
	h.must(h.call("PUT", "/v1/sources/"+id, h.ownerKey, map[string]any{"component_id": src["component_id"], "name": "renamed"}), 200)
	got := h.must(h.call("GET", "/v1/sources/"+id, h.ownerKey, nil), 200).data()["configured_props"].(map[string]any)
	if got["depth"] != float64(3) {
		t.Fatalf("after an update without props: %v", got)
	}
}

// TestAddedPropsFollowSecretsAndAreChecked: additionalProps sees a kept
// secret as its value, an update that keeps the props keeps the added
// ones without running the method, and what the method returns is
// checked like any input.
func TestAddedPropsFollowSecretsAndAreChecked(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := `export default { name: "Gated", version: "1", props: { token: { type: "string", secret: true } },
	  async additionalProps() {
	    if (this.token === "boom") throw new Error("upstream down");
	    if (this.token === "bad-type") return { db: { type: "$.service.db" } };
	    if (this.token === "bad-name") return { toString: { type: "string" } };
	    if (this.token === "clash") return { token: { type: "string" } };
	    return this.token === "s3cret" ? { depth: { type: "integer" } } : {};
	  },
	  run() { this.$emit({ depth: this.depth }) } }`
	src := h.must(h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_code": code,
		"configured_props": map[string]any{"token": "s3cret", "depth": 3}}), 200).data()
	id, comp := src["id"].(string), src["component_id"]
	// The kept secret reaches the method as its value: depth is still added.
	h.must(h.call("PUT", "/v1/sources/"+id, h.ownerKey, map[string]any{"component_id": comp,
		"configured_props": map[string]any{"token": "[redacted]", "depth": 4}}), 200)
	// Pausing sends no props: the added prop and its value stay.
	paused := h.must(h.call("PUT", "/v1/sources/"+id, h.ownerKey, map[string]any{"component_id": comp, "active": false}), 200).data()
	if paused["configured_props"].(map[string]any)["depth"] != float64(4) {
		t.Fatalf("after a pause: %v", paused["configured_props"])
	}
	for _, tt := range []struct{ token, says string }{
		{"boom", "upstream down"},
		{"bad-type", "must be declared"},
		{"bad-name", "toString"},
	} {
		r := h.call("POST", "/v1/components/"+comp.(string)+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"token": tt.token}})
		if r.status != 400 || r.errCode() != "component_method_failed" || !contains(r.raw, tt.says) {
			t.Errorf("token %s: %d %s", tt.token, r.status, r.raw)
		}
	}
}

// TestAnAddedPropTakesADeclaredPropsPlace: additionalProps() may return a
// declared prop again (Shopify's gid), which takes its place, a declared
// secret staying secret; an app cannot take a place.
func TestAnAddedPropTakesADeclaredPropsPlace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := `export default { name: "Replace", version: "1",
	  props: { token: { type: "string", secret: true }, gid: { type: "string", label: "Declared" }, mode: { type: "string", optional: true } },
	  async additionalProps() {
	    if (this.mode === "app") return { token: { type: "app", app: "github" } };
	    return { gid: { type: "integer", label: "Added" }, token: { type: "string", label: "Token again" } };
	  },
	  run() { this.$emit({ gid: this.gid }) } }`
	comp := h.must(h.call("POST", "/v1/components", h.ownerKey, map[string]any{"component_code": code}), 200).data()["id"].(string)
	props := h.must(h.call("POST", "/v1/components/"+comp+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"token": "s"}}), 200).data()
	byName := map[string]map[string]any{}
	for _, p := range props["configurable_props"].([]any) {
		byName[p.(map[string]any)["name"].(string)] = p.(map[string]any)
	}
	if len(byName) != 3 || byName["gid"]["type"] != "integer" || byName["gid"]["label"] != "Added" || byName["token"]["secret"] != true {
		t.Fatalf("props after additionalProps: %v", props["configurable_props"])
	}
	src := h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_id": comp, "configured_props": map[string]any{"token": "s", "gid": "seven"}})
	if src.status != 400 || !contains(src.raw, "gid") {
		t.Errorf("a value of the declared type, not the added one: %d %s", src.status, src.raw)
	}
	ok := h.must(h.call("POST", "/v1/sources", h.ownerKey, map[string]any{"component_id": comp, "configured_props": map[string]any{"token": "s", "gid": 7}}), 200).data()
	if got := ok["configured_props"].(map[string]any)["token"]; got != "[redacted]" {
		t.Errorf("the token in its added place is shown as %v, want it kept secret", got)
	}
	r := h.call("POST", "/v1/components/"+comp+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"mode": "app"}})
	if r.status != 400 || !contains(r.raw, "of type") || !contains(r.raw, "token") {
		t.Errorf("an app in a declared string's place: %d %s", r.status, r.raw)
	}
}

// TestConfigureListsOptionsOfAnAddedProp: a prop that additionalProps
// adds may have an options method; the form reaches it as it reaches a
// declared prop's, with the props configured so far.
func TestConfigureListsOptionsOfAnAddedProp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := `export default { name: "Units", version: "1",
		props: { region: { type: "string", options: ["eu", "us"], reloadProps: true } },
		async additionalProps() {
			return { unit: { type: "string", label: "Unit", async options() { return this.region === "us" ? ["ft", "mi"] : ["m", "km"] } } };
		},
		run() {} }`
	id := h.must(h.call("POST", "/v1/components", h.ownerKey, map[string]any{"component_code": code}), 200).data()["id"].(string)
	props := h.must(h.call("POST", "/v1/components/"+id+"/props", h.ownerKey, map[string]any{"configured_props": map[string]any{"region": "us"}}), 200)
	unit := props.data()["configurable_props"].([]any)[1].(map[string]any)
	if unit["name"] != "unit" || unit["remoteOptions"] != true {
		t.Fatalf("the added prop reads %v, want unit with remoteOptions", unit)
	}
	for region, want := range map[string]string{"us": `["ft","mi"]`, "eu": `["m","km"]`} {
		r := h.must(h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, map[string]any{
			"prop_name": "unit", "configured_props": map[string]any{"region": region}}), 200)
		if got, _ := json.Marshal(r.data()["options"]); string(got) != want {
			t.Errorf("the added prop's options for %s = %s, want %s", region, got, want)
		}
	}
	r := h.call("POST", "/v1/components/"+id+"/configure", h.ownerKey, map[string]any{"prop_name": "nosuch", "configured_props": map[string]any{"region": "us"}})
	if r.status != http.StatusBadRequest || r.errParam() != "configured_props.nosuch" || !contains(r.raw, "additionalProps") {
		t.Errorf("a prop neither declared nor added: %d %s", r.status, r.raw)
	}
}
