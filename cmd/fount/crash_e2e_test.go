package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/wait"
)

// process is a `fount serve` child process, so that it can be killed -9.
type process struct {
	cmd       *exec.Cmd
	base      string
	endpoints string // the endpoints' own listener
}

// buildFount is fount built once for the test binary, as `make build`
// builds it: the VCS revision stamped, whatever GOFLAGS says, and the
// wasm2go engine when this test binary has it (make test-wasm2go).
func buildFount(t testing.TB) string {
	t.Helper()
	bin, err := fountBuild()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// builtFrom is the commit checked out when buildFount built fount ("" out
// of a git checkout): a commit made while the tests run is not in it.
var builtFrom string

var fountBuild = sync.OnceValues(func() (string, error) {
	if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		builtFrom = strings.TrimSpace(string(head))
	}
	bin := filepath.Join(binDir, "fount")
	args := []string{"build", "-buildvcs=auto", "-o", bin}
	if host.DefaultEngine() == host.EngineWasm2go {
		args = append(args, "-tags", "wasm2go")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

var addrLine = regexp.MustCompile(`listening on http://(\S+)`)

// crashKey is the owner's key of the servers started as processes.
const crashKey = "crash-key-0123456789abcdef0123456789"

// startKillable builds fount and starts it as a process on a fresh data
// dir, for a test that kills it; it returns the binary and the dir, to
// start it again, the process, and the server as its owner.
func startKillable(t *testing.T) (bin, dir string, p *process, s *testServer) {
	t.Helper()
	warmCache(t)
	bin, dir = buildFount(t), t.TempDir()
	p = startProcess(t, bin, dir)
	return bin, dir, p, &testServer{t: t, base: p.base, key: crashKey}
}

func startProcess(t *testing.T, bin, dataDir string) *process {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--allow-private-egress")
	cmd.Env = append(os.Environ(), "FOUNT_BOOTSTRAP_API_KEY="+crashKey, "FOUNT_CACHE_DIR="+cacheDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	api, endpoints := awaitListening(t, stdout, "fount serve")
	return &process{cmd: cmd, base: "http://" + api, endpoints: "http://" + endpoints}
}

// awaitListening reads a started `fount serve`'s stdout until it says
// where it listens, and returns the API's address and the endpoints' (the
// API's when they share it); what fails t is named what.
func awaitListening(t *testing.T, stdout io.Reader, what string) (api, endpoints string) {
	t.Helper()
	type addrs struct{ api, endpoints string }
	found := make(chan addrs, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		var ep string
		for sc.Scan() {
			if m := endpointsLine.FindStringSubmatch(sc.Text()); m != nil {
				ep = m[1] // printed before the API's line
			}
			if m := addrLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- addrs{m[1], cmp.Or(ep, m[1])}
			}
		}
	}()
	select {
	case a := <-found:
		return a.api, a.endpoints
	case <-time.After(startupDeadline):
		t.Fatalf("%s did not start", what)
	}
	return "", ""
}

// recordingReceiver is a receiver that also records every request it
// gets, answered or not, and holds one: the holdAt-th request is never
// answered and ends when its connection drops (the server was killed), so
// that its delivery is certain to be sent again after the restart.
type recordingReceiver struct {
	*receiver
	holdAt int
	held   chan string // the held request's webhook-id

	mu   sync.Mutex
	seen []seenDelivery
}

// seenDelivery is one request a receiver got.
type seenDelivery struct{ id, body string }

func (rr *recordingReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := r.Header.Get("webhook-id")
	rr.mu.Lock()
	rr.seen = append(rr.seen, seenDelivery{id: id, body: string(body)})
	hold := len(rr.seen) == rr.holdAt
	rr.mu.Unlock()
	if hold {
		rr.held <- id
		<-r.Context().Done()
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rr.receiver.ServeHTTP(w, r)
}

// checkRedeliveries fails t unless every webhook-id came with one body
// and every event (by its emitter and id) with one webhook-id; it returns how many
// webhook-ids were sent more than once.
func (rr *recordingReceiver) checkRedeliveries(t *testing.T) (redelivered int) {
	t.Helper()
	rr.mu.Lock()
	defer rr.mu.Unlock()
	bodyOf, idOf, times := map[string]string{}, map[string]string{}, map[string]int{}
	for _, d := range rr.seen {
		var payload struct {
			ID       string `json:"id"`
			Metadata struct {
				Emitter string `json:"emitter_id"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(d.body), &payload); err != nil || payload.ID == "" || d.id == "" {
			t.Errorf("a delivery without an event id or webhook-id: webhook-id %q, body %s", d.id, d.body)
			continue
		}
		payload.ID = payload.Metadata.Emitter + "/" + payload.ID // event ids are unique per emitter
		if b, ok := bodyOf[d.id]; ok && b != d.body {
			t.Errorf("webhook-id %s came with two bodies:\n%s\n%s", d.id, b, d.body)
		}
		if id, ok := idOf[payload.ID]; ok && id != d.id {
			t.Errorf("event %s came with webhook-ids %s and %s", payload.ID, id, d.id)
		}
		bodyOf[d.id], idOf[payload.ID] = d.body, d.id
		if times[d.id]++; times[d.id] == 2 {
			redelivered++
		}
	}
	return redelivered
}

// TestCrashLosesNothingAcknowledged kills the server with SIGKILL while a
// client posts to an HTTP endpoint and a webhook receives its events,
// restarts it, and checks that every request that got a 200 has its
// event stored and delivered to the webhook at least once, a redelivery
// with the same webhook-id and body as the first (the receiver holds one
// delivery unanswered across the kill, so there is at least one).
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	bin, dir, p, s := startKillable(t)

	rc := &receiver{}
	rr := &recordingReceiver{receiver: rc, holdAt: 5, held: make(chan string, 1)}
	src := s.deploySource(`export default { name: "Crash", version: "1", props: { http: "$.interface.http" },
		run(e) { this.$emit({ n: e.body.n }, { summary: "n=" + e.body.n }) } }`, nil)
	id := src["id"].(string)
	token := endpointOf(src, "http")[strings.LastIndex(endpointOf(src, "http"), "/h/"):]
	s.do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+s.webhookServing(rr, rc), nil)

	// Post until killed; record what was acknowledged.
	var mu sync.Mutex
	acked := map[int]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	go func() {
		defer close(done)
		for n := 0; n < 90; n++ {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := client.Post(p.endpoints+token, "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				mu.Lock()
				acked[n] = true
				mu.Unlock()
			}
		}
	}()
	wait.Until(t, "40 requests acknowledged", eventsDeadline, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 40
	})
	var heldID string
	select {
	case heldID = <-rr.held:
	case <-time.After(eventsDeadline):
		t.Fatalf("the webhook did not get %d deliveries", rr.holdAt)
	}
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL, mid-stream
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	close(stop)
	<-done
	mu.Lock()
	want := len(acked)
	mu.Unlock()

	p2 := startProcess(t, bin, dir)
	s.base = p2.base
	missing := wait.For(t, fmt.Sprintf("the %d acknowledged requests stored and delivered", want), eventsDeadline, func() (string, bool) {
		_, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=100", nil)
		stored := map[int]bool{}
		for _, it := range body["data"].([]any) {
			ev := it.(map[string]any)["event"].(map[string]any)
			stored[int(ev["n"].(float64))] = true
		}
		delivered := map[int]bool{}
		rc.mu.Lock()
		for _, d := range rc.got {
			delivered[int(d["event"].(map[string]any)["n"].(float64))] = true
		}
		rc.mu.Unlock()
		var missingStored, missingDelivered []int
		for n := range acked {
			if !stored[n] {
				missingStored = append(missingStored, n)
			}
			if !delivered[n] {
				missingDelivered = append(missingDelivered, n)
			}
		}
		return fmt.Sprintf("not stored: %v; not delivered: %v", missingStored, missingDelivered), len(missingStored) == 0 && len(missingDelivered) == 0
	})
	redelivered := rr.checkRedeliveries(t)
	if redelivered == 0 {
		t.Fatalf("delivery %s, unanswered at the kill, was not sent again", heldID)
	}
	t.Logf("%d acknowledged requests before the kill: all stored and delivered (%s); %d redelivered with the same webhook-id and body", want, missing, redelivered)
}

// TestCrashLosesNoWorkflowExecution kills the server with SIGKILL while a
// client posts to a workflow's HTTP trigger, restarts it, and checks that
// every request that got a 200 has run: a successful execution recorded
// with its trigger event, and the event its last step emitted stored.
func TestCrashLosesNoWorkflowExecution(t *testing.T) {
	t.Parallel()
	bin, dir, p, s := startKillable(t)
	wf := s.deployWorkflow(map[string]any{
		"name": "Crash flow", "trigger": map[string]any{"type": "http"},
		"steps": []any{
			step("read", `export default defineComponent({ run({ steps }) { return steps.trigger.event.body.n } })`, nil),
			step("emit", `export default defineComponent({ run({ steps, $ }) { $.send.emit({ raw_event: { n: steps.read.$return_value } }) } })`, nil),
		},
	})
	id := wf["id"].(string)
	url := wf["trigger"].(map[string]any)["endpoint_url"].(string)
	token := url[strings.LastIndex(url, "/h/"):]

	var mu sync.Mutex
	acked := map[int]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	go func() {
		defer close(done)
		for n := 0; n < 90; n++ {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := client.Post(p.endpoints+token, "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				mu.Lock()
				acked[n] = true
				mu.Unlock()
			}
		}
	}()
	wait.Until(t, "40 requests acknowledged", eventsDeadline, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 40
	})
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL, mid-stream
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	close(stop)
	<-done
	mu.Lock()
	want := len(acked)
	mu.Unlock()

	p2 := startProcess(t, bin, dir)
	s.base = p2.base
	wait.For(t, fmt.Sprintf("the %d acknowledged requests executed and emitted", want), eventsDeadline, func() (string, bool) {
		ran, emitted := map[int]bool{}, map[int]bool{}
		_, body := s.do("GET", "/v1/workflows/"+id+"/executions?limit=1000", nil)
		for _, it := range body["data"].([]any) {
			if x := it.(map[string]any); x["status"] == "success" {
				full := s.execution(x["id"].(string))
				ran[int(full["event"].(map[string]any)["body"].(map[string]any)["n"].(float64))] = true
			}
		}
		_, body = s.do("GET", "/v1/workflows/"+id+"/event_summaries?limit=100", nil)
		for _, it := range body["data"].([]any) {
			emitted[int(it.(map[string]any)["event"].(map[string]any)["raw_event"].(map[string]any)["n"].(float64))] = true
		}
		var missingRun, missingEmit []int
		for n := range acked {
			if !ran[n] {
				missingRun = append(missingRun, n)
			}
			if !emitted[n] {
				missingEmit = append(missingEmit, n)
			}
		}
		return fmt.Sprintf("no execution: %v; no emit: %v", missingRun, missingEmit), len(missingRun) == 0 && len(missingEmit) == 0
	})
	t.Logf("%d acknowledged requests before the kill: every one executed and its emit stored", want)
}

// TestVersionOfABuiltBinary: a binary built as `make build` builds it
// reports the VCS revision it was built from, in words and as JSON.
func TestVersionOfABuiltBinary(t *testing.T) {
	t.Parallel()
	bin := buildFount(t)
	if builtFrom == "" {
		t.Fatal("this test runs in the repository's git checkout, as CI does: git rev-parse HEAD failed")
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v buildVersion
	if err := json.Unmarshal(out, &v); err != nil || v.Revision != builtFrom || v.Version == "" || v.Go == "" {
		t.Errorf("version --json = %s (%v), want revision %s", out, err, builtFrom)
	}
	human, _ := exec.Command(bin, "version").Output()
	if !strings.Contains(string(human), "revision "+v.Revision[:12]) {
		t.Errorf("version = %q", human)
	}
}

// TestCrashKeepsPausedExecutions kills the server with SIGKILL while
// executions wait on $.flow.delay and $.flow.suspend, restarts it, and
// checks that each goes on once: the delayed ones at their time, the
// suspended ones on their resume URLs (called on the restarted server),
// each with its step after the pause run once and its emit stored once.
func TestCrashKeepsPausedExecutions(t *testing.T) {
	t.Parallel()
	bin, dir, p, s := startKillable(t)
	after := `export default defineComponent({ run({ steps, $ }) {
		$.send.emit({ raw_event: { execution: $.context.id } });
		return { at: Date.now(), resumed: steps.wait.$resume_data === undefined ? null : steps.wait.$resume_data };
	} })`
	deploy := func(name, wait string) string {
		return s.deployWorkflow(map[string]any{"name": name, "trigger": map[string]any{"type": "manual"},
			"steps": []any{step("wait", wait, nil), step("after", after, nil)}})["id"].(string)
	}
	delayed := deploy("Delayed", `export default defineComponent({ run({ $ }) { $.flow.delay(4000); return { at: Date.now() } } })`)
	suspended := deploy("Suspended", `export default defineComponent({ run({ $ }) { return $.flow.suspend() } })`)
	var waits, approvals []string
	for range 4 {
		waits = append(waits, s.runWorkflow(delayed, nil))
	}
	for range 3 {
		approvals = append(approvals, s.runWorkflow(suspended, nil))
	}
	resumeURLs := map[string]string{}
	for _, id := range append(append([]string{}, waits...), approvals...) {
		x := s.waitStatus(id, "paused")
		if v := stepValue(x, 0); v["resume_url"] != nil {
			resumeURLs[id] = v["resume_url"].(string)
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()

	p2 := startProcess(t, bin, dir)
	s.base = p2.base
	for i, id := range approvals {
		if st := callFlowURL(t, "POST", resumeURLs[id], p2.endpoints, fmt.Sprintf(`{"n":%d}`, i)); st != 202 {
			t.Fatalf("resume %s after the restart: %d", id, st)
		}
	}
	for i, id := range approvals {
		x := s.waitStatus(id, "success")
		if got := jsonOf(stepValue(x, 1)["resumed"]); got != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("%s resumed with %s", id, got)
		}
	}
	for _, id := range waits {
		x := s.waitStatus(id, "success")
		if gap := stepValue(x, 1)["at"].(float64) - stepValue(x, 0)["at"].(float64); gap < 3900 {
			t.Errorf("%s went on %v ms after its step, before its 4 s delay", id, gap)
		}
	}
	for _, id := range append(waits, approvals...) {
		if n := len(s.waitStatus(id, "success")["steps"].([]any)); n != 2 {
			t.Errorf("%s ran %d steps, want each once", id, n)
		}
	}
	for _, wf := range []string{delayed, suspended} {
		_, body := s.do("GET", "/v1/workflows/"+wf+"/event_summaries?limit=100", nil)
		seen := map[string]int{}
		for _, it := range body["data"].([]any) {
			seen[it.(map[string]any)["event"].(map[string]any)["raw_event"].(map[string]any)["execution"].(string)]++
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s emitted %d times after the restart, want once", id, n)
			}
		}
		if want := map[string]int{delayed: len(waits), suspended: len(approvals)}[wf]; len(seen) != want {
			t.Errorf("workflow %s: %d executions emitted, want %d", wf, len(seen), want)
		}
	}
}
