package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/server"
)

// TestConcurrentLoopingDeploysAllGetAnAnswer: six concurrent deploys of
// one account whose code loops, with the account allowed one worker:
// every request is answered, in bounded time, with its own 400 or with
// a 429 and Retry-After when the account's earlier calls held its worker
// too long, on saving components and on deploying sources whose deploy
// hook loops. Before, the waiting requests' connections were closed
// without an answer.
func TestConcurrentLoopingDeploysAllGetAnAnswer(t *testing.T) {
	t.Parallel()
	lim := server.DefaultHTTPLimits(0)
	lim.Request = 12 * time.Second // the answer's own deadline: shorter than the six loops' together
	warmCache(t)
	sb, err := host.New(context.Background(), host.Config{CacheDir: cacheDir, Limits: sandbox.Limits{Timeout: 4 * time.Second}, Engine: testEngine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close(context.Background()) })
	s := startServer(t, server.Config{BootstrapKey: ownerKey, RunTimeout: 4 * time.Second, Workers: 2, AccountWorkers: 1, HTTPLimits: &lim, Sandbox: sb})
	for _, c := range []struct {
		name, path, code, want400 string
	}{
		{"components whose code loops", "/v1/components", `for (;;) {} export default { name: "loop", version: "1", run() {} }`, "invalid_component"},
		{"sources whose deploy hook loops", "/v1/sources", `export default { name: "hooked", version: "1", hooks: { deploy() { for (;;) {} } }, run() {} }`, "hook_failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			type answer struct {
				status int
				code   string
				retry  string
				took   time.Duration
				err    error
			}
			answers := make([]answer, 6)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					body, _ := json.Marshal(map[string]any{"component_code": fmt.Sprintf("%s // %d", c.code, i)})
					req, _ := http.NewRequest("POST", s.base+c.path, bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+ownerKey)
					req.Header.Set("Content-Type", "application/json")
					start := time.Now()
					resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
					a := answer{err: err}
					if err == nil {
						raw, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						var e struct{ Error struct{ Code string } }
						_ = json.Unmarshal(raw, &e)
						a.status, a.code, a.retry = resp.StatusCode, e.Error.Code, resp.Header.Get("Retry-After")
					}
					a.took = time.Since(start)
					answers[i] = a
				}()
			}
			wg.Wait()
			refused := 0
			for i, a := range answers {
				secs, _ := strconv.Atoi(a.retry)
				switch {
				case a.err != nil:
					t.Errorf("request %d got no answer: %v (after %v)", i, a.err, a.took)
				case a.status == 400 && a.code == c.want400:
					refused++
				case a.status == 429 && a.code == "busy" && secs > 0:
				default:
					t.Errorf("request %d: %d %q, Retry-After %q; want 400 %s, or 429 busy with Retry-After", i, a.status, a.code, a.retry, c.want400)
				}
			}
			if refused == 0 {
				t.Errorf("no request got its own 400: %+v", answers)
			}
		})
	}
}
