package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/fount-dev/fount/internal/server"
)

// cookieBomb answers 19 redirects, each setting a 4 KB cookie for the
// whole host for a year, then a page that asks the browser to clear the
// site's cookies: enough, once, to make every later request of the
// browser to the host too large to be served (431), and to sign it out.
const cookieBomb = `export default { name: "Bomb", version: "1", props: { http: { type: "$.interface.http", customResponse: true } },
  run(e) {
    const n = Number(e.query.n || 0)
    if (n < 19) {
      this.http.respond({ status: 302, headers: { location: "?n=" + (n + 1),
        "set-cookie": "big" + n + "=" + "x".repeat(4000) + "; Path=/; Max-Age=31536000" }, body: "" })
    } else {
      this.http.respond({ status: 200, headers: { "content-type": "text/html", "clear-site-data": "\"cookies\"" }, body: "<p>done</p>" })
    }
  } }`

// TestEndpointsCannotBreakTheDashboard: in a real browser signed in to
// the dashboard, a visit to a tenant's endpoint that sets cookies and
// clears the site's cannot make the dashboard fail (431) nor sign it
// out: endpoints are on a port of their own, and on the dashboard's host
// name they set no cookie at all.
func TestEndpointsCannotBreakTheDashboard(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345"})
	bomb := endpointOf(s.deploySource(cookieBomb, nil), "http")
	if strings.HasPrefix(bomb, s.base+"/") {
		t.Fatalf("by default endpoints share the API's origin: %s", bomb)
	}
	ctx := newBrowser(t)
	steps(t, ctx, s, "sign in", append(signInAt(s, "#/sources"),
		waitJS(`document.querySelector('main h1')?.textContent === 'Sources'`))...)
	steps(t, ctx, s, "visit the endpoint", chromedp.Navigate(bomb), waitJS(`document.body?.textContent.includes('done')`))
	steps(t, ctx, s, "back to the dashboard", chromedp.Navigate(s.base+"/#/sources"),
		waitJS(`document.querySelector('main h1')?.textContent === 'Sources'`))
	status := value(t, ctx, s, "an API call with the session", chromedp.Evaluate[int](
		`fetch('/v1/users/me', { credentials: 'same-origin' }).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if status != 200 {
		t.Errorf("the dashboard's API call answered %d after the endpoint's visit", status)
	}
	cookies := browserCookies(t, ctx, s, s.base, bomb)
	if _, ok := cookies["fount_session"]; !ok || len(cookies) != 1 {
		t.Errorf("the browser holds cookies %v; want the dashboard's session alone", keys(cookies))
	}
}

// TestTenantCookiesStayWithTheirEndpoint: with endpoints on a host name
// of their own, a cookie one tenant's endpoint sets comes back to that
// endpoint, and never reaches another tenant's component.
func TestTenantCookiesStayWithTheirEndpoint(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, EndpointAddr: fmt.Sprint("127.0.0.1:", port),
		EndpointURL: fmt.Sprint("http://localhost:", port)}) // another host name than the API's 127.0.0.1
	const reader = `export default { name: "Reader", version: "1", props: { http: { type: "$.interface.http", customResponse: true } },
	  run(e) { this.$emit({ cookie: e.headers.cookie || "" });
	    this.http.respond({ status: 200, headers: { "content-type": "text/html", "set-cookie": "mine=%s; Path=/" }, body: "<p>read</p>" }) } }`
	alice := s.deploySource(fmt.Sprintf(reader, "alice"), nil)
	bob := s.newUser("bob", "")
	bobs := bob.deploySource(fmt.Sprintf(reader, "bob"), nil)
	ctx := newBrowser(t)
	for _, url := range []string{endpointOf(alice, "http"), endpointOf(bobs, "http"), endpointOf(alice, "http"), endpointOf(bobs, "http")} {
		steps(t, ctx, s, "visit "+url, chromedp.Navigate(url), waitJS(`document.body?.textContent.includes('read')`))
	}
	for _, c := range []struct {
		name string
		who  *testServer
		src  map[string]any
		want string
	}{{"alice", s, alice, "mine=alice"}, {"bob", bob, bobs, "mine=bob"}} {
		evs := c.who.events(c.src["id"].(string), "", 2)
		first, second := evs[1]["event"].(map[string]any)["cookie"], evs[0]["event"].(map[string]any)["cookie"]
		if first != "" || second != c.want {
			t.Errorf("%s's endpoint read cookies %q, then %q; want none, then only its own %q", c.name, first, second, c.want)
		}
	}
}

// browserCookies are the names and values of the cookies the browser
// would send to urls.
func browserCookies(t *testing.T, ctx context.Context, s *testServer, urls ...string) map[string]string {
	t.Helper()
	res := value(t, ctx, s, "the browser's cookies", chromedp.Action[network.GetCookiesResult](func(ctx context.Context, target *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, target, network.GetCookies, network.GetCookiesParams{URLs: urls})
	}))
	out := map[string]string{}
	for _, c := range res.Cookies {
		out[c.Name] = c.Value
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// freePort is a loopback port free now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
