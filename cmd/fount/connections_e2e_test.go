package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
)

// tightLimits are limits short enough for a test to see them act.
var tightLimits = server.HTTPLimits{ReadHeader: time.Second, Request: 2 * time.Second, Body: time.Second, Idle: time.Second, MaxConns: 8}

// dialRaw opens a TCP connection to a server's base URL.
func dialRaw(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer waits for the server to close c, reading (and returning)
// whatever it wrote first.
func closedByServer(t *testing.T, c net.Conn, what string) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(startupDeadline))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%s: the server did not close the connection: %v", what, err)
	}
	return string(b)
}

// TestIdleConnectionsAreCutAndCapped: connections that send nothing, or
// sit idle between requests, are closed after their timeout; connections
// past the cap wait, with a log line saying so, and are served once the
// idle ones are cut.
func TestIdleConnectionsAreCutAndCapped(t *testing.T) {
	t.Parallel()
	lim := tightLimits
	s := startServer(t, server.Config{BootstrapKey: ownerKey, HTTPLimits: &lim})

	keptAlive := dialRaw(t, s.base)
	if _, err := io.WriteString(keptAlive, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(keptAlive), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz on a raw connection: %v %v", resp, err)
	}
	silent := make([]net.Conn, lim.MaxConns)
	for i := range silent {
		silent[i] = dialRaw(t, s.base)
	}
	healthz := make(chan error, 1)
	go func() {
		client := &http.Client{Timeout: startupDeadline}
		resp, err := client.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				err = io.ErrUnexpectedEOF
			}
		}
		healthz <- err
	}()
	waitFor(t, s.log, "connection limit reached")
	closedByServer(t, keptAlive, "a keep-alive connection left idle")
	for _, c := range silent {
		closedByServer(t, c, "a connection that never sent a request")
	}
	if err := <-healthz; err != nil {
		t.Fatalf("healthz past the connection cap: %v", err)
	}
}

// TestSlowBodiesAreCut: a request body that stops arriving is answered 408
// on an endpoint, and cut on the API, instead of holding the connection.
func TestSlowBodiesAreCut(t *testing.T) {
	t.Parallel()
	lim := tightLimits
	s := startServer(t, server.Config{BootstrapKey: ownerKey, HTTPLimits: &lim})
	src := s.deploySource(`export default { name: "Hook", version: "1", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }`, nil)
	endpoint := endpointOf(src, "http")
	for _, tt := range []struct {
		name       string
		base, path string
		want       *regexp.Regexp
	}{
		{"endpoint", s.endpoints, strings.TrimPrefix(endpoint, s.endpoints), regexp.MustCompile(`^HTTP/1.1 408 .*did not arrive in time`)},
		{"api", s.base, "/v1/sources", regexp.MustCompile(`^(HTTP/1.1 4\d\d |$)`)},
	} {
		c := dialRaw(t, tt.base)
		_, err := io.WriteString(c, "POST "+tt.path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+ownerKey+"\r\n"+
			"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\":")
		if err != nil {
			t.Fatal(err)
		}
		got := closedByServer(t, c, tt.name+" request with a stalled body")
		if !tt.want.MatchString(strings.ReplaceAll(got, "\r\n", " ")) {
			t.Errorf("%s: a stalled body was answered %q", tt.name, got)
		}
	}
}

// TestEndpointResponsesCannotActOnTheAPIOrigin: whatever an endpoint
// answers, a browser renders it sandboxed, unsniffed, and without the
// cookies fount reserves for itself. On the API's host name (a port of
// its own, by default) it sets no cookie at all, and on a host name of
// the endpoints' own only cookies scoped to its path; it never clears a
// site's data.
func TestEndpointResponsesCannotActOnTheAPIOrigin(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name        string
		endpointURL string
		own         string // what a tenant's own cookie becomes; "" for dropped
	}{
		{"endpoints on the API's host name", "", ""},
		{"endpoints on a host name of their own", "http://hooks.localhost", "theirs=1; Path=/h/"},
	} {
		s := startServer(t, server.Config{BootstrapKey: ownerKey, EndpointURL: mode.endpointURL})
		page := s.deploySource(`export default { name: "Page", version: "1",
			props: { http: { type: "$.interface.http", customResponse: true } },
			run(e) { this.http.respond({ status: 200, headers: { "content-type": "text/html", "set-cookie": e.query.cookie, "clear-site-data": e.query.clear || "" },
				body: "<script>fetch('/v1/sources')</script>" }) } }`, nil)
		plain := s.deploySource(`export default { name: "Plain", version: "1", props: { http: "$.interface.http" }, run() {} }`, nil)
		served := func(src map[string]any) string { // the URL names the endpoints' host; they listen here
			u := endpointOf(src, "http")
			return s.endpoints + u[strings.Index(u, "/h/"):]
		}
		for _, tt := range []struct {
			name, url  string
			wantCookie string
		}{
			{"reserved cookie", served(page) + "?cookie=fount_session%3Dstolen%3B%20Path%3D%2F", ""},
			{"reserved cookie, __Host- prefixed", served(page) + "?cookie=__Host-Fount_session%3Dx", ""},
			{"nameless cookie holding a reserved one", served(page) + "?cookie=%3Dfount_session%3Dfixed%3B%20Path%3D%2F", ""},
			{"tenant's own cookie", served(page) + "?cookie=theirs%3D1%3B%20Path%3D%2F%3B%20Domain%3Dlocalhost", mode.own},
			{"Clear-Site-Data", served(page) + "?clear=%22cookies%22", ""},
			{"default answer", served(plain), ""},
			{"unknown endpoint", s.endpoints + "/h/nope", ""},
		} {
			resp, err := http.Get(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if csp := resp.Header.Values("Content-Security-Policy"); len(csp) == 0 || csp[len(csp)-1] != "sandbox" {
				t.Errorf("%s, %s: Content-Security-Policy %q", mode.name, tt.name, csp)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s, %s: X-Content-Type-Options %q", mode.name, tt.name, resp.Header.Get("X-Content-Type-Options"))
			}
			got := resp.Header.Get("Set-Cookie")
			if (tt.wantCookie == "") != (got == "") || !strings.HasPrefix(got, tt.wantCookie) || strings.Contains(got, "Domain") {
				t.Errorf("%s, %s: Set-Cookie %q, want %q...", mode.name, tt.name, got, tt.wantCookie)
			}
			if c := resp.Header.Get("Clear-Site-Data"); c != "" {
				t.Errorf("%s, %s: Clear-Site-Data %q", mode.name, tt.name, c)
			}
		}
	}
}

// TestEndpointsNeverSeeTheSessionCookie: a browser signed in to the
// dashboard sends its session cookie to endpoints on the same origin; the
// event the endpoint's owner reads has every cookie but fount's.
func TestEndpointsNeverSeeTheSessionCookie(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	src := s.deploySource(`export default { name: "Thief", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ cookie: e.headers.cookie === undefined ? null : e.headers.cookie }) } }`, nil)
	for _, tt := range []struct{ name, sent, want string }{
		{"session only", "fount_session=secret-token", "null"},
		{"mixed", "theirs=1; fount_session=secret-token; Other=2", `"theirs=1; Other=2"`},
		{"prefixed, any case", "__Host-FOUNT_session=secret-token; a=b", `"a=b"`},
	} {
		req, _ := http.NewRequest("POST", endpointOf(src, "http"), strings.NewReader(`{}`))
		req.Header.Set("Cookie", tt.sent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		events := s.events(src["id"].(string), "", 1)
		got, _ := json.Marshal(events[0]["event"].(map[string]any)["cookie"])
		if string(got) != tt.want || strings.Contains(string(got), "secret-token") {
			t.Errorf("%s: the endpoint read cookie %s, want %s", tt.name, got, tt.want)
		}
		if st, body := s.do("DELETE", "/v1/sources/"+src["id"].(string)+"/events", nil); st != 202 {
			t.Fatalf("delete events: %d %v", st, body)
		}
		waitUntil(t, "the events to be deleted", func() bool {
			_, body := s.do("GET", "/v1/sources/"+src["id"].(string)+"/event_summaries", nil)
			return len(body["data"].([]any)) == 0
		})
	}
}

// TestEndpointsOnTheirOwnOrigin: with --endpoint-addr, endpoint URLs name
// the endpoints' origin, which serves no API, and the API's origin serves
// no endpoint.
func TestEndpointsOnTheirOwnOrigin(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, EndpointAddr: "127.0.0.1:0"})
	m := regexp.MustCompile(`serves endpoints on (http://\S+) as (http://\S+)`).FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("no endpoint origin announced: %s", s.stdout)
	}
	endpoints := m[2]
	if endpoints == s.base {
		t.Fatalf("endpoints share the API's origin %s", s.base)
	}
	src := s.deploySource(`export default { name: "Hook", version: "1", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }`, nil)
	url := endpointOf(src, "http")
	if !strings.HasPrefix(url, endpoints+"/h/") {
		t.Fatalf("endpoint_url %s is not on the endpoints' origin %s", url, endpoints)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"n":1}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("post to the endpoint: %v %v", resp, err)
	}
	resp.Body.Close()
	s.events(src["id"].(string), "", 1)
	for _, tt := range []struct{ name, url string }{
		{"endpoint on the API's origin", s.base + strings.TrimPrefix(url, endpoints)},
		{"API on the endpoints' origin", endpoints + "/v1/sources"},
	} {
		req, _ := http.NewRequest("GET", tt.url, nil)
		req.Header.Set("Authorization", "Bearer "+ownerKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", tt.name, resp.StatusCode)
		}
	}
}

// TestEventStreamToADeadClientEnds: a client that opens an event stream
// and stops reading holds it only until a write misses its deadline (two
// heartbeats); then the server closes the stream.
func TestEventStreamToADeadClientEnds(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, StreamHeartbeat: 100 * time.Millisecond})
	src := s.deploySource(`export default { name: "Big", version: "1", run() { this.$emit("x".repeat(1 << 20)) } }`, nil)
	id := src["id"].(string)
	c := dialRaw(t, s.base)
	if _, err := io.WriteString(c, "GET /v1/sources/"+id+"/sse HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+ownerKey+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(c, head); err != nil || string(head) != "HTTP/1.1 200" {
		t.Fatalf("stream: %q %v", head, err)
	}
	// Far more than the socket buffers hold: the server's writes block.
	for range 40 {
		s.run(id, nil)
	}
	waitFor(t, s.log, "event stream closed")
	closedByServer(t, c, "an event stream whose client stopped reading")
}

// TestTricklingBodiesAreCut: a body that trickles in (a byte every 2 s)
// is cut within seconds on the API and on an endpoint, long before the
// whole body's deadline, with the server's default limits.
func TestTricklingBodiesAreCut(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	src := s.deploySource(`export default { name: "Hook", version: "1", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }`, nil)
	endpoint := endpointOf(src, "http")
	for _, tt := range []struct{ name, base, path string }{
		{"api", s.base, "/v1/sources"},
		{"endpoint", s.endpoints, strings.TrimPrefix(endpoint, s.endpoints)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := dialRaw(t, tt.base)
			if _, err := io.WriteString(c, "POST "+tt.path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+ownerKey+"\r\n"+
				"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			stop := make(chan struct{})
			defer close(stop)
			go func() { // the slow client: its pace is the test's input
				tick := time.NewTicker(2 * time.Second)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			closedByServer(t, c, tt.name+" request with a trickling body")
			if took := time.Since(start); took > 25*time.Second {
				t.Errorf("the trickling body held its connection %v; the whole body's deadline is 30 s and more", took)
			}
		})
	}
}

// TestIdleConnectionsMakeRoom: at the connection cap, a new client is
// served at once: a connection idle between keep-alive requests (the
// longest idle, as the server saw them) is closed for it, rather than the
// client waiting for the idle timeout.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	t.Parallel()
	lim := server.HTTPLimits{ReadHeader: 10 * time.Second, Request: time.Minute, Body: 30 * time.Second, Idle: 5 * time.Minute, MaxConns: 8}
	s := startServer(t, server.Config{BootstrapKey: ownerKey, HTTPLimits: &lim})
	var idle []net.Conn
	for range lim.MaxConns {
		c := dialRaw(t, s.base)
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz on a kept-alive connection: %v %v", resp, err)
		}
		idle = append(idle, c)
	}
	for i := range 3 {
		client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Get(s.base + "/healthz")
		if err != nil {
			t.Fatalf("new client %d past the cap, with %d connections idle: %v", i+1, len(idle), err)
		}
		resp.Body.Close()
	}
	// The new clients were served within their 20 s, far inside the idle
	// timeout, so idle connections were closed for them. Which ones is the
	// server's view of idleness: a connection turns idle when the server
	// has written its response, which on a busy machine may come after
	// the client has read it and opened the next, so the test asks only
	// that one of them was closed.
	deadline := time.Now().Add(startupDeadline)
	buf := make([]byte, 1)
	for {
		for _, c := range idle {
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			if _, err := c.Read(buf); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				return // closed by the server
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no idle connection was closed for the clients past the cap")
		}
	}
}
