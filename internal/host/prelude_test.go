package host

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
	"github.com/fount-dev/fount/internal/component"
)

// preludeList returns the quoted strings of a JavaScript constant of the
// prelude: `const NAME = ... ;` up to its end.
func preludeList(t *testing.T, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?s)const ` + name + ` = (.*?);\n`).FindSubmatch(guest.Prelude)
	if m == nil {
		t.Fatalf("the prelude has no const %s", name)
	}
	var out []string
	for _, q := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(m[1], -1) {
		out = append(out, string(q[1]))
	}
	return out
}

// TestPreludeMatchesGo: the prelude's copies of Go constants are the Go
// constants, so that a prop type, hook, dedupe strategy or error code
// added on one side cannot be missing on the other.
func TestPreludeMatchesGo(t *testing.T) {
	t.Parallel()
	var types []string
	for _, pt := range component.PropTypes {
		types = append(types, string(pt))
	}
	var codes []string
	for _, e := range abi.ErrorCodes {
		codes = append(codes, strconv.Itoa(int(e.Code)))
	}
	for _, tt := range []struct {
		name string
		js   []string
		goes []string
	}{
		{"KNOWN_TYPES", preludeList(t, "KNOWN_TYPES"), types},
		{"HOOKS", preludeList(t, "HOOKS"), component.Hooks},
		{"DEDUPE", preludeList(t, "DEDUPE"), component.DedupeStrategies},
		{"HOST_ERRORS", everyOther(preludeList(t, "HOST_ERRORS")), codes},
	} {
		js, goes := slices.Sorted(slices.Values(tt.js)), slices.Sorted(slices.Values(tt.goes))
		if !slices.Equal(js, goes) {
			t.Errorf("the prelude's %s is %v; the Go constants are %v", tt.name, js, goes)
		}
	}
}

// everyOther keeps the keys of a flattened {"key": "value", ...} list.
func everyOther(kv []string) []string {
	var out []string
	for i := 0; i < len(kv); i += 2 {
		out = append(out, kv[i])
	}
	return out
}

// TestPreludeOfAnyLengthEvaluates: QuickJS's parser reads the byte after
// the source, so the host must put a NUL there. Without it, whether the
// prelude evaluated depended on what the allocator left after it, and a
// harmless edit to the prelude could make every instance fail to start.
func TestPreludeOfAnyLengthEvaluates(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	ctx := context.Background()
	for pad := range 24 {
		in, err := h.instantiate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		prelude := append(slices.Clip(guest.Prelude), strings.Repeat(" ", pad)...)
		if err := in.initRuntime(ctx, prelude); err != nil {
			t.Errorf("prelude with %d spaces after it: %v", pad, err)
		}
		in.close(ctx)
	}
}
