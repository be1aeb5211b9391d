package emit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

func emitOf(id string, ts int64) abi.Emit {
	e := abi.Emit{ID: json.RawMessage(id)}
	if ts != 0 {
		e.TS = &ts
	}
	return e
}

func emitIDs(es []abi.Emit) string {
	var out []string
	for _, e := range es {
		out = append(out, e.IDString())
	}
	return strings.Join(out, ",")
}

func TestApplyDedupe(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		strategy string
		state    model.DedupeState
		emits    []abi.Emit
		want     string
		wantErr  string
	}{
		{"none keeps all", "", model.DedupeState{}, []abi.Emit{emitOf(`"a"`, 0), emitOf(`"a"`, 0)}, "a,a", ""},
		{"unique drops seen ids", component.DedupeUnique, model.DedupeState{Unique: []string{"a"}}, []abi.Emit{emitOf(`"a"`, 0), emitOf(`"b"`, 0), emitOf(`"b"`, 0)}, "b", ""},
		{"greatest", "greatest", model.DedupeState{Greatest: f(5)}, []abi.Emit{emitOf(`4`, 0), emitOf(`6`, 0), emitOf(`5.5`, 0), emitOf(`7`, 0)}, "6,7", ""},
		{"greatest needs numbers", "greatest", model.DedupeState{}, []abi.Emit{emitOf(`"x"`, 0)}, "", "numeric"},
		{"last after the match", "last", model.DedupeState{Last: "b"}, []abi.Emit{emitOf(`"a"`, 0), emitOf(`"b"`, 0), emitOf(`"c"`, 0)}, "c", ""},
		{"last without a match keeps all", "last", model.DedupeState{Last: "z"}, []abi.Emit{emitOf(`"a"`, 0), emitOf(`"b"`, 0)}, "a,b", ""},
		{"an emit without id", "unique", model.DedupeState{}, []abi.Emit{{}}, "", "without an id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, _, err := ApplyDedupe(tt.strategy, tt.emits, tt.state)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || emitIDs(kept) != tt.want {
				t.Fatalf("kept %s (%v), want %s", emitIDs(kept), err, tt.want)
			}
		})
	}
}

func TestUniqueCachePurgesOldestFirst(t *testing.T) {
	t.Parallel()
	var st model.DedupeState
	var emits []abi.Emit
	for i := range 150 {
		emits = append(emits, emitOf(fmt.Sprintf(`"id%d"`, i), 0))
	}
	_, next, err := ApplyDedupe("unique", emits, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Unique) != UniqueCacheSize || next.Unique[0] != emits[50].IDString() {
		t.Fatalf("cache holds %d ids starting %q; want the newest 100", len(next.Unique), next.Unique[0])
	}
}

func TestOrderByTS(t *testing.T) {
	t.Parallel()
	got := OrderByTS([]abi.Emit{emitOf(`"c"`, 30), emitOf(`"n1"`, 0), emitOf(`"a"`, 10), emitOf(`"b"`, 20), emitOf(`"n2"`, 0)})
	if emitIDs(got) != "a,b,c,n1,n2" {
		t.Fatalf("order %s", emitIDs(got))
	}
	plain := []abi.Emit{emitOf(`"x"`, 0), emitOf(`"y"`, 0)}
	if emitIDs(OrderByTS(plain)) != "x,y" {
		t.Fatal("emits without ts must keep their order")
	}
}

func TestPipeline(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	future := now.Add(time.Hour).UnixMilli()
	tooFar := now.Add(2 * 366 * 24 * time.Hour).UnixMilli()
	past := now.Add(-time.Hour).UnixMilli()
	log := sandbox.LogEntry{Time: now, Level: "info", Text: "hello"}
	tests := []struct {
		name     string
		strategy string
		emits    []abi.Emit
		runErr   error
		want     string // channel:data of each event, in order, |-separated
	}{
		{"emits then logs", "", []abi.Emit{{Event: json.RawMessage(`1`)}, {Event: json.RawMessage(`2`), Name: "orders"}}, nil, `:1|orders:2|$logs:hello`},
		{"an emit without data is null", "", []abi.Emit{{}}, nil, `:null|$logs:hello`},
		{"a failed run: $errors, no emits, logs kept", "", []abi.Emit{{Event: json.RawMessage(`1`)}}, throw("boom"), `$errors:boom|$logs:hello`},
		{"dedupe without ids fails the run", component.DedupeUnique, []abi.Emit{{Event: json.RawMessage(`1`)}}, nil, `$errors:without an id|$logs:hello`},
		{"a future delivery_ts waits on $in", "", []abi.Emit{{Event: json.RawMessage(`1`), DeliveryTS: &future}}, nil, `$in:"due_ms"|$logs:hello`},
		{"a past delivery_ts emits now", "", []abi.Emit{{Event: json.RawMessage(`1`), DeliveryTS: &past}}, nil, `:1|$logs:hello`},
		{"more than a year ahead fails the run", "", []abi.Emit{{Event: json.RawMessage(`1`), DeliveryTS: &tooFar}}, nil, `$errors:more than a year|$logs:hello`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Collector{emits: tt.emits, logs: []sandbox.LogEntry{log}}
			out := Pipeline(tt.strategy, model.Invocation{Kind: model.InvocationManual, Event: json.RawMessage(`{"x":1}`)}, c, tt.runErr, model.DedupeState{}, now)
			want := strings.Split(tt.want, "|")
			if len(out.Events) != len(want) {
				t.Fatalf("%d events, want %d: %+v", len(out.Events), len(want), out.Events)
			}
			for i, ev := range out.Events {
				channel, data, _ := strings.Cut(want[i], ":")
				if ev.Name != channel || !strings.Contains(string(ev.Data), data) || ev.EmitID == "" {
					t.Errorf("event %d = %s %s, want %s containing %s", i, ev.Name, ev.Data, channel, data)
				}
			}
		})
	}
}

func TestErrorEventDescribesTheFailure(t *testing.T) {
	t.Parallel()
	inv := model.Invocation{Kind: model.InvocationHTTP, Event: json.RawMessage(`{"body":1}`)}
	for _, tt := range []struct {
		err  error
		name string
	}{
		{throw("boom"), "Error"},
		{&testHookError{"TypeError", "x"}, "TypeError"},
		{sandbox.ErrTimeout, "TimeoutError"},
		{sandbox.ErrOutOfMemory, "OutOfMemoryError"},
		{errors.New("the account is over its quota"), "Error"},
	} {
		ev := ErrorEvent(tt.err, inv)
		var data struct {
			Error struct {
				Name string `json:"name"`
			} `json:"error"`
			Original json.RawMessage `json:"original_event"`
			Trigger  string          `json:"trigger"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil || ev.Name != model.ChannelErrors || data.Error.Name != tt.name ||
			string(data.Original) != `{"body":1}` || data.Trigger != string(model.InvocationHTTP) {
			t.Errorf("ErrorEvent(%v) = %s %s", tt.err, ev.Name, ev.Data)
		}
	}
}
