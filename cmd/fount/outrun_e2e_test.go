package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
)

// TestHostCryptoEndsAtTheDeadline: with a 2 s run timeout, crypto on the
// host cannot carry a call past it. PBKDF2 of a key of too many blocks,
// and scrypt of too large a p, are refused at once in words; PBKDF2 at
// its largest accepted cost, and RSA key generation, in loops, end with
// the call within 3 s of its start. (Before: 13-26 s, 6 s, and 4-7 s.)
func TestHostCryptoEndsAtTheDeadline(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, RunTimeout: 2 * time.Second})
	src := s.deploySource(`import crypto from "crypto";
		export default { name: "kdf", version: "1", props: { http: { type: "$.interface.http", customResponse: true } },
		run(event) {
			let out = "warm";
			try {
				switch (event.query.what) {
				case "blocks": crypto.pbkdf2Sync("pw", "salt", 1000000, 1280, "sha1"); out = "derived"; break;
				case "scrypt": crypto.scryptSync("pw", "salt", 32, { N: 2 ** 18, r: 1, p: 16, maxmem: 2 ** 30 }); out = "derived"; break;
				}
			} catch (e) { out = e.code + ": " + e.message }
			switch (event.query.what) {
			case "largest": for (;;) crypto.pbkdf2Sync("pw", "salt", 1000000, 256, "sha512");
			case "rsa": for (;;) crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
			}
			this.http.respond({ status: 200, body: out });
		} }`, nil)
	url := endpointOf(src, "http")
	call := func(what string) (int, string, time.Duration) {
		t.Helper()
		start := time.Now()
		resp, err := http.Post(url+"?what="+what, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), time.Since(start)
	}
	if st, body, _ := call("warm"); st != 200 || body != "warm" {
		t.Fatalf("warm call: %d %q", st, body)
	}
	for _, what := range []string{"blocks", "scrypt"} {
		st, body, took := call(what)
		if st != 200 || !strings.HasPrefix(body, "ERR_FOUNT_CRYPTO_COST: ") || took > 3*time.Second {
			t.Errorf("%s: %d %q after %v; want ERR_FOUNT_CRYPTO_COST within 3 s", what, st, body, took)
		}
	}
	for _, what := range []string{"largest", "rsa"} {
		if st, body, took := call(what); st == 200 || took > 3*time.Second {
			t.Errorf("a loop of %s: %d %q after %v; want the call timed out within 3 s", what, st, body, took)
		}
	}
}
