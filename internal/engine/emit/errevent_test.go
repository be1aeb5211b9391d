package emit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// TestErrorEventKeepsTheCode: a thrown error's own code is the $errors
// event's error.code, capped as its name is; an error without one has
// none.
func TestErrorEventKeepsTheCode(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("E", 4<<10)
	for _, tt := range []struct{ code, want string }{
		{"ECONNREFUSED", "ECONNREFUSED"},
		{huge, huge[:MaxErrorName]},
		{"", ""},
	} {
		ev := ErrorEvent(&sandbox.ScriptError{GuestError: abi.GuestError{Name: "Error", Message: "m", Code: tt.code}}, model.Invocation{Kind: model.InvocationManual})
		var got struct {
			Error map[string]any `json:"error"`
		}
		if err := json.Unmarshal(ev.Data, &got); err != nil {
			t.Fatal(err)
		}
		code, has := got.Error["code"].(string)
		if has != (tt.want != "") || !strings.HasPrefix(code, tt.want) || len(code) > MaxErrorName+64 {
			t.Errorf("code %.20q...: error.code = %.80q (present %v), want %.20q...", tt.code, code, has, tt.want)
		}
	}
}

// TestErrorEventCaps: what an $errors event copies of a failed run is
// capped, marked when cut, and the event stays valid JSON far below the
// emit cap however large the error and the original event were.
func TestErrorEventCaps(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é\x01", 4<<20) // 12 MiB, escaped in JSON as 7 bytes a pair
	tests := []struct {
		name                 string
		err                  error
		event                string
		wantName, wantMsg    string // prefixes
		wantStack            string
		cutName, cutMessage  bool
		cutStack, cutOrigial bool
	}{
		{"small, as it was", &sandbox.ScriptError{GuestError: abi.GuestError{Name: "TypeError", Message: "bad", Stack: "at x"}}, `{"n":1}`, "TypeError", "bad", "at x", false, false, false, false},
		{"huge message", throw(huge), `{"n":1}`, "Error", "é\x01", "at fake", false, true, false, false},
		{"huge name and stack", &sandbox.ScriptError{GuestError: abi.GuestError{Name: huge, Message: "m", Stack: huge}}, `null`, "é", "m", "é", true, false, true, false},
		{"huge original event", throw("boom"), `"` + strings.Repeat("x", 5<<20) + `"`, "Error", "boom", "at fake", false, false, false, true},
		{"a huge hook error", &testHookError{"Error", huge}, `null`, "Error", "é", "", false, true, false, false},
		{"a huge Go error", fmt.Errorf("wrapped: %s", huge), `null`, "Error", "wrapped", "", false, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := ErrorEvent(tt.err, model.Invocation{Kind: model.InvocationManual, Event: json.RawMessage(tt.event)})
			if len(ev.Data) > 256<<10 {
				t.Errorf("the $errors event has %d bytes", len(ev.Data))
			}
			var got struct {
				Error struct {
					Name, Message, Stack string
				}
				Original json.RawMessage `json:"original_event"`
			}
			if err := json.Unmarshal(ev.Data, &got); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			for _, f := range []struct {
				what, got, prefix string
				max               int
				cut               bool
			}{
				{"name", got.Error.Name, tt.wantName, MaxErrorName, tt.cutName},
				{"message", got.Error.Message, tt.wantMsg, MaxErrorMessage, tt.cutMessage},
				{"stack", got.Error.Stack, tt.wantStack, MaxErrorStack, tt.cutStack},
			} {
				marked := strings.Contains(f.got, "[truncated: ")
				if !strings.HasPrefix(f.got, f.prefix) || marked != f.cut || len(f.got) > f.max+64 || !utf8.ValidString(f.got) {
					t.Errorf("%s = %.80q (%d bytes), want %q..., cut %v", f.what, f.got, len(f.got), f.prefix, f.cut)
				}
			}
			wantOriginal := tt.event
			if tt.cutOrigial {
				wantOriginal = fmt.Sprintf(`{"truncated":true,"bytes":%d}`, len(tt.event))
			}
			if string(got.Original) != wantOriginal {
				t.Errorf("original_event = %.80s, want %.80s", got.Original, wantOriginal)
			}
			if utf8.RuneCountInString(ev.Summary) > 121 {
				t.Errorf("summary of %d characters", utf8.RuneCountInString(ev.Summary))
			}
		})
	}
}

// TestDedupeAfter: the dedupe state after each prefix of a run's emits is
// the one a run of just those emits would leave.
func TestDedupeAfter(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	emits := []abi.Emit{emitOf(`"3"`, 0), emitOf(`"5"`, 0), emitOf(`"9"`, 0)}
	for _, tt := range []struct {
		strategy string
		initial  model.DedupeState
		want     []string // the state after 0, 1, 2, 3 and 4 events
	}{
		{component.DedupeUnique, model.DedupeState{Unique: []string{"1"}}, []string{"[1]", "[1 3]", "[1 3 5]", "[1 3 5 9]", "[1 3 5 9]"}},
		{component.DedupeGreatest, model.DedupeState{Greatest: f(1)}, []string{"1", "3", "5", "9", "9"}},
		{component.DedupeLast, model.DedupeState{Last: "1"}, []string{"1", "3", "5", "9", "9"}},
	} {
		kept, final, err := ApplyDedupe(tt.strategy, emits, tt.initial)
		if err != nil {
			t.Fatal(err)
		}
		after := dedupeAfter(tt.strategy, kept, tt.initial, final)
		for n, want := range tt.want {
			st := after(n)
			var got string
			switch tt.strategy {
			case component.DedupeUnique:
				got = fmt.Sprint(st.Unique)
			case component.DedupeGreatest:
				got = fmt.Sprint(*st.Greatest)
			default:
				got = st.Last
			}
			if got != want {
				t.Errorf("%s after %d events: %s, want %s", tt.strategy, n, got, want)
			}
		}
		if after(len(kept)) != final {
			t.Errorf("%s: the state after all events is not the final one", tt.strategy)
		}
	}
	if dedupeAfter("", emits, model.DedupeState{}, nil) != nil {
		t.Error("a source without a strategy has a dedupe state")
	}
}

// throw is the error of a component that threw.
func throw(msg string) error {
	return &sandbox.ScriptError{GuestError: abi.GuestError{Name: "Error", Message: msg, Stack: "at fake"}}
}

// testHookError names its JavaScript error, as the engine's HookError
// does.
type testHookError struct{ name, msg string }

func (e *testHookError) Error() string                   { return "the hook failed: " + e.name + ": " + e.msg }
func (e *testHookError) JSError() (name, message string) { return e.name, e.msg }
