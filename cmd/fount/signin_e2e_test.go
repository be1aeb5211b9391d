package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/server"
)

// TestWrongKeysAreThrottled: past 20 wrong keys from one address, or
// like one key, every wrong key is a 429 with Retry-After, on the API and
// on the dashboard's sign-in; a right key is always served, from that
// address too, and its owner is not locked out by wrong keys that share
// its first characters. X-Forwarded-For names the client only when the
// request comes through a trusted proxy (--trusted-proxies).
func TestWrongKeysAreThrottled(t *testing.T) {
	t.Parallel()
	proxies, err := guess.ParseProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, server.Config{BootstrapKey: ownerKey, TrustedProxies: proxies})
	from := func(ip string) *http.Client { // loopback has every 127/8 address
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	try := func(c *http.Client, method, path, key, forwardedFor string) *http.Response {
		t.Helper()
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(fmt.Sprintf(`{"api_key":%q}`, key))
		}
		req, _ := http.NewRequest(method, s.base+path, body)
		req.Header.Set("Content-Type", "application/json")
		if method == "GET" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if forwardedFor != "" {
			req.Header.Set("X-Forwarded-For", forwardedFor)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	held := func(resp *http.Response) bool {
		retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return resp.StatusCode == 429 && retry >= 1
	}
	guesser := from("127.0.0.2")
	statuses := map[int]int{}
	for i := range 30 {
		statuses[try(guesser, "GET", "/v1/users/me", fmt.Sprintf("fount_%06d-wrong", i*7919), "").StatusCode]++
	}
	if statuses[401] != 20 || statuses[429] != 10 {
		t.Errorf("30 wrong keys were answered %v; want 20 refused, then 10 held back", statuses)
	}
	for _, c := range []struct {
		method, path, key string
		want              int
	}{
		{"GET", "/v1/users/me", ownerKey, 200}, {"POST", "/ui/session", ownerKey, 201},
		{"POST", "/ui/session", "fount_another-wrong", 429}, {"GET", "/v1/users/me", "fount_yet-another", 429},
	} {
		resp := try(guesser, c.method, c.path, c.key, "")
		if resp.StatusCode != c.want || (c.want == 429 && !held(resp)) {
			t.Errorf("%s %s from the guesser's address: %d, Retry-After %q; want %d", c.method, c.path, resp.StatusCode, resp.Header.Get("Retry-After"), c.want)
		}
	}
	// X-Forwarded-For from an address that is no proxy is not believed.
	if resp := try(guesser, "GET", "/v1/users/me", "fount_forged-hop", "198.51.100.1"); !held(resp) {
		t.Errorf("a wrong key naming another client from an untrusted peer: %d, want 429", resp.StatusCode)
	}

	// Wrong keys like the owner's, from many addresses: they are held
	// back, the owner is not.
	prefix := ownerKey[:12]
	for i := range 25 {
		try(from(fmt.Sprintf("127.0.1.%d", i+1)), "GET", "/v1/users/me", prefix+fmt.Sprintf("wrong%02d", i), "")
	}
	if resp := try(from("127.0.2.1"), "GET", "/v1/users/me", prefix+"wrong-again", ""); !held(resp) {
		t.Errorf("a wrong key like a key tried 25 times: %d, want 429", resp.StatusCode)
	}
	if resp := try(from("127.0.2.2"), "GET", "/v1/users/me", ownerKey, ""); resp.StatusCode != 200 {
		t.Errorf("the right key whose prefix was tried: %d, want 200", resp.StatusCode)
	}

	// Through the trusted proxy, clients are told apart by the header.
	proxy := from("127.0.0.1")
	for i := range 20 {
		try(proxy, "GET", "/v1/users/me", fmt.Sprintf("fount_%06d-proxied", i), "198.51.100.7")
	}
	if resp := try(proxy, "GET", "/v1/users/me", "fount_one-more-proxied", "198.51.100.7"); !held(resp) {
		t.Errorf("a 21st wrong key from one client behind the proxy: %d, want 429", resp.StatusCode)
	}
	if resp := try(proxy, "GET", "/v1/users/me", "fount_first-of-another", "198.51.100.8"); resp.StatusCode != 401 {
		t.Errorf("another client behind the proxy: %d, want 401", resp.StatusCode)
	}
}

// TestBootstrapKeyNeedsThirtyTwoCharacters: a short owner key is refused
// at the first start, naming the variable; the server does not start.
func TestBootstrapKeyNeedsThirtyTwoCharacters(t *testing.T) {
	t.Parallel()
	sb, err := sharedSandbox()
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), BootstrapKey: "ownerkey", StoreURL: "bolt", Sandbox: sb,
		NpmRegistry: "http://127.0.0.1:1/", OnListening: func(string) { t.Error("the server started") }}
	err = server.Serve(context.Background(), cfg, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "FOUNT_BOOTSTRAP_API_KEY") || !strings.Contains(err.Error(), "32") {
		t.Errorf("serve with an 8-character owner key: %v, want an error naming FOUNT_BOOTSTRAP_API_KEY and 32", err)
	}
}
