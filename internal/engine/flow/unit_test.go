package flow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/store"
)

// TestOldExecutionID: a resume queued before paused executions had a
// table names its execution only through the event it may carry.
func TestOldExecutionID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		act  flowAction
		want string
	}{
		{"with its event", flowAction{OldEventID: "1-1", OldPaused: json.RawMessage(`{"v":1,"due_ms":5,"paused":{"kind":"suspend","execution":{"id":"ex_a-1"}}}`)}, "ex_a-1"},
		{"with its event id only", flowAction{OldEventID: "1-1"}, ""},
		{"an event that is not a pause", flowAction{OldPaused: json.RawMessage(`{"v":1,"due_ms":5}`)}, ""},
		{"garbage", flowAction{OldPaused: json.RawMessage(`{nope`)}, ""},
	}
	for _, tc := range cases {
		if got := oldExecutionID(tc.act); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPausedDueSet: loading a workflow's entries replaces what the set
// held of it and says when the first is due; due lists the due ones,
// oldest first, and when the next of the others is.
func TestPausedDueSet(t *testing.T) {
	t.Parallel()
	d := newPausedDueSet()
	d.set("p_a", "ex_a-stale", 1)
	if first, ok := d.load("p_a", map[string]store.PausedEntry{"ex_a-2": {DueMs: 20}, "ex_a-1": {DueMs: 10}, "ex_a-3": {DueMs: 30}}); !ok || first != 10 {
		t.Errorf("load: first %d, %v; want 10", first, ok)
	}
	if ids, next := d.due("p_a", 20); strings.Join(ids, ",") != "ex_a-1,ex_a-2" || next != 30 {
		t.Errorf("due at 20: %v, next %d; want ex_a-1,ex_a-2 and 30 (the stale entry gone)", ids, next)
	}
	if _, ok := d.load("p_a", nil); ok {
		t.Error("an empty load has a first due time")
	}
	if ids, next := d.due("p_a", 100); len(ids) != 0 || next != 0 {
		t.Errorf("after an empty load: %v, %d", ids, next)
	}
}
