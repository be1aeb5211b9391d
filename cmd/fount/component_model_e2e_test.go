package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestPropDefinitionInputsReachOptions: the third element of a
// propDefinition maps the configured props to values its options method
// receives with the page, as on Pipedream, so options that depend on
// another prop's value get it.
func TestPropDefinitionInputsReachOptions(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := `const slack = { type: "app", app: "slack", propDefinitions: {
		channel: { type: "string", label: "Channel", async options({ page, teamId }) { return ["team " + teamId + " page " + page]; } } } };
	export default { name: "picker", version: "1", props: { slack, team: { type: "string" },
		channel: { propDefinition: [slack, "channel", (c) => ({ teamId: c.team })] } }, run() {} }`
	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": code})
	if st != 200 {
		t.Fatalf("save: %d %v", st, body)
	}
	st, body = s.do("POST", "/v1/components/"+data(body)["id"].(string)+"/configure",
		map[string]any{"prop_name": "channel", "configured_props": map[string]any{"team": "T42"}, "page": 2})
	if got := fmt.Sprint(data(body)["options"]); st != 200 || !strings.Contains(got, "team T42 page 2") {
		t.Errorf("configure: %d %v, want the options of team T42", st, body)
	}
}
