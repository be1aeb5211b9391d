package component

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func i64(v int64) *int64 { return &v }

func TestPropCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prop    Prop
		value   string
		wantErr string // "" for valid
	}{
		{"string", Prop{Name: "s", Type: TypeString}, `"x"`, ""},
		{"string refuses a number", Prop{Name: "s", Type: TypeString}, `1`, "The prop s must be a string."},
		{"boolean", Prop{Name: "b", Type: TypeBoolean}, `true`, ""},
		{"boolean refuses text", Prop{Name: "b", Type: TypeBoolean}, `"true"`, "must be true or false"},
		{"integer", Prop{Name: "n", Type: TypeInteger}, `42`, ""},
		{"integer refuses a fraction", Prop{Name: "n", Type: TypeInteger}, `4.5`, "must be an integer, not 4.5"},
		{"integer under min", Prop{Name: "n", Type: TypeInteger, Min: i64(2)}, `1`, "must be at least 2"},
		{"integer over max", Prop{Name: "n", Type: TypeInteger, Max: i64(5)}, `6`, "must be at most 5"},
		{"integer array", Prop{Name: "ns", Type: TypeIntegerArray}, `[1,2]`, ""},
		{"integer array element", Prop{Name: "ns", Type: TypeIntegerArray}, `[1,"2"]`, "The prop ns [1] must be an integer."},
		{"array refuses a scalar", Prop{Name: "ss", Type: TypeStringArray}, `"a"`, "must be an array of string"},
		{"object", Prop{Name: "o", Type: TypeObject}, `{"$sealed":"x"}`, ""},
		{"object refuses an array", Prop{Name: "o", Type: TypeObject}, `[]`, "must be a JSON object"},
		{"any", Prop{Name: "a", Type: TypeAny}, `[1,{"x":null}]`, ""},
		{"options as values", Prop{Name: "c", Type: TypeString, Options: json.RawMessage(`["red","blue"]`)}, `"blue"`, ""},
		{"options as label/value", Prop{Name: "c", Type: TypeInteger, Options: json.RawMessage(`[{"label":"One","value":1}]`)}, `1`, ""},
		{"not an option", Prop{Name: "c", Type: TypeString, Options: json.RawMessage(`["red"]`)}, `"green"`, `must be one of its options ["red"]`},
		{"sql as text", Prop{Name: "q", Type: TypeSQL}, `"select 1"`, ""},
		{"sql as query and params", Prop{Name: "q", Type: TypeSQL}, `{"query":"select $1","params":[1]}`, ""},
		{"sql without params", Prop{Name: "q", Type: TypeSQL}, `{"query":"select 1"}`, ""},
		{"sql empty", Prop{Name: "q", Type: TypeSQL}, `"  "`, "must be a SQL query, not empty"},
		{"sql without a query", Prop{Name: "q", Type: TypeSQL}, `{"params":[]}`, "query must be a SQL query"},
		{"sql params not a list", Prop{Name: "q", Type: TypeSQL}, `{"query":"select 1","params":{"a":1}}`, "params must be a list"},
		{"sql with another field", Prop{Name: "q", Type: TypeSQL}, `{"query":"select 1","db":"x"}`, `has "db"`},
		{"sql of a number", Prop{Name: "q", Type: TypeSQL}, `1`, "must be a SQL query: text, or"},
		{"invalid JSON", Prop{Name: "s", Type: TypeString}, `"x`, "is not valid JSON"},
		{"trailing data", Prop{Name: "s", Type: TypeString}, `"x" "y"`, "is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.prop.Check(json.RawMessage(tt.value))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check(%s) = %v", tt.value, err)
				}
				return
			}
			var pe *PropError
			if !errors.As(err, &pe) || pe.Prop != tt.prop.Name || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check(%s) = %v, want a PropError with %q", tt.value, err, tt.wantErr)
			}
		})
	}
	big := json.RawMessage(`"` + strings.Repeat("x", MaxPropValue) + `"`)
	var pe *PropError
	if err := (Prop{Name: "s", Type: TypeString}).Check(big); !errors.As(err, &pe) || !pe.TooLarge {
		t.Fatalf("a value over 64 KB: %v", err)
	}
}

func TestRequired(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Prop
		want bool
	}{
		{Prop{Type: TypeString}, true},
		{Prop{Type: TypeString, Optional: true}, false},
		{Prop{Type: TypeString, Default: json.RawMessage(`"d"`)}, false},
		{Prop{Type: TypeApp}, false},
		{Prop{Type: TypeHTTP}, false},
		{Prop{Type: TypeTimer}, false},
		{Prop{Type: TypeDB}, false},
		{Prop{Type: TypeDir}, false},
		{Prop{Type: TypeSQL}, true},
	} {
		if got := tt.p.Required(); got != tt.want {
			t.Errorf("%s Required = %v", tt.p.Type, got)
		}
	}
}

func TestCheckTimer(t *testing.T) {
	t.Parallel()
	timer := Prop{Name: "timer", Type: TypeTimer}
	withDefault := Prop{Name: "timer", Type: TypeTimer, Default: json.RawMessage(`{"intervalSeconds":900}`)}
	tests := []struct {
		name     string
		prop     Prop
		value    string
		cron     string
		interval int64
		wantErr  string
	}{
		{"interval", timer, `{"intervalSeconds":60}`, "", 60, ""},
		{"stored shape", timer, `{"cron":null,"interval_seconds":30}`, "", 30, ""},
		{"cron", timer, `{"cron":"*/5 * * * *"}`, "*/5 * * * *", 0, ""},
		{"cron with seconds", timer, `{"cron":"0 */5 * * * *"}`, "0 */5 * * * *", 0, ""},
		{"descriptor", timer, `{"cron":"@hourly"}`, "@hourly", 0, ""},
		{"default when absent", withDefault, ``, "", 900, ""},
		{"default when null", withDefault, `null`, "", 900, ""},
		{"nothing", timer, ``, "", 0, "needs intervalSeconds or cron"},
		{"bad cron", timer, `{"cron":"every day"}`, "", 0, "invalid cron expression"},
		{"fraction", timer, `{"intervalSeconds":1.5}`, "", 0, "whole number"},
		{"zero", timer, `{"intervalSeconds":0}`, "", 0, "whole number"},
		{"over a year", timer, `{"intervalSeconds":40000000}`, "", 0, "whole number"},
		{"not an object", timer, `"hourly"`, "", 0, "must be an object"},
		{"cron in a zone", timer, `{"cron":"0 9 * * *","timezone":"Europe/Paris"}`, "0 9 * * *", 0, ""},
		{"an unknown zone", timer, `{"cron":"0 9 * * *","timezone":"Mars/Olympus"}`, "", 0, "unknown timezone \"Mars/Olympus\""},
		{"the server's zone", timer, `{"cron":"0 9 * * *","timezone":"Local"}`, "", 0, "unknown timezone"},
		{"a zone for an interval", timer, `{"intervalSeconds":60,"timezone":"UTC"}`, "", 0, "only a cron expression takes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := CheckTimer(tt.prop, json.RawMessage(tt.value))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.cron != "" && (spec.Cron == nil || *spec.Cron != tt.cron || spec.IntervalSeconds != nil) {
				t.Errorf("spec = %+v, want cron %q", spec, tt.cron)
			}
			if tt.interval != 0 && (spec.IntervalSeconds == nil || *spec.IntervalSeconds != tt.interval || spec.Cron != nil) {
				t.Errorf("spec = %+v, want interval %d", spec, tt.interval)
			}
			if _, err := spec.Schedule(time.Time{}); err != nil {
				t.Errorf("a checked spec has no schedule: %v", err)
			}
			if strings.Contains(tt.value, "Europe/Paris") != (spec.Timezone == "Europe/Paris") {
				t.Errorf("spec = %+v, from %s", spec, tt.value)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 10, 7, 30, 0, time.UTC)
	cronExpr := "*/15 * * * *"
	sched, err := TimerSpec{Cron: &cronExpr}.Schedule(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sched.Next(at); !got.Equal(time.Date(2026, 11, 22, 10, 15, 0, 0, time.UTC)) {
		t.Errorf("cron next = %v", got)
	}
	anchor := at.Add(-20 * time.Second)
	sched, err = TimerSpec{IntervalSeconds: i64(90)}.Schedule(anchor)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		after, want time.Time
	}{
		{anchor, anchor.Add(90 * time.Second)}, // strictly after
		{at, anchor.Add(90 * time.Second)},
		{anchor.Add(90 * time.Second), anchor.Add(180 * time.Second)},
		{anchor.Add(1000 * time.Second), anchor.Add(1080 * time.Second)},
		{anchor.Add(-time.Second), anchor},                             // before the anchor: the series goes back too
		{anchor.Add(-90 * time.Second), anchor},                        // a tick itself: the next one
		{anchor.Add(-91 * time.Second), anchor.Add(-90 * time.Second)}, // floored, not truncated
	} {
		if got := sched.Next(tt.after); !got.Equal(tt.want) {
			t.Errorf("interval next after %v = %v, want %v", tt.after, got, tt.want)
		}
	}
	epoch, _ := TimerSpec{IntervalSeconds: i64(60)}.Schedule(time.Time{})
	if got := epoch.Next(at); !got.Equal(time.Date(2026, 11, 22, 10, 8, 0, 0, time.UTC)) {
		t.Errorf("an interval without an anchor is not whole intervals from the epoch: %v", got)
	}
	if _, err := (TimerSpec{}).Schedule(time.Time{}); !errors.Is(err, ErrNoSchedule) {
		t.Errorf("empty spec: %v", err)
	}
	// Nine o'clock in Paris is 08:00 UTC in winter and 07:00 in summer.
	nine := "0 9 * * *"
	sched, err = TimerSpec{Cron: &nine, Timezone: "Europe/Paris"}.Schedule(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ after, want time.Time }{
		{time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 8, 0, 0, 0, time.UTC)},
		{time.Date(2026, 7, 15, 7, 30, 0, 0, time.UTC), time.Date(2026, 7, 16, 7, 0, 0, 0, time.UTC)},
	} {
		if got := sched.Next(tt.after); !got.Equal(tt.want) {
			t.Errorf("9:00 in Paris after %v: %v, want %v", tt.after, got.UTC(), tt.want)
		}
	}
	if _, err := (TimerSpec{Cron: &nine, Timezone: "Nowhere/Else"}).Schedule(time.Time{}); !errors.Is(err, ErrNoSchedule) {
		t.Errorf("an unknown zone: %v", err)
	}
	bad := "nope"
	if _, err := (TimerSpec{Cron: &bad}).Schedule(time.Time{}); !errors.Is(err, ErrNoSchedule) {
		t.Errorf("bad cron: %v", err)
	}
	if ev := (TimerSpec{IntervalSeconds: i64(60)}).Event(at); string(ev) != `{"interval_seconds":60,"timestamp":1795342050}` {
		t.Errorf("event = %s", ev)
	}
	if ev := (TimerSpec{Cron: &cronExpr}).Event(at); string(ev) != `{"interval_seconds":null,"timestamp":1795342050}` {
		t.Errorf("cron event = %s", ev)
	}
}

func TestEndpointToken(t *testing.T) {
	t.Parallel()
	tok := NewEndpointToken()
	if len(tok) != 24 || tok == NewEndpointToken() {
		t.Fatalf("token %q", tok)
	}
	for _, base := range []string{"https://hooks.example.com", "https://hooks.example.com/", "http://127.0.0.1:8080/fount/"} {
		u := tok.URL(base)
		if strings.Contains(u, "//h/") || !strings.HasSuffix(u, "/h/"+string(tok)) {
			t.Errorf("URL(%q) = %q", base, u)
		}
		if got, ok := TokenFromURL(u); !ok || got != tok {
			t.Errorf("TokenFromURL(%q) = %q, %v", u, got, ok)
		}
	}
	for _, u := range []string{"", "https://x/h/", "https://x/h/a b", "https://x/other/abc", "https://x/h/a/b"} {
		if _, ok := TokenFromURL(u); ok {
			t.Errorf("TokenFromURL(%q) found a token", u)
		}
	}
}

func TestDecodeMetadata(t *testing.T) {
	t.Parallel()
	good := `{"name":"N","version":"1","type":"source","hooks":["deploy"],"configurable_props":[{"name":"a","type":"string"},{"name":"h","type":"$.interface.http","customResponse":true}],"has_additional_props":false,"dedupe":"unique"}`
	m, err := DecodeMetadata([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := m.Prop("h"); !ok || !p.CustomResponse || p.Type != TypeHTTP {
		t.Errorf("prop h = %+v", p)
	}
	if !m.HasHook(HookDeploy) || m.HasHook(HookActivate) || len(m.PropsOfType(TypeHTTP)) != 1 {
		t.Errorf("metadata helpers: %+v", m)
	}
	for _, bad := range []string{
		``, `[]`, `{"name":"N","version":"1","type":"source","extra":1}`,
		`{"name":"","version":"1","type":"source"}`,
		`{"name":"N","version":"1","type":"workflow"}`,
		`{"name":"N","version":"1","type":"source","dedupe":"all"}`,
		`{"name":"N","version":"1","type":"source","hooks":["boot"]}`,
		`{"name":"N","version":"1","type":"source","configurable_props":[{"name":"a","type":"date"}]}`,
		`{"name":"N","version":"1","type":"source","configurable_props":[{"name":"a","type":"string"},{"name":"a","type":"string"}]}`,
	} {
		if _, err := DecodeMetadata([]byte(bad)); !errors.Is(err, ErrInvalidMetadata) {
			t.Errorf("DecodeMetadata(%s) = %v, want ErrInvalidMetadata", bad, err)
		}
	}
}

func FuzzDecodeMetadata(f *testing.F) {
	f.Add([]byte(`{"name":"N","version":"1","type":"action","hooks":[],"configurable_props":[{"name":"n","type":"integer","min":1}]}`))
	f.Add([]byte(`{"name":"N","version":"1","type":"source","configurable_props":[{"name":"t","type":"$.interface.timer","default":{"intervalSeconds":60}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMetadata(b)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("decoded metadata does not validate: %v", err)
		}
		for _, p := range m.ConfigurableProps {
			_ = p.Check(json.RawMessage(`"x"`))
			if p.Type == TypeTimer {
				_, _ = CheckTimer(p, nil)
			}
		}
	})
}

// TestSQLValue: a sql value as the component is given it, whichever form
// it was configured in.
func TestSQLValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`"select 1"`, `{"query":"select 1","params":[]}`},
		{`{"query":"select $1","params":[1.50]}`, `{"query":"select $1","params":[1.50]}`},
		{`{"query":"select 1"}`, `{"query":"select 1","params":[]}`},
		{`{"query":"select 1","params":null}`, `{"query":"select 1","params":[]}`},
	} {
		if got := string(SQLValue(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("SQLValue(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestWithAdded: an added prop takes the place of the declared prop of
// its name (a secret's staying secret), and the others follow the
// declared ones in their order.
func TestWithAdded(t *testing.T) {
	t.Parallel()
	declared := []Prop{{Name: "a", Type: TypeString, Secret: true}, {Name: "gid", Type: TypeString, Label: "declared"}, {Name: "c", Type: TypeBoolean}}
	added := []Prop{{Name: "new", Type: TypeInteger}, {Name: "gid", Type: TypeString, Label: "added"}, {Name: "a", Type: TypeString}}
	got := WithAdded(declared, added)
	var names []string
	for _, p := range got {
		names = append(names, p.Name+":"+p.Label)
	}
	if strings.Join(names, ",") != "a:,gid:added,c:,new:" {
		t.Errorf("WithAdded = %v", names)
	}
	if !got[0].Secret {
		t.Error("an added prop in a declared secret's place is not secret")
	}
	if declared[1].Label != "declared" {
		t.Error("WithAdded changed the declared props")
	}
}
