package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
)

// capped is one per-account limit of `fount serve` as a tenant meets it:
// create makes the i-th resource of its kind (i from 0) in the account of
// key, the account of a user of its own (the owner's, for organizations).
type capped struct {
	flag   string
	create func(s *testServer, key string, i int) (int, map[string]any)
}

func componentCode(i int) string {
	return fmt.Sprintf(`export default { name: "C%d", version: "%d", run() {} }`, i, i)
}

func cappedKinds() []capped {
	return []capped{
		{"max-sources-per-account", func(s *testServer, key string, i int) (int, map[string]any) {
			if i == 2 { // new code: the source limit answers before the component is saved
				return s.doAs(key, "POST", "/v1/sources", map[string]any{"component_code": componentCode(99)})
			}
			_, comp := s.doAs(key, "POST", "/v1/components", map[string]any{"component_code": componentCode(0)})
			return s.doAs(key, "POST", "/v1/sources", map[string]any{"component_id": data(comp)["id"]})
		}},
		{"max-components-per-account", func(s *testServer, key string, i int) (int, map[string]any) {
			if i < 2 { // components sources run: the limit cannot drop them to make room
				return s.doAs(key, "POST", "/v1/sources", map[string]any{"component_code": componentCode(i)})
			}
			return s.doAs(key, "POST", "/v1/components", map[string]any{"component_code": componentCode(i)})
		}},
		{"max-webhooks-per-account", func(s *testServer, key string, i int) (int, map[string]any) {
			return s.doAs(key, "POST", fmt.Sprintf("/v1/webhooks?url=https://example.com/%d", i), nil)
		}},
		{"max-subscriptions-per-account", func(s *testServer, key string, i int) (int, map[string]any) {
			listener := ""
			if _, body := s.doAs(key, "GET", "/v1/users/me/webhooks", nil); len(body["data"].([]any)) > 0 {
				listener = body["data"].([]any)[0].(map[string]any)["id"].(string)
			} else {
				_, hook := s.doAs(key, "POST", "/v1/webhooks?url=https://example.com/l", nil)
				listener = data(hook)["id"].(string)
			}
			if i == 1 { // auto-subscriptions count too
				return s.doAs(key, "POST", "/v1/auto_subscriptions?event_name=$errors&listener_id="+listener, nil)
			}
			return s.doAs(key, "POST", fmt.Sprintf("/v1/subscriptions?emitter_id=dc_*&event_name=c%d&listener_id=%s", i, listener), nil)
		}},
		{"max-orgs-per-user", func(s *testServer, _ string, i int) (int, map[string]any) {
			return s.do("POST", "/v1/orgs", map[string]any{"orgname": fmt.Sprint("org", i)})
		}},
	}
}

// flagConfig is the configuration of `fount serve` with args, on a free
// port and a temporary data dir, with the owner key ownerKey.
func flagConfig(t *testing.T, args []string) server.Config {
	t.Helper()
	cfg, err := parseServeFlags(args, testEnvironment(nil, io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr, cfg.DataDir, cfg.BootstrapKey = "", "", ownerKey
	return cfg
}

// TestCapsOfAServer: at each per-account limit set by its flag, a create
// is a 403 limit_reached naming the limit, its value and the flag, and
// nothing more is stored; the limits are per account (an organization's
// resources are its own); with the flags at 0 nothing is limited.
func TestCapsOfAServer(t *testing.T) {
	t.Parallel()
	var args []string
	for _, k := range cappedKinds() {
		args = append(args, "--"+k.flag, "2")
	}
	s := startServer(t, flagConfig(t, args))
	keys := map[string]string{}
	for _, k := range cappedKinds() {
		keys[k.flag] = s.newUser(strings.ReplaceAll(k.flag, "-", ""), "free").key
		for i := range 2 {
			if st, body := k.create(s, keys[k.flag], i); st != 200 {
				t.Fatalf("--%s=2: create %d: %d %v", k.flag, i, st, body)
			}
		}
		st, body := k.create(s, keys[k.flag], 2)
		e, _ := body["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if st != 403 || e["code"] != "limit_reached" || !strings.Contains(msg, "--"+k.flag) || !strings.Contains(msg, " 2 ") {
			t.Errorf("--%s=2: the third create answered %d %v, want a 403 limit_reached naming the flag and 2", k.flag, st, body)
		}
	}
	// Nothing past the limits was stored.
	if _, body := s.doAs(keys["max-sources-per-account"], "GET", "/v1/users/me/sources", nil); len(body["data"].([]any)) != 2 {
		t.Errorf("sources stored: %v", body["data"])
	}
	if st, body := s.doAs(keys["max-components-per-account"], "POST", "/v1/components", map[string]any{"component_code": componentCode(0)}); st != 200 {
		t.Errorf("saving stored code again at the limit: %d %v", st, body)
	}
	// An organization's resources are its account's, not its members'.
	_, orgs := s.do("GET", "/v1/users/me", nil)
	org := data(orgs)["orgs"].([]any)[0].(map[string]any)["id"].(string)
	if st, body := s.do("POST", "/v1/webhooks?url=https://example.com/o&org_id="+org, nil); st != 200 {
		t.Errorf("a webhook of an organization: %d %v", st, body)
	}

	unlimited := make([]string, len(args))
	for i := range args {
		unlimited[i] = map[bool]string{true: args[i], false: "0"}[i%2 == 0]
	}
	free := startServer(t, flagConfig(t, unlimited))
	for _, k := range cappedKinds() {
		key := free.newUser(strings.ReplaceAll(k.flag, "-", ""), "free").key
		for i := range 3 {
			if st, body := k.create(free, key, i); st != 200 {
				t.Errorf("--%s=0: create %d: %d %v", k.flag, i, st, body)
			}
		}
	}
}

// TestSavingOftenIsNeverLockedOut: components cannot be deleted, so at
// the limit a save drops the least recently saved component no source
// runs; the components sources run are kept, and an author saving new
// code again and again is never refused while one can be dropped.
func TestSavingOftenIsNeverLockedOut(t *testing.T) {
	t.Parallel()
	s := startServer(t, flagConfig(t, []string{"--max-components-per-account", "2"}))
	author := s.newUser("author", "free")
	st, src := author.do("POST", "/v1/sources", map[string]any{"component_code": componentCode(100)})
	if st != 200 {
		t.Fatalf("deploy: %d %v", st, src)
	}
	running := data(src)["component_id"].(string)
	var saved []string
	for i := range 5 {
		st, body := author.do("POST", "/v1/components", map[string]any{"component_code": componentCode(i)})
		if st != 200 {
			t.Fatalf("save %d at the limit: %d %v", i, st, body)
		}
		saved = append(saved, data(body)["id"].(string))
	}
	for _, id := range saved[:4] {
		if st, body := author.do("GET", "/v1/components/"+id, nil); st != 404 {
			t.Errorf("component %s, saved before the last and run by no source, was kept: %d %v", id, st, body)
		}
	}
	for _, id := range []string{running, saved[4]} {
		if st, body := author.do("GET", "/v1/components/"+id, nil); st != 200 {
			t.Errorf("component %s was dropped: %d %v", id, st, body)
		}
	}
}
