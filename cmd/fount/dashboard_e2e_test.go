package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/fount-dev/fount/internal/server"
)

// browserDeadline bounds one whole browser test: Chromium starts slowly on
// a loaded machine under the race detector.
const browserDeadline = 6 * time.Minute

// pageWait bounds one wait for a condition in a page: generous, for a
// page whose reads wait on a server busy with the other tests (a make
// test beside two busy loops was reported failing here after 64 s, when
// this wait was a minute).
const pageWait = 3 * time.Minute

// chromiumPath finds the browser that `make browser-deps` installs.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("FOUNT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium found: the dashboard's tests need one; `make browser-deps` installs Debian's chromium (or set FOUNT_CHROMIUM)")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile, and none of
// its background traffic: the machine has no network beyond loopback.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // tests run as root in CI
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), browserDeadline)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// screenshots saves full-page screenshots to FOUNT_SCREENSHOTS (the make
// target `screenshots` sets it to docs/screenshots); without it they are
// still taken, so that the path is tested, into a temporary dir.
type screenshots struct {
	t   *testing.T
	dir string
}

func newScreenshots(t *testing.T) screenshots {
	dir := os.Getenv("FOUNT_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return screenshots{t: t, dir: dir}
}

func (s screenshots) take(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		png, err := chromedp.FullScreenshot(100)(ctx, target)
		if err != nil {
			return fmt.Errorf("screenshot %s: %w", name, err)
		}
		if len(png) < 1000 {
			return fmt.Errorf("screenshot %s is only %d bytes", name, len(png))
		}
		return os.WriteFile(filepath.Join(s.dir, name+".png"), png, 0o644)
	})
}

// waitJS polls a JavaScript condition in the page until it holds.
func waitJS(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(pageWait), chromedp.WithPollingInterval(50*time.Millisecond))(ctx, target)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return nil
	})
}

// value runs an action that reads something from the page.
func value[T any](t *testing.T, ctx context.Context, s *testServer, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, s.log)
	}
	return v
}

// steps runs actions in the page, and fails the test naming what failed.
func steps(t *testing.T, ctx context.Context, s *testServer, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for i, a := range actions {
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("%s, step %d: %v\n%s", what, i+1, err, s.log)
		}
	}
}

const dashboardSource = `export default {
  name: "Browser test source",
  key: "browser-test-source",
  version: "0.1.0",
  props: {
    http: "$.interface.http",
    greeting: { type: "string", label: "Greeting", description: "Said in every event." },
    token: { type: "string", secret: true, label: "Token" },
  },
  async run(event) {
    if (event.body && event.body.fail) throw new Error("boom from the browser test");
    this.$emit({ greeting: this.greeting, body: event.body }, { summary: "hello " + (event.body && event.body.who) });
  },
}`

// TestDashboardInABrowser drives the dashboard in headless Chromium against
// a real fount serve: sign in, deploy from the form, see a posted event
// arrive live, open its JSON, see a thrown error, delete the source.
func TestDashboardInABrowser(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	for _, path := range []string{"/", "/ui/app.js"} { // proxies and monitors ask with HEAD
		resp, err := http.Head(s.base + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("HEAD %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	ctx := newBrowser(t)
	shots := newScreenshots(t)
	key := chromedp.ID("api-key")
	signIn := chromedp.CSS(`form button[type=submit]`) // Submit would skip the form's submit event

	steps(t, ctx, s, "sign in",
		chromedp.Navigate(s.base+"/"),
		chromedp.WaitVisible(key),
		shots.take("sign-in"),
		chromedp.SendKeys(key, "wrong-key"),
		chromedp.Click(signIn),
		waitJS(`document.getElementById('signin-error').textContent.includes('refused')`),
		chromedp.SetValue(key, "dashboard-key-0123456789abcdef012345"),
		chromedp.Click(signIn),
		chromedp.WaitVisible(chromedp.CSS(`a[href="#/sources/new"]`)),
	)
	if h := value(t, ctx, s, "heading", chromedp.Text(chromedp.CSS("main h1"))); h != "Sources" {
		t.Fatalf("after sign-in the page is %q, want Sources", h)
	}
	// Neither the key nor the session is anywhere the page's scripts can read.
	stored := value(t, ctx, s, "storage", chromedp.Evaluate[string](`JSON.stringify(localStorage)+JSON.stringify(sessionStorage)+document.cookie`))
	if strings.Contains(stored, "dashboard-key-0123456789abcdef012345") || strings.Contains(stored, "fount_session") {
		t.Fatalf("the key or session is readable by scripts: %q", stored)
	}

	steps(t, ctx, s, "fill the new source form",
		chromedp.Click(chromedp.CSS(`a[href="#/sources/new"]`)),
		chromedp.WaitVisible(chromedp.ID("component-code")),
		chromedp.SetValue(chromedp.ID("component-code"), dashboardSource),
		chromedp.Click(chromedp.ID("read-props")),
		chromedp.WaitVisible(chromedp.ID("prop-greeting")),
		chromedp.SendKeys(chromedp.ID("prop-greeting"), "hi from the form"),
		chromedp.SendKeys(chromedp.ID("prop-token"), "s3cret-token-value"),
		shots.take("new-source"),
	)
	if bad := value(t, ctx, s, "labels", chromedp.Evaluate[string](unlabelledControls)); bad != "" {
		t.Errorf("form controls without a label: %s", bad)
	}
	steps(t, ctx, s, "deploy",
		chromedp.Click(chromedp.ID("deploy")),
		chromedp.WaitVisible(chromedp.CSS(".endpoint-url")),
		waitJS(`(document.querySelector('.stream-status')||{}).textContent?.startsWith('Live')`),
	)
	endpoint := value(t, ctx, s, "endpoint", chromedp.Text(chromedp.CSS(".endpoint-url")))
	props := value(t, ctx, s, "props", chromedp.Text(chromedp.CSS("dl.kv")))
	if strings.Contains(props, "s3cret-token-value") || !strings.Contains(props, "hi from the form") {
		t.Errorf("configured props shown as %q: want the greeting, and the secret masked", props)
	}

	post := func(body string) {
		t.Helper()
		resp, err := http.Post(endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d", endpoint, resp.StatusCode)
		}
	}
	post(`{"who":"browser"}`)
	steps(t, ctx, s, "see the event arrive live and open it",
		waitJS(`[...document.querySelectorAll('li.new .event-row')].some(e => e.textContent.includes('hello browser'))`),
		chromedp.Click(chromedp.CSS("li.new .event-row")),
		chromedp.WaitVisible(chromedp.CSS("li.new .event-json")),
		shots.take("source-events"),
	)
	eventJSON := value(t, ctx, s, "event JSON", chromedp.Text(chromedp.CSS("li.new .event-json")))
	if !strings.Contains(eventJSON, `"who": "browser"`) || !strings.Contains(eventJSON, `"greeting": "hi from the form"`) {
		t.Errorf("the event's JSON reads %q", eventJSON)
	}

	post(`{"fail":true}`)
	steps(t, ctx, s, "see the error",
		chromedp.Click(chromedp.ID("tab-errors")),
		waitJS(`[...document.querySelectorAll('#tabpanel .event-row')].some(e => e.textContent.includes('boom from the browser test'))`),
		shots.take("source-errors"),
		chromedp.Navigate(s.base+"/#/sources"),
		waitJS(`[...document.querySelectorAll('td.error-count')].some(e => e.textContent === '1')`),
		shots.take("sources"),
		chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			return err
		}),
		shots.take("sources-dark"),
		chromedp.Click(chromedp.CSS(`td a[href^="#/sources/dc_"]`)),
		chromedp.WaitVisible(chromedp.ID("delete-source")),
	)
	sourceID := value(t, ctx, s, "source id", chromedp.Evaluate[string](`location.hash.split('/')[2]`))
	steps(t, ctx, s, "delete",
		chromedp.Click(chromedp.ID("delete-source")),
		chromedp.WaitVisible(chromedp.ID("confirm-ok")),
		chromedp.Click(chromedp.ID("confirm-ok")),
		waitJS(`location.hash === '#/sources' && document.querySelector('main h1')?.textContent === 'Sources' && !document.querySelector('td a[href^="#/sources/dc_"]')`),
	)
	if st, body := s.do("GET", "/v1/sources/"+sourceID, nil); st != 404 {
		t.Fatalf("the deleted source %s answers %d %v", sourceID, st, body)
	}
}

// unlabelledControls lists the form controls of the page that have no
// label a screen reader would read.
const unlabelledControls = `[...document.querySelectorAll('input, select, textarea')]
  .filter(el => el.type !== 'hidden' && !el.labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
  .map(el => el.id || el.name || el.outerHTML).join(', ')`

// signInAt opens the dashboard at hash and signs in with the test key.
func signInAt(s *testServer, hash string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(s.base + "/" + hash),
		chromedp.WaitVisible(chromedp.ID("api-key")),
		chromedp.SetValue(chromedp.ID("api-key"), "dashboard-key-0123456789abcdef012345"),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
	}
}

// choose picks the option of a select by its text, as a user would: the
// select's change event fires.
func choose(selectID, text string) chromedp.Action[chromedp.Void] {
	return chooseIn(fmt.Sprintf("document.getElementById(%q)", selectID), "#"+selectID, text)
}

// chooseAt is choose for the select a CSS selector finds.
func chooseAt(css chromedp.CSS, text string) chromedp.Action[chromedp.Void] {
	return chooseIn(fmt.Sprintf("document.querySelector(%q)", string(css)), string(css), text)
}

func chooseIn(find, name, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		js := fmt.Sprintf(`(() => { const s = %s; if (!s) return false;
			const o = [...s.options].find(o => o.textContent === %q); if (!o) return false;
			s.value = o.value; s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`, find, text)
		ok, err := chromedp.Evaluate[bool](js)(ctx, target)
		if err == nil && !ok {
			err = fmt.Errorf("no option %q in %s", text, name)
		}
		return err
	})
}

// TestDashboardFormRunsOptionsAndAdditionalProps: the new-source form
// lists a prop's options from the component's options method, a page at
// a time, and shows the props additionalProps adds when a reloadProps
// prop changes; the source deploys with them.
func TestDashboardFormRunsOptionsAndAdditionalProps(t *testing.T) {
	t.Parallel()
	code, err := os.ReadFile(filepath.Join("..", "..", "testdata", "components", "configurable.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	ctx := newBrowser(t)
	steps(t, ctx, s, "sign in and open the form", append(signInAt(s, "#/sources/new"),
		chromedp.WaitVisible(chromedp.ID("component-code")),
		chromedp.SetValue(chromedp.ID("component-code"), string(code)),
		chromedp.Click(chromedp.ID("read-props")),
		chromedp.WaitVisible(chromedp.ID("prop-region")),
		choose("prop-region", "eu"),
		chromedp.Click(chromedp.CSS(`#prop-city ~ .row .load-options`)),
		chromedp.WaitVisible(chromedp.ID("prop-city-options")),
		waitJS(`document.getElementById('prop-city-options').options.length === 3`), // the first page, and "choose"
		chromedp.Click(chromedp.CSS(`#prop-city ~ .row button:not(.load-options)`)),
		waitJS(`document.getElementById('prop-city-options').options.length === 4`),
		choose("prop-city-options", "MADRID"),
		chromedp.Click(chromedp.ID("prop-detailed")),
		chromedp.WaitVisible(chromedp.ID("prop-depth")),
		// The added prop's options, listed by the server for the region chosen.
		chromedp.Click(chromedp.CSS(`#prop-depth ~ .row .load-options`)),
		chromedp.WaitVisible(chromedp.ID("prop-depth-options")),
		waitJS(`document.getElementById('prop-depth-options').options.length === 4`),
		choose("prop-depth-options", "depth 3"),
	)...)
	if depth := value(t, ctx, s, "depth", chromedp.Value(chromedp.ID("prop-depth"))); depth != "3" {
		t.Fatalf("the depth input reads %q after choosing depth 3", depth)
	}
	if city := value(t, ctx, s, "city", chromedp.Value(chromedp.ID("prop-city"))); city != "madrid" {
		t.Fatalf("the city input reads %q after choosing MADRID", city)
	}
	steps(t, ctx, s, "deploy",
		chromedp.Click(chromedp.ID("deploy")),
		chromedp.WaitVisible(chromedp.CSS(".endpoint-url")),
	)
	props := value(t, ctx, s, "props", chromedp.Text(chromedp.CSS("dl.kv")))
	for _, want := range []string{"madrid", "eu", "depth"} {
		if !strings.Contains(props, want) {
			t.Errorf("the deployed source's props %q lack %q", props, want)
		}
	}
}

// TestDashboardSubscribesASourceToAnother: a source's settings tab
// subscribes it to another source, whose events it then runs on, as
// `fount subscribe` does.
func TestDashboardSubscribesASourceToAnother(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	emitter := s.deploySource(`export default { name: "Upstream", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ n: e.body.n }) } }`, nil)
	listener := s.deploySource(`export default { name: "Downstream", version: "1",
		run(e) { this.$emit({ got: e.n }) } }`, nil)
	ctx := newBrowser(t)
	steps(t, ctx, s, "subscribe from the settings tab", append(signInAt(s, "#/sources/"+listener["id"].(string)+"/settings"),
		chromedp.WaitVisible(chromedp.ID("subscribe-emitter")),
		waitJS(`![...document.getElementById('subscribe-emitter').options].some(o => o.value === '`+listener["id"].(string)+`')`), // not itself
		choose("subscribe-emitter", fmt.Sprintf("%s (%s)", emitter["name"], emitter["id"])),
		chromedp.Click(chromedp.CSS(`form[aria-labelledby="subs-title"] button[type="submit"]`)),
		waitJS(`[...document.querySelectorAll('form[aria-labelledby="subs-title"] li')].some(li => li.textContent.startsWith('`+emitter["id"].(string)+`'))`),
	)...)
	post(t, endpointOf(emitter, "http"), `{"n":7}`)
	if got := s.events(listener["id"].(string), "", 1)[0]["event"].(map[string]any)["got"]; got != float64(7) {
		t.Errorf("the subscribed source ran on %v, want 7", got)
	}
}

// TestDashboardWebhooksAccountsAndWorkflows: from the dashboard, create a
// webhook and subscribe it to a source, see its delivery, connect an
// account without its secret showing again, and pause a workflow.
func TestDashboardWebhooksAccountsAndWorkflows(t *testing.T) {
	t.Parallel()
	received := make(chan struct{}, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		received <- struct{}{}
	}))
	t.Cleanup(hook.Close)
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345", AllowPrivateEgress: true})
	src := s.deploySource(`export default { name: "Orders", version: "1", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }`, nil)
	st, body := s.do("POST", "/v1/workflows", map[string]any{
		"name": "nightly", "trigger": map[string]any{"type": "http"},
		"steps": []any{map[string]any{"name": "s", "code": `export default defineComponent({ async run() { return 1 } })`}},
	})
	if st != 200 {
		t.Fatalf("workflow: %d %v", st, body)
	}
	workflowID := data(body)["id"].(string)
	ctx := newBrowser(t)
	shots := newScreenshots(t)

	steps(t, ctx, s, "create a webhook and subscribe it", append(signInAt(s, "#/webhooks"),
		chromedp.WaitVisible(chromedp.ID("webhook-url")),
		chromedp.SendKeys(chromedp.ID("webhook-url"), hook.URL+"/in"),
		chromedp.SendKeys(chromedp.ID("webhook-name"), "orders hook"),
		chromedp.Click(chromedp.CSS(`form[aria-labelledby="new-webhook"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("subscribe-emitter")),
		waitJS(`document.getElementById('flash').textContent.includes('whsec_')`),
		choose("subscribe-emitter", "orders ("+src["id"].(string)+")"),
		chromedp.Click(chromedp.CSS(`form[aria-labelledby="subs-title"] button[type=submit]`)),
		waitJS(`[...document.querySelectorAll('form[aria-labelledby="subs-title"] li')].some(li => li.textContent.includes('`+src["id"].(string)+`'))`),
	)...)
	resp, err := http.Post(endpointOf(src, "http"), "application/json", strings.NewReader(`{"order":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-received:
	case <-time.After(eventsDeadline):
		t.Fatal("the webhook got no delivery")
	}
	webhookURL := value(t, ctx, s, "webhook page", chromedp.Evaluate[string](`location.href`))
	waitUntil(t, "the delivery to be recorded", func() bool {
		_, body := s.do("GET", "/v1/webhooks/"+strings.Split(webhookURL, "/")[5]+"/deliveries", nil)
		items, _ := body["data"].([]any)
		return len(items) == 1 && items[0].(map[string]any)["status"] == "delivered"
	})
	steps(t, ctx, s, "see the delivery",
		chromedp.Reload(),
		waitJS(`[...document.querySelectorAll('td .badge')].some(b => b.textContent === 'delivered')`),
		shots.take("webhook"),
	)

	steps(t, ctx, s, "connect an account",
		chromedp.Navigate(s.base+"/#/accounts"),
		chromedp.WaitVisible(chromedp.ID("account-app")),
		chromedp.SendKeys(chromedp.ID("account-app"), "github"),
		chromedp.SendKeys(chromedp.ID("account-name"), "work"),
		chromedp.SendKeys(chromedp.ID("account-token"), "tok-never-shown"),
		chromedp.Click(chromedp.CSS(`form[aria-labelledby="new-account"] button[type=submit]`)),
		waitJS(`[...document.querySelectorAll('td')].some(td => td.textContent === 'oauth_access_token')`),
		shots.take("accounts"),
	)
	if page := value(t, ctx, s, "accounts page", chromedp.Evaluate[string](`document.body.innerText + document.body.outerHTML`)); strings.Contains(page, "tok-never-shown") {
		t.Error("the account's token is on the page after it was connected")
	}

	steps(t, ctx, s, "pause a workflow",
		chromedp.Navigate(s.base+"/#/workflows/"+workflowID),
		chromedp.WaitVisible(chromedp.CSS(`main h1`)),
		waitJS(`document.getElementById('toggle-active')?.textContent === 'Pause'`),
		chromedp.Click(chromedp.ID("toggle-active")),
		waitJS(`document.querySelector('main .badge')?.textContent === 'paused'`),
		shots.take("workflow"),
	)
	if _, body := s.do("GET", "/v1/workflows/"+workflowID, nil); data(body)["active"] != false {
		t.Fatalf("the workflow paused in the dashboard reads %v", data(body))
	}

	steps(t, ctx, s, "usage",
		chromedp.Navigate(s.base+"/#/usage"),
		waitJS(`document.querySelector('main h1')?.textContent === 'Usage and quotas'`),
		shots.take("usage"),
	)
	// The pause's message stayed on the workflow's page, not on the next.
	if flash := value(t, ctx, s, "flash on the usage page", chromedp.Evaluate[string](`document.getElementById('flash').textContent`)); flash != "" {
		t.Errorf("the usage page shows an earlier page's message: %q", flash)
	}
	// The owner ran the source once: the page says so, from /users/me.
	if usage := value(t, ctx, s, "usage page", chromedp.Text(chromedp.CSS("dl.kv"))); !strings.Contains(usage, "Invocations this billing period") || !strings.Contains(usage, "owner") {
		t.Errorf("the usage page reads %q", usage)
	}
}

// TestDashboardActsForAnOrganization: a member chooses an organization in
// the dashboard; its lists then show the organization's sources and
// webhooks, and a source deployed from the form goes to the organization.
func TestDashboardActsForAnOrganization(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	st, body := s.do("POST", "/v1/orgs", map[string]any{"orgname": "team", "name": "Team"})
	if st != 200 {
		t.Fatalf("create org: %d %v", st, body)
	}
	org := data(body)["id"].(string)
	mine := s.deploySource(`export default { name: "Mine", version: "1", run() {} }`, nil)
	st, body = s.do("POST", "/v1/sources?org_id="+org, map[string]any{"component_code": `export default { name: "Theirs", version: "1", run() {} }`})
	if st != 200 {
		t.Fatalf("deploy into the org: %d %v", st, body)
	}
	theirs := data(body)
	for url, owner := range map[string]string{"https://example.com/mine": "", "https://example.com/team": "?org_id=" + org} {
		if st, body := s.do("POST", "/v1/webhooks"+owner, map[string]any{"url": url}); st != 200 {
			t.Fatalf("create a webhook: %d %v", st, body)
		}
	}
	ctx := newBrowser(t)
	listed := `[...document.querySelectorAll('td a[href^="#/sources/dc_"]')].map(a => a.textContent).join(",")`
	steps(t, ctx, s, "the user's own sources", append(signInAt(s, "#/sources"),
		waitJS(`document.getElementById('owner')?.options.length === 2`),
		waitJS(listed+` === "mine"`),
		choose("owner", "Team"),
		waitJS(listed+` === "theirs"`),
		chromedp.Click(chromedp.CSS(`a[href="#/sources/new"]`)),
		chromedp.WaitVisible(chromedp.ID("component-code")),
		chromedp.SetValue(chromedp.ID("component-code"), `export default { name: "Team source", version: "1", run() {} }`),
		chromedp.Click(chromedp.ID("read-props")),
		chromedp.WaitVisible(chromedp.ID("deploy")),
		chromedp.Click(chromedp.ID("deploy")),
		waitJS(`document.querySelector('main h1')?.textContent === 'team-source'`),
		// The webhooks page lists the organization's, not the user's.
		chromedp.Navigate(s.base+"/#/webhooks"),
		waitJS(`[...document.querySelectorAll('main td')].map(td => td.textContent).join(" ").includes("example.com/team")`),
	)...)
	if page := value(t, ctx, s, "webhooks page", chromedp.Text(chromedp.CSS("main"))); strings.Contains(page, "example.com/mine") {
		t.Errorf("acting for the organization, the webhooks page lists the user's own: %q", page)
	}
	_, body = s.do("GET", "/v1/orgs/"+org+"/sources?limit=100", nil)
	var names []string
	for _, it := range body["data"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "team-source") || slices.Contains(names, mine["name"].(string)) || !slices.Contains(names, theirs["name"].(string)) {
		t.Fatalf("the organization's sources: %v", names)
	}
}

// TestDashboardExecutionInspector: an execution's page shows each step's
// status, value, exports, logs and error, and what a suspended execution
// waits for; it goes on after its resume URL is called, replays as a new
// execution, and the workflow page sets the execution controls.
func TestDashboardExecutionInspector(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345", AllowPrivateEgress: true})
	wf := s.deployWorkflow(map[string]any{"name": "approvals", "trigger": map[string]any{"type": "manual"},
		"steps": []any{
			step("parse", `export default defineComponent({ run({ steps, $ }) {
				console.log("parsing order", steps.trigger.event.order);
				$.export("order", steps.trigger.event.order);
				return { total: 42 };
			} })`, nil),
			step("wait", `export default defineComponent({ run({ $ }) { return $.flow.suspend() } })`, nil),
			step("after", `export default defineComponent({ run({ steps }) { return { approved: steps.wait.$resume_data.ok } } })`, nil),
		}})
	id := wf["id"].(string)
	execID := s.runWorkflow(id, map[string]any{"order": "A-17"})
	resumeURL := stepValue(s.waitStatus(execID, "paused"), 1)["resume_url"].(string)
	ctx := newBrowser(t)
	shots := newScreenshots(t)
	steps(t, ctx, s, "open the suspended execution", append(signInAt(s, "#/workflows/"+id+"/executions"),
		chromedp.WaitVisible(chromedp.CSS(`a.execution-link`)),
		chromedp.Click(chromedp.CSS(`a.execution-link`)),
		waitJS(`document.getElementById('pause-state')?.textContent.startsWith('suspended after wait')`),
	)...)
	page := value(t, ctx, s, "the execution page", chromedp.Evaluate[string](`document.querySelector('main').innerText`))
	for _, want := range []string{execID, "1. parse", `"total": 42`, `"order": "A-17"`, "parsing order A-17", "2. wait", "resume_url"} {
		if !strings.Contains(page, want) {
			t.Errorf("the execution page lacks %q:\n%s", want, page)
		}
	}
	if st := callFlowURL(t, "POST", resumeURL, "", `{"ok":true}`); st != 202 {
		t.Fatalf("resume: %d", st)
	}
	s.waitStatus(execID, "success")
	steps(t, ctx, s, "see it go on, and replay it",
		chromedp.Click(chromedp.CSS(`main button:not(#replay)`)), // Refresh
		waitJS(`[...document.querySelectorAll('main section h3')].some(h => h.textContent === '3. after')`),
		waitJS(`document.querySelector('main').innerText.includes('"approved": true')`),
		shots.take("execution"),
		chromedp.Click(chromedp.ID("replay")),
		waitJS(`!location.hash.includes(`+strconv.Quote(execID)+`) && location.hash.startsWith('#/executions/')`),
	)
	replayed := value(t, ctx, s, "the replay's page", chromedp.Evaluate[string](`decodeURIComponent(location.hash.split('/')[2])`))
	if x := s.waitStatus(replayed, "paused"); jsonOf(x["event"]) != `{"order":"A-17"}` {
		t.Errorf("the replay's event: %s", jsonOf(x["event"]))
	}
	steps(t, ctx, s, "set the execution controls",
		chromedp.Navigate(s.base+"/#/workflows/"+id),
		chromedp.WaitVisible(chromedp.ID("ctl-concurrency")),
		chromedp.SendKeys(chromedp.ID("ctl-concurrency"), "3"),
		chromedp.SendKeys(chromedp.ID("ctl-retry"), "2"),
		chromedp.Click(chromedp.ID("save-controls")),
		waitJS(`document.getElementById('flash').textContent === 'Execution controls saved.'`),
	)
	if got := s.getWorkflow(id); got["concurrency"] != 3.0 || jsonOf(got["retry"]) != `{"attempts":2}` {
		t.Errorf("after saving the controls: concurrency %v, retry %v", got["concurrency"], got["retry"])
	}
	if missing := value(t, ctx, s, "labels", chromedp.Evaluate[string](unlabelledControls)); missing != "" {
		t.Errorf("controls without a label: %s", missing)
	}
}
