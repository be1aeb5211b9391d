package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/store"
)

func emit(id string, ts int64) abi.Emit {
	e := abi.Emit{ID: json.RawMessage(id)}
	if ts != 0 {
		e.TS = &ts
	}
	return e
}

func ids(es []abi.Emit) string {
	var out []string
	for _, e := range es {
		out = append(out, e.IDString())
	}
	return strings.Join(out, ",")
}

func TestApplyDedupe(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		strategy string
		state    store.DedupeState
		emits    []abi.Emit
		want     string
		wantErr  string
	}{
		{"none keeps all", "", store.DedupeState{}, []abi.Emit{emit(`"a"`, 0), emit(`"a"`, 0)}, "a,a", ""},
		{"unique drops seen ids", "unique", store.DedupeState{Unique: []string{"a"}}, []abi.Emit{emit(`"a"`, 0), emit(`"b"`, 0), emit(`"b"`, 0)}, "b", ""},
		{"greatest", "greatest", store.DedupeState{Greatest: f(5)}, []abi.Emit{emit(`4`, 0), emit(`6`, 0), emit(`5.5`, 0), emit(`7`, 0)}, "6,7", ""},
		{"greatest needs numbers", "greatest", store.DedupeState{}, []abi.Emit{emit(`"x"`, 0)}, "", "numeric"},
		{"last after the match", "last", store.DedupeState{Last: "b"}, []abi.Emit{emit(`"a"`, 0), emit(`"b"`, 0), emit(`"c"`, 0)}, "c", ""},
		{"last without a match keeps all", "last", store.DedupeState{Last: "z"}, []abi.Emit{emit(`"a"`, 0), emit(`"b"`, 0)}, "a,b", ""},
		{"an emit without id", "unique", store.DedupeState{}, []abi.Emit{{}}, "", "without an id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, _, err := applyDedupe(tt.strategy, tt.emits, tt.state)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ids(kept) != tt.want {
				t.Fatalf("kept %s (%v), want %s", ids(kept), err, tt.want)
			}
		})
	}
}

func TestUniqueCachePurgesOldestFirst(t *testing.T) {
	var st store.DedupeState
	var emits []abi.Emit
	for i := range 150 {
		emits = append(emits, emit(fmt.Sprintf(`"id%d"`, i), 0))
	}
	_, next, err := applyDedupe("unique", emits, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Unique) != uniqueCacheSize || next.Unique[0] != emits[50].IDString() {
		t.Fatalf("cache holds %d ids starting %q; want the newest 100", len(next.Unique), next.Unique[0])
	}
}

func TestOrderByTS(t *testing.T) {
	got := orderByTS([]abi.Emit{emit(`"c"`, 30), emit(`"n1"`, 0), emit(`"a"`, 10), emit(`"b"`, 20), emit(`"n2"`, 0)})
	if ids(got) != "a,b,c,n1,n2" {
		t.Fatalf("order %s", ids(got))
	}
	plain := []abi.Emit{emit(`"x"`, 0), emit(`"y"`, 0)}
	if ids(orderByTS(plain)) != "x,y" {
		t.Fatal("emits without ts must keep their order")
	}
}

func TestSignMatchesStandardWebhooks(t *testing.T) {
	// The Standard Webhooks specification's own example.
	sig, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if sig != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("signature %s", sig)
	}
	if _, err := Sign("whsec_***", "id", "1", nil); err == nil {
		t.Fatal("a malformed secret was accepted")
	}
}

func TestBackoff(t *testing.T) {
	e := New(Config{RetryBase: time.Second})
	for attempt, base := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 30: time.Hour} {
		for range 20 {
			d := e.backoff(attempt)
			if d < base*3/4 || d > base*5/4 {
				t.Fatalf("backoff(%d) = %v, want %v ± 25%%", attempt, d, base)
			}
		}
	}
}
