package ids

import (
	"strings"
	"testing"
)

func TestNewAndOf(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range Kinds {
		id := New(k)
		if !strings.HasPrefix(id, string(k)) || len(id) != len(k)+22 {
			t.Fatalf("New(%s) = %q", k, id)
		}
		if got, ok := Of(id); !ok || got != k {
			t.Errorf("Of(%q) = %q, %v; want %q", id, got, ok, k)
		}
		if seen[id] {
			t.Fatalf("New returned %q twice", id)
		}
		seen[id] = true
	}
}

func TestIsAndGlobs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s       string
		kind    Kind
		is      bool
		glob    bool
		matches string // an id the string, as an emitter, covers
		misses  string // one it does not
	}{
		{s: "dc_abc", kind: Source, is: true, matches: "dc_abc", misses: "dc_abd"},
		{s: "dc_", kind: Source, is: false},
		{s: "dc_*", kind: Source, is: false, glob: true, matches: "dc_x", misses: "p_x"},
		{s: "p_*", kind: Workflow, is: false, glob: true, matches: "p_x", misses: "dc_x"},
		{s: "wh_1", kind: Webhook, is: true, matches: "wh_1", misses: "wh_*"},
		{s: "sub_1", kind: Subscription, is: true},
		{s: "sc_1", kind: Source, is: false},
		{s: "o_1", kind: Org, is: true},
		{s: "u_1", kind: Org, is: false},
		{s: "wh_*", kind: Webhook, is: false, glob: false},
	}
	for _, tt := range tests {
		if got := Is(tt.s, tt.kind); got != tt.is {
			t.Errorf("Is(%q, %s) = %v", tt.s, tt.kind, got)
		}
		if _, got := GlobOf(tt.s); got != tt.glob {
			t.Errorf("GlobOf(%q) = %v", tt.s, got)
		}
		if tt.matches != "" && !Matches(tt.s, tt.matches) {
			t.Errorf("%q should cover %q", tt.s, tt.matches)
		}
		if tt.misses != "" && Matches(tt.s, tt.misses) {
			t.Errorf("%q should not cover %q", tt.s, tt.misses)
		}
	}
	if _, ok := Of("x_1"); ok {
		t.Error("an unknown prefix has a kind")
	}
	if Workflow.Noun() != "workflow" || Kind("zz").Noun() != "resource" {
		t.Error("nouns")
	}
}

// TestNamesEmitters: a workflow's source trigger takes the id of a
// source or a workflow, or a glob of either, and nothing else.
func TestNamesEmitters(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"dc_abc": true, "p_abc": true, "dc_*": true, "p_*": true,
		"wh_abc": false, "wh_*": false, "dc_": false, "u_1": false, "": false, "*": false,
	} {
		if got := NamesEmitters(s); got != want {
			t.Errorf("NamesEmitters(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestDerive: a derived id is its kind's prefix and 22 characters, the
// same for the same parts, and another for other parts, however they
// are split.
func TestDerive(t *testing.T) {
	t.Parallel()
	a := Derive(Cell, "p_1", "step")
	if !Is(a, Cell) || len(a) != len(Cell)+22 || a != Derive(Cell, "p_1", "step") {
		t.Fatalf("Derive = %q, or not stable", a)
	}
	for _, other := range []string{Derive(Cell, "p_1", "step2"), Derive(Cell, "p_2", "step"), Derive(Cell, "p_1s", "tep"), Derive(Deployment, "p_1", "step")} {
		if other == a || other[len(other)-22:] == a[len(a)-22:] {
			t.Errorf("%q and %q share their derived part", a, other)
		}
	}
}

// TestExecutionID: an execution id names its workflow and invocation, and
// only an id made so parses.
func TestExecutionID(t *testing.T) {
	t.Parallel()
	id := ExecutionID("p_abc-def", "42")
	if wf, inv, ok := ParseExecutionID(id); !ok || wf != "p_abc-def" || inv != "42" {
		t.Errorf("ParseExecutionID(%q) = %q, %q, %v", id, wf, inv, ok)
	}
	for _, bad := range []string{"", "ex_", "ex_abc", "ex_-1", "ex_abc-", "p_abc-1", "dc_x"} {
		if _, _, ok := ParseExecutionID(bad); ok {
			t.Errorf("ParseExecutionID(%q) parsed", bad)
		}
	}
}
