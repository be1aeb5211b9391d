package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
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

// TestPausedBoundHoldsUnderABurst: 30 HTTP requests at once to a workflow
// whose step suspends, against --max-paused-executions 3, leave 3
// executions paused and 27 failed, each with an error naming the bound;
// five times over. (Before: the count was read before the batch's own
// pauses were saved, and 9 to 29 stayed paused.)
func TestPausedBoundHoldsUnderABurst(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, MaxPaused: 3})
	for round := range 5 {
		wf := s.deployWorkflow(map[string]any{"name": fmt.Sprintf("Burst %d", round), "trigger": map[string]any{"type": "http"},
			"steps": []any{step("wait", strings.ReplaceAll(suspendStep, "%TIMEOUT%", ""), nil), step("after", afterStep, nil)}})
		url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
		var sent sync.WaitGroup
		for range 30 {
			sent.Go(func() {
				if st, body := postBody(t, url, `{}`); st != 200 {
					t.Errorf("trigger: %d %s", st, body)
				}
			})
		}
		sent.Wait()
		var statuses map[string]int
		var reasons []string
		wait.For(t, "30 executions to pause or fail", eventsDeadline, func() (struct{}, bool) {
			statuses, reasons = map[string]int{}, nil
			st, body := s.do("GET", "/v1/workflows/"+wf["id"].(string)+"/executions?limit=100", nil)
			if st != 200 {
				t.Fatalf("executions: %d %v", st, body)
			}
			for _, it := range body["data"].([]any) {
				x := it.(map[string]any)
				statuses[x["status"].(string)]++
				if x["status"] == "error" {
					reasons = append(reasons, jsonOf(x))
				}
			}
			return struct{}{}, statuses["paused"]+statuses["error"] == 30
		})
		if statuses["paused"] != 3 || statuses["error"] != 27 {
			t.Errorf("round %d: %v, want 3 paused and 27 failed", round, statuses)
		}
		for _, r := range reasons {
			if !strings.Contains(r, "the most this server keeps (--max-paused-executions)") {
				t.Errorf("round %d: a failed execution does not name the bound: %s", round, r)
				break
			}
		}
	}
}
