package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/sandbox"
)

func readComponent(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "components", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func propByName(m *component.Metadata, name string) *component.Prop {
	for i := range m.ConfigurableProps {
		if m.ConfigurableProps[i].Name == name {
			return &m.ConfigurableProps[i]
		}
	}
	return nil
}

func TestIntrospectComponents(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	ctx := context.Background()

	t.Run("http source", func(t *testing.T) {
		m, err := h.Introspect(ctx, readComponent(t, "http-request.mjs"), "http-request.mjs", nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != "New Requests" || m.Key != "http-new-requests" || m.Version != "0.1.0" || m.Type != "source" || m.Description == "" {
			t.Errorf("metadata = %+v", m)
		}
		if p := propByName(m, "http"); p == nil || p.Type != "$.interface.http" || !p.CustomResponse {
			t.Errorf("http prop = %+v", p)
		}
		p := propByName(m, "allowedMethods")
		if p == nil || p.Type != "string[]" || p.Label != "Allowed methods" || !p.Optional || string(p.Default) != `["GET","POST"]` ||
			string(p.Options) != `["GET","POST","PUT","PATCH","DELETE"]` {
			t.Errorf("allowedMethods = %+v", p)
		}
		if p := propByName(m, "token"); p == nil || !p.Secret {
			t.Errorf("token = %+v", p)
		}
	})

	t.Run("timer source with dedupe, hooks and an import", func(t *testing.T) {
		m, err := h.Introspect(ctx, readComponent(t, "feed-poller.mjs"), "feed-poller.mjs",
			map[string]string{"./feed-parse.mjs": readComponent(t, "feed-parse.mjs")})
		if err != nil {
			t.Fatal(err)
		}
		if m.Dedupe != "unique" || len(m.Hooks) != 1 || m.Hooks[0] != "deploy" {
			t.Errorf("dedupe %q hooks %v", m.Dedupe, m.Hooks)
		}
		if p := propByName(m, "timer"); p == nil || string(p.Default) != `{"intervalSeconds":900}` {
			t.Errorf("timer = %+v", p)
		}
		if p := propByName(m, "maxItems"); p == nil || p.Min == nil || *p.Min != 1 || p.Max == nil || *p.Max != 100 {
			t.Errorf("maxItems = %+v", p)
		}
		if p := propByName(m, "db"); p == nil || p.Type != "$.service.db" {
			t.Errorf("db = %+v", p)
		}
		names := []string{}
		for _, p := range m.ConfigurableProps {
			names = append(names, p.Name)
		}
		if got, _ := json.Marshal(names); string(got) != `["db","timer","feed","maxItems"]` {
			t.Errorf("props in order = %s", got)
		}
	})

	t.Run("CommonJS action with app and propDefinition", func(t *testing.T) {
		m, err := h.Introspect(ctx, readComponent(t, "send-message.cjs"), "send-message.cjs", nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Type != "action" || len(m.Hooks) != 0 {
			t.Errorf("type %q hooks %v", m.Type, m.Hooks)
		}
		if p := propByName(m, "chat"); p == nil || p.Type != "app" || p.App != "chat" {
			t.Errorf("chat = %+v", p)
		}
		p := propByName(m, "channel")
		if p == nil || p.Type != "string" || p.Label != "Channel" || !p.RemoteOptions || len(p.PropDefinition) != 2 || p.PropDefinition[0] != "chat" || p.PropDefinition[1] != "channel" {
			t.Errorf("channel = %+v", p)
		}
	})
}

func TestIntrospectSyntaxErrorPosition(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	tests := []struct {
		name        string
		code        string
		modules     map[string]string
		line, col   int
		fileInStack string
	}{
		{"entry", "export default {\n  name: \"x\",\n  run() { return ) }\n}", nil, 3, 18, "component.mjs"},
		{"bundled module", "import a from \"./a.mjs\";\nexport default a;", map[string]string{"./a.mjs": "export default {{;"}, 1, 17, "./a.mjs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.Introspect(context.Background(), tt.code, "", tt.modules)
			var se *sandbox.ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *sandbox.ScriptError", err)
			}
			if se.Name != "SyntaxError" || se.Line != tt.line || se.Column != tt.col {
				t.Fatalf("got %s at %d:%d (%s), want SyntaxError at %d:%d", se.Name, se.Line, se.Column, se.Message, tt.line, tt.col)
			}
		})
	}
}

func TestSourceMetadataMatchesIntrospection(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	code := readComponent(t, "http-request.mjs")
	m, err := h.Introspect(context.Background(), code, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := deploy(t, h, code, `{}`)
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(s.Metadata())
	if string(a) != string(b) {
		t.Fatalf("introspection %s\n   != load %s", a, b)
	}
}
