package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSourceMapsAreCappedAndStillMap: a client's source map over 4 MiB
// is a 400 naming it, on components and on workflow steps; a map just
// under it, made of millions of empty lines (which took 150 MB of heap
// per source to parse once), is stored and still maps the stacks of
// every source that runs the component.
func TestSourceMapsAreCappedAndStillMap(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := "export default { name: \"mapped\", version: \"1.0.0\", run() {\n  throw new Error(\"boom\") } }"
	// Line 2 of the code comes from line 11 of author.mjs; then 3.9
	// million lines with no mapping.
	emptyLines := `{"version":3,"sources":["author.mjs"],"mappings":"AAAA;AAUA` + strings.Repeat(";", 3_900_000) + `"}`
	over := `{"version":3,"sources":["author.mjs"],"mappings":"` + strings.Repeat(";", 4<<20) + `"}`

	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": code, "source_map": over})
	if e, _ := body["error"].(map[string]any); st != 400 || e["param"] != "source_map" || !strings.Contains(fmt.Sprint(e["message"]), "4") {
		t.Errorf("a map over 4 MiB: %d %v, want 400 naming source_map and its limit", st, body)
	}
	st, body = s.do("POST", "/v1/workflows", map[string]any{"name": "m", "trigger": map[string]any{"type": "manual"},
		"steps": []any{map[string]any{"name": "one", "code": code, "source_map": over}}})
	if st != 400 || !strings.Contains(fmt.Sprint(body), "source_map") {
		t.Errorf("a step's map over 4 MiB: %d %v, want 400 naming source_map", st, body)
	}

	st, body = s.do("POST", "/v1/components", map[string]any{"component_code": code, "source_map": emptyLines})
	if st != 200 {
		t.Fatalf("a map of empty lines: %d %v", st, body)
	}
	comp := data(body)["id"]
	for i := range 4 {
		st, body := s.do("POST", "/v1/sources", map[string]any{"component_id": comp})
		if st != 200 {
			t.Fatalf("source %d: %d %v", i, st, body)
		}
		id := data(body)["id"].(string)
		s.run(id, map[string]any{})
		e := s.events(id, "$errors", 1)[0]["event"].(map[string]any)["error"].(map[string]any)
		if stack := fmt.Sprint(e["stack"]); !strings.Contains(stack, "author.mjs:11") {
			t.Errorf("source %d: stack %q does not name author.mjs:11", i, stack)
		}
	}
}
