package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// cliEnv is a real fount serve plus the environment a CLI user has: its
// own config dir, and FOUNT_URL and FOUNT_API_KEY set for the server.
type cliEnv struct {
	t    *testing.T
	srv  *testServer
	vars map[string]string
}

func newCLIEnv(t *testing.T) *cliEnv {
	t.Helper()
	return newCLIEnvOn(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
}

// newCLIEnvOn is newCLIEnv with a server started with cfg.
func newCLIEnvOn(t *testing.T, cfg server.Config) *cliEnv {
	t.Helper()
	t.Parallel()
	s := startServer(t, cfg)
	return &cliEnv{t: t, srv: s, vars: map[string]string{
		"XDG_CONFIG_HOME": t.TempDir(), "NO_COLOR": "1", "FOUNT_URL": s.base, "FOUNT_API_KEY": s.key,
	}}
}

// with returns a copy of e with vars set in its environment.
func (e *cliEnv) with(vars map[string]string) *cliEnv {
	c := &cliEnv{t: e.t, srv: e.srv, vars: map[string]string{}}
	for k, v := range e.vars {
		c.vars[k] = v
	}
	for k, v := range vars {
		c.vars[k] = v
	}
	return c
}

// fount runs a CLI command to completion.
func (e *cliEnv) fount(args ...string) (int, string, string) {
	e.t.Helper()
	return e.fountWithStdin("", args...)
}

// fountWithStdin runs a CLI command with input on its stdin.
func (e *cliEnv) fountWithStdin(input string, args ...string) (int, string, string) {
	e.t.Helper()
	var stdout, stderr lockedBuffer
	env := testEnvironment(e.vars, &stdout, &stderr)
	env.stdin = strings.NewReader(input)
	code := run(context.Background(), args, env)
	return code, stdout.String(), stderr.String()
}

// mustFount runs a command that must succeed.
func (e *cliEnv) mustFount(args ...string) string {
	e.t.Helper()
	code, out, errOut := e.fount(args...)
	if code != exitOK {
		e.t.Fatalf("fount %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// background runs a long command (--follow, dev) until stop is called.
func (e *cliEnv) background(args ...string) (out *lockedBuffer, stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	out = &lockedBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, testEnvironment(e.vars, out, out)) }()
	return out, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(startupDeadline):
			e.t.Fatalf("fount %s did not stop", strings.Join(args, " "))
			return -1
		}
	}
}

func waitFor(t *testing.T, out *lockedBuffer, want string) {
	t.Helper()
	wait.For(t, fmt.Sprintf("the output to contain %q", want), eventsDeadline, func() (string, bool) {
		s := out.String()
		return s, strings.Contains(s, want)
	})
}

func post(t testing.TB, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST %s: %v %v", url, err, resp)
	}
	resp.Body.Close()
}

func TestCLIDeployTwoFilesEventsLogsUpdateDelete(t *testing.T) {
	e := newCLIEnv(t)
	out := e.mustFount("deploy", "../../testdata/cli/two-file/source.mjs", "--prop", "who=fount", "--prop", "times=2", "--name", "greeter")
	if !strings.Contains(out, "deployed greeter (dc_") || !strings.Contains(out, "http endpoint: http://") {
		t.Fatalf("deploy output: %s", out)
	}
	id := strings.TrimSpace(e.mustFount("list", "sources", "--quiet"))
	endpoint := out[strings.Index(out, "http://") : strings.Index(out, "http://")+strings.Index(out[strings.Index(out, "http://"):], "\n")]

	table := e.mustFount("list", "sources")
	if !strings.Contains(table, "ID") || !strings.Contains(table, "greeter") || !strings.Contains(table, id) {
		t.Errorf("list table: %s", table)
	}
	var listed map[string][]map[string]any
	if err := json.Unmarshal([]byte(e.mustFount("list", "sources", "--json")), &listed); err != nil || listed["data"][0]["id"] != id {
		t.Errorf("list --json: %v %v", err, listed)
	}

	// The follow resumes after the events it listed first, so the post may
	// come before or after it connects.
	follow, stop := e.background("events", "greeter", "--follow")
	post(t, endpoint, `{"n":1}`)
	waitFor(t, follow, `"text":"hello, fount"`)
	if code := stop(); code != exitOK {
		t.Errorf("events --follow exited %d after Ctrl-C", code)
	}
	if n := strings.Count(follow.String(), "hello, fount"); n != 2 {
		t.Errorf("followed %d events, want 2 (times=2):\n%s", n, follow)
	}
	if logs := e.mustFount("logs", "greeter"); !strings.Contains(logs, "info greeting fount") {
		t.Errorf("logs: %s", logs)
	}
	events := e.mustFount("events", id, "-n", "1", "--json")
	if !strings.Contains(events, `"page_info"`) {
		t.Errorf("events --json: %s", events)
	}

	upd := e.mustFount("update", "greeter", "../../testdata/cli/two-file/source.mjs", "--prop", "who=again")
	if !strings.Contains(upd, "updated greeter ("+id+")") || !strings.Contains(upd, endpoint) {
		t.Errorf("update must keep the id and endpoint: %s", upd)
	}
	e.mustFount("run", "greeter", "--event", `{"body":{"x":1}}`)
	waitFor(t, mustWatch(e, "events", "greeter", "-n", "5"), "hello, again")

	if out := e.mustFount("delete", "greeter"); !strings.Contains(out, "deleted greeter ("+id+")") {
		t.Errorf("delete: %s", out)
	}
	if out := e.mustFount("list", "sources", "--quiet"); strings.TrimSpace(out) != "" {
		t.Errorf("sources after delete: %q", out)
	}
}

// mustWatch polls a command until its output says "again", and returns
// that output.
func mustWatch(e *cliEnv, args ...string) *lockedBuffer {
	out := wait.For(e.t, "the output of fount "+strings.Join(args, " ")+" to say again", eventsDeadline, func() (string, bool) {
		_, out, _ := e.fount(args...)
		return out, strings.Contains(out, "again")
	})
	buf := &lockedBuffer{}
	buf.Write([]byte(out))
	return buf
}

func TestCLITypeScript(t *testing.T) {
	e := newCLIEnv(t)
	out := e.mustFount("deploy", "../../testdata/cli/typescript/source.ts", "--quiet")
	id := strings.TrimSpace(out)
	if !strings.HasPrefix(id, "dc_") {
		t.Fatalf("deploy --quiet: %q", out)
	}
	e.mustFount("run", id, "--event", `{"body":{"word":"ts"}}`)
	wait.Until(t, "the TypeScript component's event", eventsDeadline, func() bool { return strings.Contains(e.mustFount("events", id), `"loud":"TS!"`) })
	comps := e.mustFount("list", "components")
	if !strings.Contains(comps, "Shouter") {
		t.Errorf("list components: %s", comps)
	}
}

func TestCLIDev(t *testing.T) {
	e := newCLIEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "dev.mjs")
	write := func(word string) {
		code := `export default { name: "Dev Source", version: "1", run() { console.log("running"); this.$emit({ word: "` + word + `" }) } }`
		if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("first")
	out, stop := e.background("dev", file)
	waitFor(t, out, "dev: deployed dev-source (dc_")
	e.mustFount("run", "dev-source")
	waitFor(t, out, `{"word":"first"}`)
	waitFor(t, out, "log info running")
	write("second")
	_ = os.Chtimes(file, time.Now().Add(time.Second), time.Now().Add(time.Second))
	waitFor(t, out, "dev: redeployed dev-source")
	e.mustFount("run", "dev-source")
	waitFor(t, out, `{"word":"second"}`)
	if code := stop(); code != exitOK {
		t.Errorf("dev exited %d", code)
	}
	waitFor(t, out, "dev: deleted dc_")
	if list := e.mustFount("list", "sources", "--quiet"); strings.TrimSpace(list) != "" {
		t.Errorf("dev left its source behind: %q", list)
	}
}

func TestCLIManagement(t *testing.T) {
	e := newCLIEnv(t)
	a := strings.TrimSpace(e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "a", "--quiet"))
	e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "b", "--quiet")
	hook := e.mustFount("webhooks", "create", "https://example.com/in", "--name", "ops")
	if !strings.Contains(hook, "signing secret (shown once): whsec_") {
		t.Errorf("webhooks create: %s", hook)
	}
	whID := strings.TrimSpace(e.mustFount("webhooks", "list", "--quiet"))
	if !strings.HasPrefix(whID, "wh_") || !strings.Contains(e.mustFount("webhooks", "list"), "https://example.com/in") {
		t.Fatalf("webhooks list: %q", whID)
	}
	sub := e.mustFount("subscribe", "--emitter", "a", "--listener", "b")
	if !strings.Contains(sub, "subscribed dc_") || !strings.Contains(sub, "to "+a) {
		t.Errorf("subscribe: %s", sub)
	}
	if url := strings.TrimSpace(e.mustFount("get", "a", "--endpoint")); !strings.HasPrefix(url, "http://") || !strings.Contains(url, "/h/") {
		t.Errorf("get --endpoint: %q", url)
	}
	e.mustFount("subscribe", "--emitter", a, "--listener", whID, "--channel", "orders")
	subs := e.mustFount("list", "subscriptions")
	if !strings.Contains(subs, "orders") || strings.Count(subs, "sub_") != 2 {
		t.Errorf("list subscriptions: %s", subs)
	}
	if got := e.mustFount("get", "a"); !strings.Contains(got, `"name": "a"`) {
		t.Errorf("get a: %s", got)
	}
	if got := e.mustFount("get", whID); !strings.Contains(got, "https://example.com/in") {
		t.Errorf("get webhook: %s", got)
	}
	e.mustFount("unsubscribe", "--emitter", a, "--listener", whID, "--channel", "orders")
	if subs := e.mustFount("list", "subscriptions", "--quiet"); strings.Count(subs, "sub_") != 1 {
		t.Errorf("after unsubscribe: %s", subs)
	}
	e.mustFount("webhooks", "delete", whID)
	if who := e.mustFount("whoami"); !strings.Contains(who, "owner (owner@localhost") {
		t.Errorf("whoami: %s", who)
	}
}

func TestCLILoginProfiles(t *testing.T) {
	full := newCLIEnv(t)
	url, key := full.vars["FOUNT_URL"], full.vars["FOUNT_API_KEY"]
	e := full.with(map[string]string{"FOUNT_URL": "", "FOUNT_API_KEY": ""})
	out := e.mustFount("login", "--url", url, "--key", key, "--profile", "local")
	path := filepath.Join(e.vars["XDG_CONFIG_HOME"], "fount", "config.json")
	if !strings.Contains(out, "profile \"local\" saved in "+path) {
		t.Fatalf("login: %s", out)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", err, info)
	}
	if who := e.mustFount("whoami", "--profile", "local"); !strings.Contains(who, "owner") {
		t.Errorf("whoami with the profile: %s", who)
	}
	e = e.with(map[string]string{"FOUNT_PROFILE": "local"})
	if who := e.mustFount("whoami", "--quiet"); !strings.HasPrefix(who, "u_") {
		t.Errorf("whoami with FOUNT_PROFILE: %s", who)
	}
}

func TestCLIErrors(t *testing.T) {
	e := newCLIEnv(t)
	e.mustFount("deploy", "../../testdata/cli/two-file/source.mjs", "--name", "g")
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no server", map[string]string{"FOUNT_URL": "http://127.0.0.1:1"}, []string{"list", "sources"}, exitError, "cannot reach the fount server at http://127.0.0.1:1"},
		{"bad key", map[string]string{"FOUNT_API_KEY": "wrong"}, []string{"whoami"}, exitError, "the server refused the API key: run `fount login`"},
		{"no key", map[string]string{"FOUNT_API_KEY": ""}, []string{"whoami"}, exitError, "no API key: run `fount login`"},
		{"bad prop type", nil, []string{"deploy", "../../testdata/cli/two-file/source.mjs", "--prop", "times=lots"}, exitUsage, `invalid prop times: expected an integer, got "lots"`},
		{"prop out of range", nil, []string{"deploy", "../../testdata/cli/two-file/source.mjs", "--prop", "times=9"}, exitUsage, "expected an integer of at most 5"},
		{"unknown prop", nil, []string{"deploy", "../../testdata/cli/two-file/source.mjs", "--prop", "colour=red"}, exitUsage, `the component has no prop "colour"`},
		{"unknown source", nil, []string{"events", "nope"}, exitError, `no source or workflow named "nope"`},
		{"missing file", nil, []string{"deploy", "does-not-exist.mjs"}, exitUsage, "cannot bundle does-not-exist.mjs"},
		{"syntax error", nil, []string{"deploy", "../../testdata/cli/broken.mjs"}, exitError, "broken.mjs:2:48: Unexpected"},
		{"missing required props", nil, []string{"deploy", "../../testdata/cli/required.mjs"}, exitUsage,
			"required props:\n  region (string): --prop region=...\n  count (integer): --prop count=..."},
		{"URL without a scheme", map[string]string{"FOUNT_URL": "127.0.0.1:1"}, []string{"list", "sources"}, exitError, "cannot reach the fount server at http://127.0.0.1:1"},
		{"not a URL", map[string]string{"FOUNT_URL": "http://"}, []string{"list", "sources"}, exitUsage, "is not a URL like http://127.0.0.1:8080"},
		{"unknown profile", nil, []string{"whoami", "--profile", "nosuch"}, exitUsage, `no profile named "nosuch" (profiles: none yet`},
		{"refused login", map[string]string{"FOUNT_API_KEY": ""}, []string{"login", "--key", "wrong"}, exitError, "refused that API key"},
		{"no arguments", nil, []string{"deploy"}, exitUsage, "deploy takes one file"},
		{"bad flag", nil, []string{"list", "sources", "--frobnicate"}, exitUsage, "flag provided but not defined"},
		{"bad list kind", nil, []string{"list", "cats"}, exitUsage, `cannot list "cats"`},
		{"bad -n", nil, []string{"events", "g", "-n", "0"}, exitUsage, "-n must be from 1 to 100"},
		{"bad event JSON", nil, []string{"run", "g", "--event", "{nope"}, exitUsage, "--event must be JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.with(tt.env).fount(tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
}

func TestCLIHelpAndCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range clientCommands() {
		var stdout, stderr lockedBuffer
		if code := run(context.Background(), []string{c.name, "--help"}, testEnvironment(nil, &stdout, &stderr)); code != exitOK {
			t.Errorf("%s --help exited %d", c.name, code)
		}
		if h := stderr.String(); !strings.Contains(h, "Example:\n  fount "+c.name) || !strings.Contains(h, "-json") {
			t.Errorf("%s --help lacks an example or the shared flags:\n%s", c.name, h)
		}
	}
	for shell, want := range map[string]string{"bash": "complete -F _fount fount", "zsh": "compdef _fount fount", "fish": "complete -c fount -n __fish_use_subcommand -a deploy",
		"bash ": "--update-packages", "zsh ": "--addr", "fish ": "'__fish_seen_subcommand_from deploy' -l prop"} {
		shell = strings.TrimSpace(shell)
		var stdout, stderr lockedBuffer
		if code := run(context.Background(), []string{"completion", shell}, testEnvironment(nil, &stdout, &stderr)); code != exitOK || !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "webhooks") {
			t.Errorf("completion %s: %d %q", shell, code, stdout.String())
		}
		if shell == "bash" {
			check := exec.Command("bash", "-n")
			check.Stdin = strings.NewReader(stdout.String())
			if out, err := check.CombinedOutput(); err != nil {
				t.Errorf("bash -n of the bash completion: %v\n%s", err, out)
			}
		}
	}
	var stdout, stderr lockedBuffer
	if code := run(context.Background(), []string{"completion", "tcsh"}, testEnvironment(nil, &stdout, &stderr)); code != exitUsage {
		t.Errorf("completion tcsh: %d", code)
	}
}

func TestCLISecretFromStdin(t *testing.T) {
	e := newCLIEnv(t)
	code, out, errOut := e.fountWithStdin("s3cret-token\n", "deploy", "../../testdata/components/http-request.mjs", "--prop", "token=-", "--json")
	if code != exitOK {
		t.Fatalf("deploy: %d %s", code, errOut)
	}
	if strings.Contains(out, "s3cret-token") || !strings.Contains(out, `"token":"[redacted]"`) {
		t.Fatalf("the secret shows, or is not set: %s", out)
	}
	url := strings.TrimSpace(e.mustFount("get", "new-requests", "--endpoint"))
	for token, want := range map[string]int{"wrong": 401, "s3cret-token": 200} {
		req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
		req.Header.Set("x-token", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != want {
			t.Errorf("token %q: %v %v, want %d", token, err, resp, want)
		}
	}
}

// TestCLIFollowReconnects: --follow survives a server restart and resumes
// with Last-Event-ID, missing nothing emitted while it was away.
func TestCLIFollowReconnects(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	// The endpoints on the API's address: the next port, where they
	// would listen apart, may be any other test's by now.
	s := startServer(t, server.Config{Addr: addr, EndpointAddr: server.EndpointsOnAPI, DataDir: dir, BootstrapKey: ownerKey})
	e := &cliEnv{t: t, srv: s, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "NO_COLOR": "1", "FOUNT_URL": s.base, "FOUNT_API_KEY": ownerKey}}
	e.mustFount("deploy", "../../testdata/components/hello-http.mjs")
	e.mustFount("run", "hello-http", "--event", `{"method":"ONE"}`)
	out, stop := e.background("events", "hello-http", "--follow")
	waitFor(t, out, `"ONE"`)
	s.stop()
	startServer(t, server.Config{Addr: addr, EndpointAddr: server.EndpointsOnAPI, DataDir: dir})
	e.mustFount("run", "hello-http", "--event", `{"method":"TWO"}`)
	waitFor(t, out, `"TWO"`)
	if code := stop(); code != exitOK {
		t.Errorf("follow exited %d", code)
	}
	if n := strings.Count(out.String(), `"ONE"`); n != 1 {
		t.Errorf("ONE printed %d times after the reconnect:\n%s", n, out)
	}
}

func TestCLIReviewCases(t *testing.T) {
	e := newCLIEnv(t)
	// Names are unique per account, so two sources share one only across
	// accounts: the user's own and an organization's. Both are found.
	_, org := e.srv.do("POST", "/v1/orgs", map[string]any{"orgname": "team"})
	orgID := data(org)["id"].(string)
	orgSource := strings.TrimSpace(e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "org-only", "--org", orgID, "--quiet"))
	if got := e.mustFount("get", "org-only"); !strings.Contains(got, orgSource) {
		t.Errorf("an org source by name: %s", got)
	}
	e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "same")
	e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "same", "--org", orgID)
	if code, _, errOut := e.fount("events", "same"); code != exitUsage || !strings.Contains(errOut, `"same" names 2 sources`) {
		t.Errorf("an ambiguous name: %d %s", code, errOut)
	}

	// update keeps an inactive source inactive.
	id := strings.TrimSpace(e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "quiet-one", "--quiet"))
	if st, body := e.srv.do("PUT", "/v1/sources/"+id, map[string]any{"component_id": mustComponentID(t, e, id), "active": false}); st != 200 {
		t.Fatalf("deactivate: %d %v", st, body)
	}
	if out := e.mustFount("update", id, "--json"); !strings.Contains(out, `"active":false`) {
		t.Errorf("update reactivated the source: %s", out)
	}

	// --props values are type-checked like --prop ones.
	dir := t.TempDir()
	file := filepath.Join(dir, "props.json")
	os.WriteFile(file, []byte(`{"times": "three"}`), 0o644)
	if code, _, errOut := e.fount("deploy", "../../testdata/cli/two-file/source.mjs", "--props", file); code != exitUsage || !strings.Contains(errOut, "invalid prop times in --props") {
		t.Errorf("--props type check: %d %s", code, errOut)
	}

	// Two secrets from one stdin take one line each; an empty one is refused.
	secretComponent := filepath.Join(dir, "two-secrets.mjs")
	os.WriteFile(secretComponent, []byte(`export default { name: "TwoSecrets", version: "1", props: { a: { type: "string", secret: true }, b: { type: "string", secret: true } },
		run() { this.$emit(this.a + "|" + this.b) } }`), 0o644)
	if code, _, errOut := e.fountWithStdin("first\nsecond\n", "deploy", secretComponent, "--prop", "a=-", "--prop", "b=-", "--name", "secrets"); code != exitOK {
		t.Fatalf("deploy with two secrets: %d %s", code, errOut)
	}
	e.mustFount("run", "secrets")
	wait.Until(t, "the two secrets to arrive", eventsDeadline, func() bool { return strings.Contains(e.mustFount("events", "secrets"), `"first|second"`) })
	if code, _, errOut := e.fountWithStdin("", "deploy", secretComponent, "--prop", "a=-", "--prop", "b=x"); code != exitUsage || !strings.Contains(errOut, "is empty") {
		t.Errorf("an empty secret: %d %s", code, errOut)
	}
}

func mustComponentID(t *testing.T, e *cliEnv, id string) string {
	var src map[string]any
	if err := json.Unmarshal([]byte(e.mustFount("get", id)), &src); err != nil {
		t.Fatal(err)
	}
	return src["component_id"].(string)
}

// TestJSONAndQuietOnEveryCommand: --json prints JSON and --quiet the id
// acted on, on commands that print a record and on those the API answers
// with nothing; an update that changes nothing says so.
func TestJSONAndQuietOnEveryCommand(t *testing.T) {
	e := newCLIEnv(t)
	id := strings.TrimSpace(e.mustFount("deploy", "../../testdata/components/hello-http.mjs", "--name", "q", "--quiet"))
	if got := strings.TrimSpace(e.mustFount("get", "q", "--quiet")); got != id {
		t.Errorf("get --quiet = %q, want %s", got, id)
	}
	for _, args := range [][]string{{"run", "q", "--json"}, {"get", "q", "--json"}} {
		out := e.mustFount(args...)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || !strings.Contains(out, id) {
			t.Errorf("%v printed %q (%v)", args, out, err)
		}
	}
	if got := strings.TrimSpace(e.mustFount("run", "q", "--quiet")); got != id {
		t.Errorf("run --quiet = %q", got)
	}
	if out := e.mustFount("update", "q"); !strings.Contains(out, "nothing changed") {
		t.Errorf("an update with no change: %q", out)
	}
	out := e.mustFount("delete", "q", "--json")
	if !strings.Contains(out, `"ok":true`) || !strings.Contains(out, id) {
		t.Errorf("delete --json = %q", out)
	}
}
