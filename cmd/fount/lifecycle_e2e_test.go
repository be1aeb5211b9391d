package main

import (
	"strings"
	"testing"
)

// The lifecycle cases of the foundation issue, against a real server and
// the real sandbox. Each failed before the engine owned the lifecycle.

// TestDeleteWithThrowingDeactivateHook: the delete succeeds; the hook's
// failure reaches the source's $errors listeners.
func TestDeleteWithThrowingDeactivateHook(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	rc := &receiver{}
	s.do("POST", "/v1/auto_subscriptions?event_name=$errors&listener_id="+s.webhookTo(rc), nil)
	src := s.deploySource(`export default { name: "B", version: "1", hooks: { deactivate() { throw new Error("cannot unregister") } }, run() {} }`, nil)
	if st, body := s.do("DELETE", "/v1/sources/"+src["id"].(string), nil); st != 204 {
		t.Fatalf("delete answered %d %v", st, body)
	}
	got := rc.wait(t, 1)[0]
	if got["metadata"].(map[string]any)["name"] != "$errors" || !strings.Contains(string(mustMarshal(t, got["event"])), "cannot unregister") {
		t.Errorf("the $errors listener got %v", got)
	}
}

// TestUpdateWithThrowingActivateHook: the old version runs as it was.
func TestUpdateWithThrowingActivateHook(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	v1 := `export default { name: "V", version: "1", props: { db: "$.service.db" },
		hooks: { activate() { this.db.set("state", "active:v1") }, deactivate() { this.db.set("state", "inactive") } },
		run() { this.$emit(this.db.get("state")) } }`
	v2 := `export default { name: "V", version: "2", props: { db: "$.service.db" },
		hooks: { activate() { throw new Error("cannot register") } }, run() { this.$emit("v2") } }`
	id := s.deploySource(v1, nil)["id"].(string)
	if st, body := s.do("PUT", "/v1/sources/"+id, map[string]any{"component_code": v2}); st != 400 || !strings.Contains(string(mustMarshal(t, body)), "cannot register") {
		t.Fatalf("update: %d %v", st, body)
	}
	s.run(id, nil)
	if ev := s.events(id, "", 1)[0]["event"]; ev != "active:v1" {
		t.Errorf("after the failed update the source emits %v, want the old version, active (active:v1)", ev)
	}
}

// TestHookEmitsReachSubscribers: a deploy hook's emit is routed like any.
func TestHookEmitsReachSubscribers(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	rc := &receiver{}
	wh := s.webhookTo(rc)
	s.do("POST", "/v1/subscriptions?emitter_id=dc_*&listener_id="+wh, nil)
	src := s.deploySource(`export default { name: "H", version: "1", hooks: { deploy() { this.$emit("hello") } }, run() {} }`, nil)
	s.events(src["id"].(string), "", 1)
	_, dl := s.do("GET", "/v1/webhooks/"+wh+"/deliveries", nil)
	if list := dl["data"].([]any); len(list) != 1 || list[0].(map[string]any)["emitter_id"] != src["id"] {
		t.Errorf("deliveries of the hook's emit: %v", list)
	}
	if got := rc.wait(t, 1)[0]; got["event"] != "hello" {
		t.Errorf("the webhook got %v", got)
	}
}
