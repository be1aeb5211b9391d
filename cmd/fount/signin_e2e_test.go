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

	"github.com/fount-dev/fount/internal/server"
)

// TestWrongKeysAreThrottled: past 20 wrong keys from one address, every
// try from it is a 429 with Retry-After, the right key included (else a
// guesser would learn which guess was right), on the API and on the
// dashboard's sign-in; another address is served as before.
func TestWrongKeysAreThrottled(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	from := func(ip string) *http.Client { // loopback has every 127/8 address
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	try := func(c *http.Client, method, path, key string) *http.Response {
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
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	guesser := from("127.0.0.1")
	statuses := map[int]int{}
	for i := range 30 {
		statuses[try(guesser, "GET", "/v1/users/me", fmt.Sprintf("fount_%06d-wrong", i*7919)).StatusCode]++
	}
	if statuses[401] != 20 || statuses[429] != 10 {
		t.Errorf("30 wrong keys were answered %v; want 20 refused, then 10 held back", statuses)
	}
	for _, c := range []struct{ method, path, key string }{
		{"GET", "/v1/users/me", ownerKey}, {"POST", "/ui/session", ownerKey}, {"POST", "/ui/session", "fount_another-wrong"},
	} {
		resp := try(guesser, c.method, c.path, c.key)
		retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != 429 || retry < 1 {
			t.Errorf("%s %s from the guesser: %d, Retry-After %q; want 429 with a delay", c.method, c.path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if resp := try(from("127.0.0.2"), "GET", "/v1/users/me", ownerKey); resp.StatusCode != 200 {
		t.Errorf("the right key from another address: %d, want 200", resp.StatusCode)
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
