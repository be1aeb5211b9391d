package main

import (
	"fmt"
	"strings"
	"testing"
)

// authSource reads its GitHub account's token in a hook and in run.
const authSource = `export default {
	name: "auth-reader", version: "0.1.0",
	props: { github: { type: "app", app: "github" }, db: "$.service.db" },
	hooks: { async activate() { this.db.set("token_at_activate", this.github.$auth.oauth_access_token) } },
	async run(event) {
		const auth = this.github.$auth;
		this.$emit({ token: auth.oauth_access_token, extra: auth.org || null, keys: Object.keys(auth).sort(),
			hook: this.db.get("token_at_activate") === auth.oauth_access_token,
			inJSON: JSON.stringify(this.github).includes("ghp_") });
	},
}`

func TestConnectedAccountAuthRoundTrip(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	const token = "ghp_SECRETSECRETSECRET"
	st, body := s.do("POST", "/v1/accounts", map[string]any{"app": "github", "name": "my github",
		"oauth_access_token": token, "fields": map[string]any{"org": "acme"}})
	if st != 200 {
		t.Fatalf("create account: %d %v", st, body)
	}
	acct := data(body)
	id := acct["id"].(string)
	if !strings.HasPrefix(id, "apn_") || fmt.Sprint(acct["fields_set"]) != "[oauth_access_token org]" {
		t.Errorf("account view %v", acct)
	}
	for _, path := range []string{"/v1/accounts/" + id, "/v1/users/me/accounts"} {
		_, got := s.do("GET", path, nil)
		if raw := fmt.Sprint(got); strings.Contains(raw, token) || !strings.Contains(raw, id) {
			t.Errorf("GET %s shows the token or lacks the account: %s", path, raw)
		}
	}

	src := s.deploySource(authSource, map[string]any{"github": map[string]any{"authProvisionId": id}})
	s.run(src["id"].(string), map[string]any{})
	ev := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any)
	if ev["token"] != token || ev["extra"] != "acme" || fmt.Sprint(ev["keys"]) != "[oauth_access_token org]" || ev["inJSON"] != false || ev["hook"] != true {
		t.Errorf("run saw %v", ev)
	}
	if strings.Contains(fmt.Sprint(src), token) {
		t.Errorf("the source's view shows the token: %v", src)
	}

	// Another user can neither read the account nor configure a prop with it.
	eve := s.newUser("eve", "")
	if st, _ := eve.do("GET", "/v1/accounts/"+id, nil); st != 404 {
		t.Errorf("another user's GET: %d, want 404", st)
	}
	if st, _ := eve.do("DELETE", "/v1/accounts/"+id, nil); st != 404 {
		t.Errorf("another user's DELETE: %d, want 404", st)
	}
	st, body = eve.do("POST", "/v1/sources", map[string]any{"component_code": authSource,
		"configured_props": map[string]any{"github": map[string]any{"authProvisionId": id}}})
	if e, _ := body["error"].(map[string]any); st != 400 || e["param"] != "configured_props.github" || !strings.Contains(fmt.Sprint(e["message"]), "does not exist or is not") {
		t.Errorf("another user's deploy with the account: %d %v", st, body)
	}
	if _, body := eve.do("GET", "/v1/users/me/accounts", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("another user lists %v", body["data"])
	}

	// In use: refused with its users; forced: the source fails where it
	// reads $auth, with an $errors event that says so.
	st, body = s.do("DELETE", "/v1/accounts/"+id, nil)
	if e, _ := body["error"].(map[string]any); st != 409 || e["code"] != "account_in_use" || !strings.Contains(fmt.Sprint(e["message"]), src["id"].(string)) {
		t.Errorf("delete in use: %d %v", st, body)
	}
	if st, body := s.do("DELETE", "/v1/accounts/"+id+"?force=true", nil); st != 204 {
		t.Fatalf("forced delete: %d %v", st, body)
	}
	s.run(src["id"].(string), map[string]any{})
	errs := s.events(src["id"].(string), "$errors", 1)
	if msg := fmt.Sprint(errs[0]["event"]); !strings.Contains(msg, "$auth: not found") || !strings.Contains(msg, "was deleted; configure the prop with another account") {
		t.Errorf("$errors event after the account's deletion: %s", msg)
	}
	if strings.Contains(s.log.String(), token) || strings.Contains(s.stdout.String(), token) {
		t.Error("the server's log shows the token")
	}
}

func TestConnectedAccountBadInput(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	_, body := s.do("POST", "/v1/accounts", map[string]any{"app": "slack", "name": "s", "api_key": "k"})
	slack := data(body)["id"].(string)
	cases := []struct {
		name  string
		body  map[string]any
		param string
	}{
		{"no app", map[string]any{"name": "x", "api_key": "k"}, "app"},
		{"bad app", map[string]any{"app": "Git Hub", "name": "x", "api_key": "k"}, "app"},
		{"no fields", map[string]any{"app": "github", "name": "x"}, "fields"},
		{"bad field", map[string]any{"app": "github", "name": "x", "fields": map[string]any{"no-dash": "v"}}, "fields"},
		{"twice", map[string]any{"app": "github", "name": "x", "api_key": "a", "fields": map[string]any{"api_key": "b"}}, "fields.api_key"},
	}
	for _, c := range cases {
		if st, body := s.do("POST", "/v1/accounts", c.body); st != 400 || data0(body)["param"] != c.param {
			t.Errorf("%s: %d %v, want 400 on %s", c.name, st, body, c.param)
		}
	}
	for name, v := range map[string]any{
		"not an account":  "ghp_plain_token",
		"unknown account": map[string]any{"authProvisionId": "apn_nope"},
		"another app's":   map[string]any{"authProvisionId": slack},
	} {
		st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": authSource, "configured_props": map[string]any{"github": v}})
		if st != 400 || data0(body)["param"] != "configured_props.github" {
			t.Errorf("%s: %d %v", name, st, body)
		}
	}
	if _, body := s.do("GET", "/v1/users/me/sources", nil); len(body["data"].([]any)) != 0 {
		t.Errorf("sources stored after refused deploys: %v", body["data"])
	}
}

// data0 is an error answer's error object.
func data0(body map[string]any) map[string]any { e, _ := body["error"].(map[string]any); return e }

func TestAccountsCLI(t *testing.T) {
	e := newCLIEnv(t)
	const token = "xoxb-not-on-the-command-line"
	code, out, stderr := e.fountWithStdin(token+"\nacme\n", "accounts", "create", "slack", "--name", "team", "--field", "oauth_access_token", "--field", "team", "--quiet")
	if code != exitOK {
		t.Fatalf("accounts create: exit %d: %s", code, stderr)
	}
	id := strings.TrimSpace(out)
	if !strings.HasPrefix(id, "apn_") {
		t.Fatalf("accounts create printed %q", out)
	}
	list := e.mustFount("accounts", "list")
	if !strings.Contains(list, id) || !strings.Contains(list, "oauth_access_token,team") || strings.Contains(list, token) {
		t.Errorf("accounts list:\n%s", list)
	}
	src := e.srv.deploySource(strings.ReplaceAll(authSource, "github", "slack"), map[string]any{"slack": map[string]any{"authProvisionId": id}})
	e.srv.run(src["id"].(string), nil)
	if ev := e.srv.events(src["id"].(string), "", 1)[0]["event"].(map[string]any); ev["token"] != token {
		t.Errorf("run saw %v", ev)
	}
	if code, _, stderr := e.fount("accounts", "delete", id); code == exitOK || !strings.Contains(stderr, src["id"].(string)) {
		t.Errorf("delete in use: exit %d, %s", code, stderr)
	}
	e.mustFount("accounts", "delete", id, "--force")
	if code, _, stderr := e.fountWithStdin("", "accounts", "create", "slack", "--name", "x"); code != exitUsage || !strings.Contains(stderr, "oauth_access_token is empty") {
		t.Errorf("empty stdin: exit %d, %s", code, stderr)
	}
}
