package engine

import (
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/component"
)

// TestCheckAddedProps: what additionalProps() may return: plain values,
// a sql query and an alert, also in a declared value's place; a source's
// interfaces; not an app, not in a declared app's place, not a name of
// Object.prototype's, not twice.
func TestCheckAddedProps(t *testing.T) {
	t.Parallel()
	action := component.Metadata{Type: component.KindAction, ConfigurableProps: []component.Prop{
		{Name: "declared", Type: component.TypeString}, {Name: "github", Type: component.TypeApp, App: "github"}}}
	source := action
	source.Type = component.KindSource
	cases := []struct {
		name  string
		meta  component.Metadata
		added component.Prop
		want  string // in the error; "" for none
	}{
		{"a string", action, component.Prop{Name: "extra", Type: component.TypeString}, ""},
		{"a sql query", action, component.Prop{Name: "query", Type: component.TypeSQL}, ""},
		{"an alert", action, component.Prop{Name: "note", Type: component.TypeAlert}, ""},
		{"a source's timer", source, component.Prop{Name: "every", Type: component.TypeTimer}, ""},
		{"an action's timer", action, component.Prop{Name: "every", Type: component.TypeTimer}, `of type "$.interface.timer"`},
		{"an app", action, component.Prop{Name: "slack", Type: component.TypeApp}, `of type "app"`},
		{"a dir", action, component.Prop{Name: "files", Type: component.TypeDir}, `of type "dir"`},
		{"a declared value's place", action, component.Prop{Name: "declared", Type: component.TypeInteger}, ""},
		{"a declared app's place", action, component.Prop{Name: "github", Type: component.TypeString}, `declares as "app"`},
		{"Object.prototype's", action, component.Prop{Name: "toString", Type: component.TypeString}, "not a name of Object.prototype"},
	}
	twice := []component.Prop{{Name: "x", Type: component.TypeString}, {Name: "x", Type: component.TypeString}}
	if err := checkAddedProps(action, twice); err == nil || !strings.Contains(err.Error(), "the prop x twice") {
		t.Errorf("a prop returned twice: %v", err)
	}
	for _, tc := range cases {
		err := checkAddedProps(tc.meta, []component.Prop{tc.added})
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
