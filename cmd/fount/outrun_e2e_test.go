package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/store"
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
			case "rsa": for (;;) crypto.generateKeyPairSync("rsa", { modulusLength: 1024 });
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

// TestForgedResumeURLsAreCheap: with 40 paused executions of 800 KB on a
// workflow, a resume URL that names no paused execution, or a paused one
// with a wrong secret, costs one read of the index of paused URLs, not a
// decoding of every paused record: with eight forged URLs a second
// arriving, forged and real resumes each answer in under 100 ms (medians),
// and the forgeries past the throttle's budget are answered 429.
func TestForgedResumeURLsAreCheap(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	const paused = 40
	wf := s.deployWorkflow(map[string]any{"name": "Heavy", "trigger": map[string]any{"type": "http"},
		"steps": []any{
			step("big", `export default defineComponent({ run() { return "x".repeat(800000) } })`, nil),
			step("wait", strings.ReplaceAll(suspendStep, "%TIMEOUT%", ""), nil),
			step("after", afterStep, nil)}})
	wfID, url := wf["id"].(string), wf["trigger"].(map[string]any)["endpoint_url"].(string)
	for range paused {
		if st, body := postBody(t, url, `{}`); st != 200 {
			t.Fatalf("trigger: %d %s", st, body)
		}
	}
	var ids []string
	wait.For(t, fmt.Sprintf("%d executions to pause", paused), eventsDeadline, func() (struct{}, bool) {
		ids = nil
		_, body := s.do("GET", "/v1/workflows/"+wfID+"/executions?limit=100", nil)
		for _, it := range body["data"].([]any) {
			if x := it.(map[string]any); x["status"] == "paused" {
				ids = append(ids, x["id"].(string))
			}
		}
		return struct{}{}, len(ids) == paused
	})
	resumeURL := func(id string) string {
		return stepValue(s.execution(id), 1)["resume_url"].(string)
	}
	first := resumeURL(ids[0])
	base := first[:strings.Index(first, "/h/flow/")]

	// Forgeries at eight a second, from this test's address: an unknown
	// execution, and a paused one with a wrong secret.
	stop, began := make(chan struct{}), time.Now()
	var forging sync.WaitGroup
	var mu sync.Mutex
	var forged []time.Duration
	statuses := map[int]int{}
	forging.Go(func() {
		tick := time.NewTicker(125 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			u := fmt.Sprintf("%s/h/flow/%s-%d/%s/resume", base, wfID, 999_000+n, strings.Repeat("A", 32))
			if n%2 == 1 {
				u = first[:strings.LastIndex(first, "/")-32] + strings.Repeat("B", 32) + "/resume"
			}
			start := time.Now()
			st := callFlowURL(t, "POST", u, "", "{}")
			mu.Lock()
			forged, statuses[st] = append(forged, time.Since(start)), statuses[st]+1
			mu.Unlock()
		}
	})
	var real []time.Duration
	for _, id := range ids[:7] {
		u := resumeURL(id)
		start := time.Now()
		if st := callFlowURL(t, "POST", u, "", `{"ok":true}`); st != 202 {
			t.Errorf("resume %s: %d, want 202", id, st)
		}
		real = append(real, time.Since(start))
		s.waitStatus(id, "success")
	}
	// Enough forgeries to pass the throttle's budget.
	wait.Until(t, "30 forged URLs to be answered", eventsDeadline, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(forged) >= 30
	})
	close(stop)
	forging.Wait()
	refilled := int(time.Since(began)/(3*time.Second)) + 1 // the throttle gives one more try each 3 s
	if m := median(real); m > 100*time.Millisecond {
		t.Errorf("real resumes took %v (median %v), want under 100 ms", real, m)
	}
	if m := median(forged); m > 100*time.Millisecond {
		t.Errorf("forged URLs took a median of %v, want under 100 ms", m)
	}
	if statuses[404] < 20 || statuses[404] > 20+refilled || statuses[429] == 0 || statuses[404]+statuses[429] != len(forged) {
		t.Errorf("forged URLs were answered %v; want 20 404s (and %d more at most, as the budget refills), then 429s", statuses, refilled)
	}
}

// median is the middle of ds.
func median(ds []time.Duration) time.Duration {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// TestPausedExecutionsOfAnOlderDataDir: executions paused by a version
// of fount before the table of paused executions (a schema 7 file, where
// they are events on the workflow's $in) are moved into the table when
// the server starts, once, and go on when their URLs are called; a
// forged URL still finds nothing.
func TestPausedExecutionsOfAnOlderDataDir(t *testing.T) {
	t.Parallel()
	cfg := server.Config{BootstrapKey: ownerKey, DataDir: t.TempDir(), StoreURL: "bolt"}
	s := startServer(t, cfg)
	wf := s.deployWorkflow(map[string]any{"name": "Older", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("wait", strings.ReplaceAll(suspendStep, "%TIMEOUT%", ""), nil), step("after", afterStep, nil)}})
	wfID := wf["id"].(string)
	var ids, urls []string
	for range 3 {
		id := s.runWorkflow(wfID, nil)
		ids, urls = append(ids, id), append(urls, stepValue(s.waitStatus(id, "paused"), 0)["resume_url"].(string))
	}
	s.stop()
	toOlderLayout(t, filepath.Join(cfg.DataDir, "fount.db"), wfID)

	s = startServer(t, cfg)
	if n := strings.Count(s.log.String(), "moved a workflow's paused executions into their table"); n != 1 {
		t.Errorf("the move was logged %d times, want once:\n%s", n, s.log)
	}
	if _, body := s.do("GET", "/v1/workflows/"+wfID, nil); data(body)["paused_executions"] != float64(3) {
		t.Errorf("after the upgrade the workflow says %v paused executions, want 3", data(body)["paused_executions"])
	}
	forged := urls[0][:strings.LastIndex(urls[0], "/")-32] + strings.Repeat("C", 32) + "/resume"
	if st := callFlowURL(t, "POST", forged, s.endpoints, "{}"); st != 404 {
		t.Errorf("a wrong secret after the upgrade: %d, want 404", st)
	}
	for i, id := range ids[:2] {
		if st := callFlowURL(t, "POST", urls[i], s.endpoints, `{"go":true}`); st != 202 {
			t.Fatalf("resume %s after the upgrade: %d, want 202", id, st)
		}
		s.waitStatus(id, "success")
	}
	if _, body := s.do("GET", "/v1/workflows/"+wfID, nil); data(body)["paused_executions"] != float64(1) {
		t.Errorf("after two resumes the workflow says %v paused executions, want 1", data(body)["paused_executions"])
	}
}

// toOlderLayout rewrites the bbolt file at path as fount kept paused
// executions before their table (schema version 7): the workflow's are
// taken out of the table and written as events on its $in, in the form
// the engine wrote then, and the mark of their move is taken away.
func toOlderLayout(t *testing.T, path, workflowID string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := st.PausedEntries(ctx, workflowID)
	if err != nil {
		t.Fatal(err)
	}
	var events []model.Event
	var resumes []store.CompletedRun
	for id, entry := range entries {
		state, err := st.PausedState(ctx, workflowID, id)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, model.Event{Name: model.ChannelDelayed, Data: json.RawMessage(fmt.Sprintf(`{"v":1,"due_ms":%d,"paused":%s}`, entry.DueMs, state))})
		resumes = append(resumes, store.CompletedRun{Invocation: model.Invocation{TargetID: workflowID, TargetKind: model.TargetWorkflow}, Commit: store.RunCommit{Resume: id}})
	}
	if _, err := st.CompleteRuns(ctx, resumes); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendEvents(ctx, workflowID, events, len(events)); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.CountPaused(ctx, workflowID); n != 0 || len(events) != 3 {
		t.Fatalf("%d left in the table, %d moved to $in", n, len(events))
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if err := meta.Delete(append([]byte{byte(len("paused_moved"))}, "paused_moved"...)); err != nil { // a value's key: its parts, each after its length
			return err
		}
		return meta.Put([]byte("schema_version"), []byte("7"))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestAccountSandboxesAreBounded: one account's workflows, with a
// concurrency of 50, hold at most --account-sandboxes sandboxes at once
// (before: as many as their executions, 64 MiB each at worst); calls past
// it wait, and the account's other workflow is admitted before the rest
// of the burst; everything finishes once places free up.
func TestAccountSandboxesAreBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var arrivals []string
	inFlight, most := 0, 0
	release := map[string]chan struct{}{}
	for _, who := range []string{"blocker-a", "blocker-b", "burst", "other"} {
		release[who] = make(chan struct{}, 100)
	}
	beacon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.URL.Query().Get("who")
		mu.Lock()
		arrivals = append(arrivals, who)
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		select {
		case <-release[who]:
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	defer beacon.Close()
	// Two workers for the account: the other workflow's batch runs beside
	// the burst's, and waits for a sandbox, not for a worker.
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, AccountSandboxes: 4, Workers: 4, AccountWorkers: 2})
	deploy := func(who string, concurrency int) string {
		code := `export default defineComponent({ async run() { await fetch("` + beacon.URL + `/?who=` + who + `"); return "done" } })`
		return s.deployWorkflow(map[string]any{"name": who, "trigger": map[string]any{"type": "manual"}, "concurrency": concurrency,
			"steps": []any{step("hold", code, nil)}})["id"].(string)
	}
	blockerA, blockerB, burst, other := deploy("blocker-a", 1), deploy("blocker-b", 1), deploy("burst", 50), deploy("other", 1)
	arrived := func(who string, n int) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			count := 0
			for _, a := range arrivals {
				if a == who {
					count++
				}
			}
			return count >= n
		}
	}
	sandboxes := func(held, waiting float64) func() bool {
		return func() bool {
			families, _ := scrape(t, s.base+"/metrics")
			h, okH := gauge(families, "fount_sandboxes_held")
			w, okW := gauge(families, "fount_sandbox_calls_waiting")
			return okH && okW && h == held && w == waiting
		}
	}
	// The blockers hold the account's two workers, so that the burst's
	// runs are all queued before its batch starts.
	var ids []string
	ids = append(ids, s.runWorkflow(blockerA, nil), s.runWorkflow(blockerB, nil))
	wait.Until(t, "the blockers to hold the account's workers", eventsDeadline, func() bool { return arrived("blocker-a", 1)() && arrived("blocker-b", 1)() })
	for range 12 {
		ids = append(ids, s.runWorkflow(burst, nil))
	}
	release["blocker-a"] <- struct{}{}
	wait.Until(t, "three of the burst to hold sandboxes, nine to wait", eventsDeadline, sandboxes(4, 9))
	otherID := s.runWorkflow(other, nil)
	release["blocker-b"] <- struct{}{} // its sandbox goes to the burst, its worker to the other workflow
	s.waitStatus(ids[1], "success")
	wait.Until(t, "the other workflow's call to wait beside eight of the burst", eventsDeadline, sandboxes(4, 9))
	release["burst"] <- struct{}{}
	wait.Until(t, "the other workflow's call to be admitted", eventsDeadline, arrived("other", 1))
	for range 12 {
		release["burst"] <- struct{}{}
	}
	release["other"] <- struct{}{}
	for _, id := range append(ids, otherID) {
		s.waitStatus(id, "success")
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 4 {
		t.Errorf("the account held %d sandboxes at once, want 4 (--account-sandboxes)", most)
	}
	if len(arrivals) != 15 || arrivals[6] != "other" {
		t.Errorf("arrivals %v: want the other workflow's call the first admitted once it waited (7th), before the rest of the burst", arrivals)
	}
}

// TestShutdownWithoutTheStore: a node whose NATS server is gone exits
// within 5 s of being told to stop (before: 20 s, waiting on the store to
// hand back its leases; and a commit in flight, which this test cannot
// time, waited 20 s more: TestStoppingEndsTheWaitForALostServer).
func TestShutdownWithoutTheStore(t *testing.T) {
	t.Parallel()
	nats := startNATS(t, 1)
	s := startServer(t, natsConfig(t, nats.URLs(), filepath.Join(t.TempDir(), "secret.key"), "alone"))
	src := s.deploySource(`export default { name: "counter", version: "1", run(ev) { this.$emit({ n: ev.n }) } }`, nil)
	s.run(src["id"].(string), map[string]any{"n": 1})
	s.events(src["id"].(string), "", 1)
	nats.Stop(0)
	start := time.Now()
	s.stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the node took %v to stop with its store gone, want 5 s at most", took)
	}
}

// TestQueueBoundHoldsUnderABurst: 30 HTTP requests at once to a workflow
// whose queue_size is 3, while its runs are held, queue 3 and answer the
// rest 429; (before: the count was read apart from the write, and a
// burst passed it).
func TestQueueBoundHoldsUnderABurst(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	beacon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer beacon.Close()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
	wf := s.deployWorkflow(map[string]any{"name": "Queued", "trigger": map[string]any{"type": "http"}, "queue_size": 3,
		"steps": []any{step("hold", `export default defineComponent({ async run() { await fetch("`+beacon.URL+`"); return 1 } })`, nil)}})
	url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	var mu sync.Mutex
	statuses := map[int]int{}
	var sent sync.WaitGroup
	for range 30 {
		sent.Go(func() {
			st, _ := postBody(t, url, `{}`)
			mu.Lock()
			statuses[st]++
			mu.Unlock()
		})
	}
	sent.Wait()
	close(release)
	if statuses[200] != 3 || statuses[429] != 27 {
		t.Errorf("30 requests against a queue_size of 3: %v, want 3 accepted and 27 answered 429", statuses)
	}
	s.executions(wf["id"].(string), statuses[200])
}
