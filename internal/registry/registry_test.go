package registry

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
)

var (
	semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	keyRe  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)+$`)
)

// testHost compiles the guest once for the package's tests.
var testHost = sync.OnceValues(func() (*host.Host, error) {
	return host.New(context.Background(), host.Config{})
})

// TestRegistry: every published component loads, has a registry key of the
// form app-slug-component-name, a semantic version, and a unique key.
func TestRegistry(t *testing.T) {
	t.Parallel()
	h, err := testHost()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("%d published components, want at least 3", len(entries))
	}
	keys := map[string]string{}
	for _, e := range entries {
		m, err := h.Introspect(context.Background(), e.Code, e.File, nil)
		if err != nil {
			t.Errorf("%s: %v", e.File, err)
			continue
		}
		if !semver.MatchString(m.Version) {
			t.Errorf("%s: version %q is not a semantic version", e.File, m.Version)
		}
		if !keyRe.MatchString(m.Key) {
			t.Errorf("%s: key %q is not app-slug-component-name", e.File, m.Key)
		}
		if other, dup := keys[m.Key]; dup {
			t.Errorf("%s and %s share the key %s", e.File, other, m.Key)
		}
		keys[m.Key] = e.File
		if m.Description == "" {
			t.Errorf("%s has no description", e.File)
		}
	}
}

func entry(t *testing.T, file string) string {
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.File == file {
			return e.Code
		}
	}
	t.Fatalf("no %s in the registry", file)
	return ""
}

type emits struct{ got []abi.Emit }

func (e *emits) Emit(_ context.Context, x abi.Emit) error { e.got = append(e.got, x); return nil }

type memDB map[string][]byte

func (d memDB) Get(_ context.Context, k string) ([]byte, bool, error) {
	v, ok := d[k]
	return v, ok, nil
}
func (d memDB) Set(_ context.Context, k string, v []byte) error { d[k] = v; return nil }

func TestRSSPoller(t *testing.T) {
	t.Parallel()
	feed := `<?xml version="1.0"?><rss><channel><title>T</title>
		<item><title>Second</title><link>https://example.com/2</link><guid>id-2</guid><pubDate>Tue, 02 Jan 2024 00:00:00 GMT</pubDate></item>
		<item><title><![CDATA[First & best]]></title><link>https://example.com/1</link><guid>id-1</guid><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
	</channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(feed)) }))
	defer srv.Close()
	h, err := testHost()
	if err != nil {
		t.Fatal(err)
	}
	props, _ := json.Marshal(map[string]string{"url": srv.URL})
	s, err := h.NewSource(context.Background(), sandbox.Spec{Code: entry(t, "rss-new-item.mjs"), Props: props})
	if err != nil {
		t.Fatal(err)
	}
	out := &emits{}
	db := memDB{}
	_, err = s.Run(context.Background(), nil, sandbox.Capabilities{Emit: out, DB: db, Egress: egress.New(true, time.Second, 1<<20)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.got) != 2 || out.got[0].IDString() != "id-1" || out.got[0].Summary != "First & best" || out.got[1].IDString() != "id-2" {
		t.Fatalf("emits (oldest first): %+v", out.got)
	}
	if out.got[0].TS == nil || *out.got[0].TS != time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("ts = %v", out.got[0].TS)
	}
	if string(db["lastCount"]) != "2" {
		t.Errorf("db = %v", db)
	}
}

func TestScheduleTimer(t *testing.T) {
	t.Parallel()
	h, err := testHost()
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSource(context.Background(), sandbox.Spec{Code: entry(t, "schedule-timer.mjs"), Props: json.RawMessage(`{"payload":{"team":"ops"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	out := &emits{}
	if _, err := s.Run(context.Background(), json.RawMessage(`{"timestamp":1700000000,"interval_seconds":3600}`), sandbox.Capabilities{Emit: out}); err != nil {
		t.Fatal(err)
	}
	if len(out.got) != 1 || string(out.got[0].Event) != `{"team":"ops","timestamp":1700000000}` || out.got[0].IDString() != "1700000000" {
		t.Fatalf("emits: %+v", out.got)
	}
}
