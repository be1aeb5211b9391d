package model

import (
	"encoding/json"
	"testing"
)

// TestTargetsOfRecords: an invocation and a subscription name their
// target's or listener's kind; one stored by an older fount, without a
// kind, is read by its id's prefix.
func TestTargetsOfRecords(t *testing.T) {
	t.Parallel()
	invs := []struct {
		stored string
		want   Target
	}{
		{`{"source_id":"dc_1","target_kind":"workflow","kind":"http"}`, WorkflowTarget("dc_1")}, // the kind, not the id
		{`{"source_id":"p_1","target_kind":"source","kind":"http"}`, SourceTarget("p_1")},
		{`{"source_id":"dc_1","kind":"http"}`, SourceTarget("dc_1")},
		{`{"source_id":"p_1","kind":"timer"}`, WorkflowTarget("p_1")},
		{`{"source_id":"x_1","kind":"timer"}`, Target{}},
	}
	for _, tt := range invs {
		var inv Invocation
		if err := json.Unmarshal([]byte(tt.stored), &inv); err != nil {
			t.Fatal(err)
		}
		if got := inv.Target(); got != tt.want {
			t.Errorf("the target of %s is %v, want %v", tt.stored, got, tt.want)
		}
	}
	if inv := NewInvocation(WorkflowTarget("p_2"), InvocationManual, nil); inv.Target() != WorkflowTarget("p_2") || inv.TargetID != "p_2" {
		t.Errorf("NewInvocation: %+v", inv)
	}

	subs := []struct {
		stored string
		want   Listener
		runs   bool
	}{
		{`{"listener_id":"wh_1","listener_kind":"workflow"}`, Listener{Kind: ListenerWorkflow, ID: "wh_1"}, true},
		{`{"listener_id":"dc_1"}`, Listener{Kind: ListenerSource, ID: "dc_1"}, true},
		{`{"listener_id":"p_1"}`, Listener{Kind: ListenerWorkflow, ID: "p_1"}, true},
		{`{"listener_id":"wh_1"}`, Listener{Kind: ListenerWebhook, ID: "wh_1"}, false},
		{`{"listener_id":"x_1"}`, Listener{ID: "x_1"}, false},
	}
	for _, tt := range subs {
		var s Subscription
		var a AutoSubscription
		if err := json.Unmarshal([]byte(tt.stored), &s); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tt.stored), &a); err != nil {
			t.Fatal(err)
		}
		if s.Listener() != tt.want || a.Listener() != tt.want {
			t.Errorf("the listener of %s is %v (auto: %v), want %v", tt.stored, s.Listener(), a.Listener(), tt.want)
		}
		if _, runs := tt.want.Target(); runs != tt.runs {
			t.Errorf("%v runs: %v, want %v", tt.want, runs, tt.runs)
		}
	}
}
