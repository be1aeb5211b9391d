package engine

import (
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/component"
)

// TestCheckAddedProps: what additionalProps() may return: plain values,
// a sql query and an alert; a source's interfaces; not an app, not a
// name the component declares or Object.prototype's.
func TestCheckAddedProps(t *testing.T) {
	t.Parallel()
	action := component.Metadata{Type: component.KindAction, ConfigurableProps: []component.Prop{{Name: "declared", Type: component.TypeString}}}
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
		{"an app", action, component.Prop{Name: "github", Type: component.TypeApp}, `of type "app"`},
		{"a dir", action, component.Prop{Name: "files", Type: component.TypeDir}, `of type "dir"`},
		{"a declared name", action, component.Prop{Name: "declared", Type: component.TypeString}, "which the component declares"},
		{"Object.prototype's", action, component.Prop{Name: "toString", Type: component.TypeString}, "not a name of Object.prototype"},
	}
	for _, tc := range cases {
		err := checkAddedProps(tc.meta, []component.Prop{tc.added})
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
