package egress

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fount-dev/fount/abi"
)

func TestEgressPolicyAddresses(t *testing.T) {
	t.Parallel()
	p := New(false, 0, 0)
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", false}, {"10.1.2.3:443", false}, {"172.16.0.1:80", false}, {"192.168.1.1:80", false},
		{"169.254.169.254:80", false}, {"100.64.0.1:80", false}, {"0.0.0.0:80", false}, {"[::1]:80", false},
		{"[fe80::1]:80", false}, {"[fc00::1]:80", false}, {"[::ffff:127.0.0.1]:80", false}, {"[64:ff9b::a00:1]:80", false},
		{"0.1.2.3:80", false}, {"[2002:7f00:1::1]:80", false}, {"[2001:0:4136:e378::1]:80", false}, {"[64:ff9b:1::a00:1]:80", false},
		{"[::7f00:1]:80", false}, {"[fec0::1]:80", false},
		{"93.184.216.34:443", true}, {"[2606:4700::1111]:443", true},
	} {
		err := p.control("tcp", tt.addr, nil)
		if (err == nil) != tt.ok {
			t.Errorf("%s: allowed=%v, want %v (%v)", tt.addr, err == nil, tt.ok, err)
		}
	}
	for _, u := range []string{"file:///etc/passwd", "gopher://x", "http://"} {
		if _, err := p.Fetch(context.Background(), abi.FetchRequest{URL: u, Method: "GET"}); !errors.Is(err, ErrDenied) {
			t.Errorf("%s: err = %v, want ErrDenied", u, err)
		}
	}
}

// TestFetchHandsOverDecompressedBodies: a request that says it takes
// gzip (as axios, got and node-fetch do) gets the body decompressed and
// no Content-Encoding, since the guest's body is text.
func TestFetchHandsOverDecompressedBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			fmt.Fprint(w, "plain")
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, "squeezed")
		zw.Close()
	}))
	defer srv.Close()
	res, err := New(true, 0, 0).Fetch(context.Background(), abi.FetchRequest{URL: srv.URL, Method: "GET",
		Headers: map[string]string{"Accept-Encoding": "gzip, deflate, br"}})
	if err != nil || res.Body != "squeezed" || res.Headers["content-encoding"] != "" {
		t.Fatalf("%v %q %v", err, res.Body, res.Headers)
	}
}
