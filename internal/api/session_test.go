package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// signIn opens a dashboard session with key and returns its cookie and
// CSRF token.
func (h *harness) signIn(key string) (*http.Cookie, string) {
	h.t.Helper()
	body, _ := json.Marshal(map[string]string{"api_key": key})
	req, _ := http.NewRequest("POST", h.srv.URL+"/ui/session", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Data struct {
			CSRFToken string `json:"csrf_token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusCreated || got.Data.CSRFToken == "" {
		h.t.Fatalf("sign-in: %d %v", resp.StatusCode, err)
	}
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			return c, got.Data.CSRFToken
		}
	}
	h.t.Fatalf("sign-in set no %s cookie: %v", sessionCookie, resp.Header)
	return nil, ""
}

// cookieCall is a request authenticated by a session cookie, with the
// given headers.
func (h *harness) cookieCall(method, path string, c *http.Cookie, headers map[string]string, body any) response {
	h.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, h.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c != nil {
		req.AddCookie(c)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return h.send(req)
}

func TestSessionCookieIsHttpOnlyStrictAndWorks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.must(h.call("POST", "/ui/session", "", map[string]any{"api_key": "not-a-key"}), http.StatusUnauthorized)
	if r := h.call("POST", "/ui/session", "", map[string]any{"api_key": "not-a-key"}); !strings.Contains(r.raw, "refused") {
		t.Errorf("a wrong key is answered %s; want it said to be refused", r.raw)
	}
	c, _ := h.signIn(h.ownerKey)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge <= 0 {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/ and a lifetime", c)
	}
	if strings.Contains(c.Value, h.ownerKey) {
		t.Fatal("the cookie holds the API key")
	}
	me := h.must(h.cookieCall("GET", "/v1/users/me", c, nil, nil), 200)
	if me.data()["id"] != h.owner.ID {
		t.Fatalf("GET /v1/users/me with the cookie: %s", me.raw)
	}
	sess := h.must(h.cookieCall("GET", "/ui/session", c, nil, nil), 200)
	if sess.data()["user_id"] != h.owner.ID || sess.data()["csrf_token"] == "" {
		t.Fatalf("GET /ui/session: %s", sess.raw)
	}
}

func TestCookieRequestsNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c, csrf := h.signIn(h.ownerKey)
	body := map[string]any{"url": "https://example.com/hook"}
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusForbidden},
		{"wrong token", map[string]string{csrfHeader: "nope"}, http.StatusForbidden},
		{"token of another session", map[string]string{csrfHeader: func() string { _, other := h.signIn(h.ownerKey); return other }()}, http.StatusForbidden},
		{"token from another origin", map[string]string{csrfHeader: csrf, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"token, cross-site fetch", map[string]string{csrfHeader: csrf, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"token, same-site fetch", map[string]string{csrfHeader: csrf, "Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"token, null origin", map[string]string{csrfHeader: csrf, "Origin": "null"}, http.StatusForbidden},
		{"token, same host over another scheme", map[string]string{csrfHeader: csrf, "Origin": strings.Replace(h.srv.URL, "http://", "https://", 1)}, http.StatusForbidden},
		{"token, same origin", map[string]string{csrfHeader: csrf, "Origin": h.srv.URL, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	}
	for _, tt := range tests {
		r := h.cookieCall("POST", "/v1/webhooks", c, tt.headers, body)
		if r.status != tt.want {
			t.Errorf("%s: status %d, want %d: %s", tt.name, r.status, tt.want, r.raw)
		}
		if tt.want == http.StatusForbidden && r.errCode() != "csrf_token_invalid" {
			t.Errorf("%s: code %q, want csrf_token_invalid", tt.name, r.errCode())
		}
	}
	// A bearer key needs no token: no browser sends it on its own.
	h.must(h.call("POST", "/v1/webhooks", h.ownerKey, body), http.StatusOK)
}

func TestSignInRefusesFormsAndOtherSites(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	form, _ := http.NewRequest("POST", h.srv.URL+"/ui/session", strings.NewReader("api_key="+h.ownerKey))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r := h.send(form); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("a form sign-in: %d %s", r.status, r.raw)
	}
	cross, _ := http.NewRequest("POST", h.srv.URL+"/ui/session", strings.NewReader(`{"api_key":"`+h.ownerKey+`"}`))
	cross.Header.Set("Content-Type", "application/json")
	cross.Header.Set("Origin", "https://evil.example")
	if r := h.send(cross); r.status != http.StatusForbidden || r.errCode() != "cross_site_request" {
		t.Errorf("a cross-site sign-in: %d %s", r.status, r.raw)
	}
	if r := h.call("POST", "/ui/session", "", map[string]any{}); r.status != 400 || r.errParam() != "api_key" {
		t.Errorf("a sign-in without a key: %d %s", r.status, r.raw)
	}
}

func TestSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c, csrf := h.signIn(h.ownerKey)
	h.must(h.cookieCall("DELETE", "/ui/session", c, nil, nil), http.StatusForbidden) // without its token
	h.must(h.cookieCall("DELETE", "/ui/session", c, map[string]string{csrfHeader: csrf}, nil), http.StatusNoContent)
	r := h.cookieCall("GET", "/v1/users/me", c, nil, nil)
	if r.status != http.StatusUnauthorized || r.errCode() != "session_expired" {
		t.Fatalf("after sign-out: %d %s", r.status, r.raw)
	}
}

func TestSessionsExpire(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	ss := newSessions(func() time.Time { return now })
	token, _, _ := ss.open("hash", "u_1")
	if _, ok := ss.get(token); !ok {
		t.Fatal("a new session is not found")
	}
	now = now.Add(SessionTTL)
	if _, ok := ss.get(token); ok {
		t.Fatal("a session outlived its TTL")
	}
	if _, ok := ss.get("no such token"); ok {
		t.Fatal("an unknown token has a session")
	}
}

// cookieStream opens a source's event stream as a browser's EventSource
// does: a GET with the session cookie and nothing else.
func (h *harness) cookieStream(ctx context.Context, id string, c *http.Cookie) *http.Response {
	h.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+"/v1/sources/"+id+"/sse", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		h.t.Fatalf("SSE with the cookie: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// TestEventStreamWithCookie reads a source's SSE stream as a browser's
// EventSource would: a GET with the session cookie and nothing else.
func TestEventStreamWithCookie(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	src := h.must(h.deploy(h.ownerKey, "hello-http.mjs", nil, nil), 200).data()
	id := src["id"].(string)
	c, _ := h.signIn(h.ownerKey)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp := h.cookieStream(ctx, id, c)
	defer resp.Body.Close()
	h.must(h.call("POST", "/v1/sources/"+id+"/run", h.ownerKey, map[string]any{"event": map[string]any{"body": map[string]any{"n": 1}}}), http.StatusAccepted)
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if lines.Text() == "event: event" {
			return
		}
	}
	t.Fatalf("the stream ended without an event named event: %v", lines.Err())
}

func TestSessionsAreCappedPerUserAndInAll(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	ss := newSessions(func() time.Time { return now })
	other, _, _ := ss.open("hash2", "u_2")
	var first string
	for i := range maxSessionsPerUser + 1 {
		now = now.Add(time.Second)
		token, _, ok := ss.open("hash1", "u_1")
		if !ok {
			t.Fatalf("sign-in %d refused", i)
		}
		if i == 0 {
			first = token
		}
	}
	if _, ok := ss.get(first); ok {
		t.Error("a user's oldest session outlived the per-user cap")
	}
	if _, ok := ss.get(other); !ok {
		t.Error("one user's sign-ins ended another user's session")
	}
	for i := len(ss.byHash); i < maxSessions; i++ {
		ss.byHash[fmt.Sprint("filler", i)] = session{userID: fmt.Sprint("u_", i), expires: now.Add(time.Hour)}
	}
	if _, _, ok := ss.open("hash3", "u_3"); ok {
		t.Error("a sign-in past the server's cap was let in")
	}
	if _, ok := ss.get(other); !ok {
		t.Error("a full server ended a session to make room")
	}
	now = now.Add(2 * time.Hour) // the fillers expire, and are pruned at the next sign-in
	if _, _, ok := ss.open("hash3", "u_3"); !ok {
		t.Error("sign-in still refused after sessions expired")
	}
}

func TestSecureCookieFollowsTheSiteURL(t *testing.T) {
	t.Parallel()
	plain := httptest.NewRequest("POST", "http://fount.test/ui/session", nil)
	for _, tt := range []struct {
		site string
		want bool
	}{{"https://fount.example", true}, {"http://127.0.0.1:8080", false}, {"", false}} {
		if got := (&Server{siteURL: tt.site}).secureCookies(plain); got != tt.want {
			t.Errorf("site %q: Secure %v, want %v", tt.site, got, tt.want)
		}
	}
	if !(&Server{}).secureCookies(httptest.NewRequest("POST", "https://fount.test/ui/session", nil)) {
		t.Error("a sign-in over TLS got a cookie without Secure")
	}
}

func TestSessionAnswersAreNotCached(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c, _ := h.signIn(h.ownerKey)
	req, _ := http.NewRequest("GET", h.srv.URL+"/ui/session", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /ui/session: Cache-Control %q, want no-store", resp.Header.Get("Cache-Control"))
	}
}

// TestSignOutEndsTheEventStream: a stream opened with the session cookie
// ends, at its next heartbeat, once the session is signed out.
func TestSignOutEndsTheEventStream(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Config{StreamHeartbeat: 50 * time.Millisecond})
	id := h.must(h.deploy(h.ownerKey, "hello-http.mjs", nil, nil), 200).data()["id"].(string)
	c, csrf := h.signIn(h.ownerKey)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp := h.cookieStream(ctx, id, c)
	defer resp.Body.Close()
	h.must(h.cookieCall("DELETE", "/ui/session", c, map[string]string{csrfHeader: csrf}, nil), http.StatusNoContent)
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("the stream did not end cleanly after sign-out: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the stream outlived its session")
	}
}
