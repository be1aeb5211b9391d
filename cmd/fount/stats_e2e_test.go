package main

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"
)

// statsSource emits its request's body, and throws when the body says
// fail: an error on $errors, a failed run.
const statsSource = `export default { name: "Counted", version: "1", props: { http: "$.interface.http" },
	run(e) { if (e.body.fail) throw new Error("asked to fail"); this.$emit(e.body) } }`

// countedTraffic deploys statsSource with a webhook subscribed to it,
// posts it ok requests and failing ones (fails says which), and waits
// until the source's statistics and the webhook's deliveries count them.
func (s *testServer) countedTraffic(ok, failing int, fails func(i int) bool) (src map[string]any, hook string, rc *receiver) {
	s.t.Helper()
	src = s.deploySource(statsSource, nil)
	id := src["id"].(string)
	rc = &receiver{}
	hook = s.webhookServing(rc, rc)
	if st, body := s.do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+hook, nil); st != 200 {
		s.t.Fatalf("subscribe the webhook: %d %v", st, body)
	}
	for i := range ok + failing {
		post(s.t, endpointOf(src, "http"), fmt.Sprintf(`{"n":%d,"fail":%t}`, i, fails(i)))
	}
	s.waitStats("sources", id, map[string]float64{"runs": float64(ok + failing), "events": float64(ok)})
	rc.wait(s.t, ok)
	return src, hook, rc
}

// statsTotals reads a resource's totals over the last hour.
func (s *testServer) statsTotals(kind, id string) map[string]any {
	s.t.Helper()
	st, body := s.do("GET", "/v1/"+kind+"/"+id+"/stats", nil)
	if st != 200 {
		s.t.Fatalf("stats of %s: %d %v", id, st, body)
	}
	return data(body)["totals"].(map[string]any)
}

// eventCount is how many events a source has stored, all channels.
func (s *testServer) eventCount(id string) int {
	s.t.Helper()
	st, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=1", nil)
	info, _ := body["page_info"].(map[string]any)
	total, ok := info["total_count"].(float64)
	if st != 200 || !ok {
		s.t.Fatalf("events of %s: %d %v", id, st, body)
	}
	return int(total)
}

// waitStats waits until a resource's totals have want of each key.
func (s *testServer) waitStats(kind, id string, want map[string]float64) map[string]any {
	s.t.Helper()
	return wait.For(s.t, fmt.Sprintf("the statistics of %s to reach %v", id, want), eventsDeadline, func() (map[string]any, bool) {
		got := s.statsTotals(kind, id)
		for k, v := range want {
			if got[k] != v {
				return got, false
			}
		}
		return got, true
	})
}

// TestStatsCountTraffic sends a source requests that succeed and fail,
// delivers its events to a webhook, and checks the statistics the API
// and `fount stats` show against what was sent.
func TestStatsCountTraffic(t *testing.T) {
	e := newCLIEnv(t)
	s := e.srv
	const ok, failing = 7, 3
	src, hook, _ := s.countedTraffic(ok, failing, func(i int) bool { return i >= ok })
	id, name := src["id"].(string), src["name"].(string)
	totals := s.statsTotals("sources", id)
	if totals["errors"] != float64(failing) || totals["runs_failed"] != float64(failing) {
		t.Errorf("totals = %v, want %d errors and failed runs", totals, failing)
	}
	if p95 := totals["run_ms_p95"].(float64); p95 <= 0 {
		t.Errorf("run_ms_p95 = %v, want a duration", p95)
	}
	hookTotals := s.waitStats("webhooks", hook, map[string]float64{"delivered": ok})
	if hookTotals["delivery_failures"] != 0.0 || hookTotals["latency_ms_p95"].(float64) <= 0 {
		t.Errorf("the webhook's totals = %v, want no failures and a latency", hookTotals)
	}

	// One series point per step, the sum of the range's.
	st, body := s.do("GET", fmt.Sprintf("/v1/sources/%s/stats?step=300&from=%d", id, time.Now().Add(-time.Hour).Unix()), nil)
	if st != 200 {
		t.Fatalf("stats with a step: %d %v", st, body)
	}
	series := data(body)["series"].(map[string]any)
	var sum float64
	for _, v := range series["events"].([]any) {
		sum += v.(float64)
	}
	if n := len(series["events"].([]any)); n < 12 || n > 13 || sum != ok {
		t.Errorf("an hour in 5-minute steps: %d points summing %v events, want 12 or 13 summing %d", n, sum, ok)
	}

	// Bad ranges are refused, naming the parameter.
	for _, q := range []string{"step=30", "step=90", "step=9000000000000000000", "from=2000&to=1000", "step=60&from=1&to=9000000"} {
		st, body := s.do("GET", "/v1/sources/"+id+"/stats?"+q, nil)
		if st != 400 || !strings.Contains(fmt.Sprint(body), "param") {
			t.Errorf("stats?%s = %d %v, want a 400 naming the parameter", q, st, body)
		}
	}
	// Another user sees no statistics of this source.
	other := s.newUser("stats-other", "free")
	if st, _ := other.do("GET", "/v1/sources/"+id+"/stats", nil); st != 404 {
		t.Errorf("another user's stats of the source = %d, want 404", st)
	}

	// A workflow counts its executions as they end, failed ones apart.
	st, body = s.do("POST", "/v1/workflows", map[string]any{
		"name": "counted-flow", "trigger": map[string]any{"type": "http"},
		"steps": []any{map[string]any{"name": "s", "code": `export default defineComponent({ async run({ steps }) { if (steps.trigger.event.body.fail) throw new Error("no"); return 1 } })`}},
	})
	if st != 200 {
		t.Fatalf("deploy a workflow: %d %v", st, body)
	}
	flow := data(body)
	for _, b := range []string{`{}`, `{}`, `{"fail":true}`} {
		post(t, flow["trigger"].(map[string]any)["endpoint_url"].(string), b)
	}
	s.waitStats("workflows", flow["id"].(string), map[string]float64{"runs": 3, "runs_failed": 1})

	out := e.mustFount("stats", name)
	for _, want := range []string{name + " (" + id + "), the last 1h,", fmt.Sprintf("%d (%d failed)", ok+failing, failing), "delivered"} {
		if !strings.Contains(out, want) {
			t.Errorf("fount stats prints no %q:\n%s", want, out)
		}
	}
	out = e.mustFount("stats", hook, "--last", "24h")
	if !strings.Contains(out, fmt.Sprintf("%d (0 failed attempts)", ok)) {
		t.Errorf("fount stats of the webhook:\n%s", out)
	}
	if code, _, errOut := e.fount("stats", name, "--last", "720h"); code == exitOK || !strings.Contains(errOut, "--last") {
		t.Errorf("fount stats --last 30d: exit %d, %q", code, errOut)
	}
}

// TestStatsSurviveSIGKILL counts runs, kills the server with SIGKILL in
// the middle of more traffic, restarts it, and checks that the counters
// equal the runs whose events were stored: they are committed together.
func TestStatsSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	bin, dir, p, s := startKillable(t)
	src := s.deploySource(statsSource, nil)
	id, url := src["id"].(string), endpointOf(src, "http")
	client := &http.Client{Timeout: 5 * time.Second}
	send := func(n int) bool {
		resp, err := client.Post(url, "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}
	for n := range 20 {
		send(n)
	}
	s.waitStats("sources", id, map[string]float64{"events": 20})
	// More traffic, then the kill in the middle of it.
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for n := 20; n < 200 && send(n); n++ {
		}
	}()
	wait.Until(t, "some of the second traffic to be stored", eventsDeadline, func() bool {
		return s.statsTotals("sources", id)["events"].(float64) > 25
	})
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	<-sent

	p = startProcess(t, bin, dir)
	s = &testServer{t: t, base: p.base, key: crashKey}
	// Requests accepted before the kill may still run after the restart,
	// each committing its event and its counts together: the events are
	// counted between two reads of the statistics that agree, so that
	// no commit falls between what is compared.
	type reading struct {
		stored int
		totals map[string]any
	}
	r := wait.For(t, "no commit between two reads of the statistics", eventsDeadline, func() (reading, bool) {
		before := s.statsTotals("sources", id)
		stored := s.eventCount(id)
		after := s.statsTotals("sources", id)
		return reading{stored, after}, before["events"] == after["events"] && before["runs"] == after["runs"]
	})
	stored, totals := r.stored, r.totals
	if totals["events"] != float64(stored) || totals["runs"] != float64(stored) {
		t.Errorf("after SIGKILL and restart: %d events stored, statistics %v: want both counts equal", stored, totals)
	}
	if stored <= 25 {
		t.Errorf("%d events stored, want more than 25", stored)
	}
}

// TestStatsOfMany: GET /v1/stats reads several resources' statistics in
// one request (a list's sparklines), each counted as its own endpoint
// counts it, in the order named; an id the caller may not read, or that
// names no source, workflow or webhook, fails the request, naming it.
func TestStatsOfMany(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true})
	src, hook, _ := s.countedTraffic(3, 1, func(i int) bool { return i == 3 })
	id := src["id"].(string)
	flow := s.deployWorkflow(map[string]any{"name": "listed", "trigger": map[string]any{"type": "manual"},
		"steps": []any{step("s", `export default defineComponent({ async run() { return 1 } })`, nil)}})
	wfID := flow["id"].(string)
	s.runWorkflow(wfID, nil)
	s.waitStats("workflows", wfID, map[string]float64{"runs": 1})
	s.waitStats("webhooks", hook, map[string]float64{"delivered": 3})

	named := []string{hook, id, wfID}
	kinds := []string{"webhooks", "sources", "workflows"}
	st, body := s.do("GET", fmt.Sprintf("/v1/stats?ids=%s&step=3600&from=%d", strings.Join(named, ","), time.Now().Add(-time.Hour).Unix()), nil)
	if st != 200 {
		t.Fatalf("GET /v1/stats: %d %v", st, body)
	}
	got, _ := body["data"].([]any)
	if len(got) != len(named) {
		t.Fatalf("GET /v1/stats answered %d resources, want %d: %v", len(got), len(named), body)
	}
	for i, item := range got {
		one := item.(map[string]any)
		if one["id"] != named[i] {
			t.Errorf("answer %d is %v, want %s: the order named", i, one["id"], named[i])
		}
		if n := len(one["series"].(map[string]any)["events"].([]any)); n != 2 {
			t.Errorf("%s: %d points of an hour over the last hour and its minute, want 2", named[i], n)
		}
		alone := s.statsTotals(kinds[i], named[i])
		totals := one["totals"].(map[string]any)
		for _, k := range []string{"events", "errors", "runs", "runs_failed", "delivered", "delivery_failures"} {
			if totals[k] != alone[k] {
				t.Errorf("%s: %s is %v in GET /v1/stats, %v on its own endpoint", named[i], k, totals[k], alone[k])
			}
		}
	}

	// Eleven resources of a week at a minute are past one answer's bound.
	week := []string{id, wfID, hook}
	for len(week) < 11 {
		st, body := s.do("POST", "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook"})
		if st != 200 {
			t.Fatalf("create a webhook: %d %v", st, body)
		}
		week = append(week, data(body)["id"].(string))
	}
	weekAgo := time.Now().Add(-7*24*time.Hour + 2*time.Minute).Unix()
	if st, body := s.do("GET", fmt.Sprintf("/v1/stats?ids=%s&step=60&from=%d", strings.Join(week[:9], ","), weekAgo), nil); st != 200 || len(body["data"].([]any)) != 9 {
		t.Errorf("nine resources of a week at a minute: %d, want 200 with their nine statistics", st)
	}

	other := s.newUser("stats-many-other", "free")
	many := strings.TrimSuffix(strings.Repeat(id+",", apiv1.MaxStatsIDs+1), ",")
	for _, c := range []struct {
		who         *testServer
		query       string
		status      int
		mustMention string
	}{
		{other, "ids=" + id, 404, id},
		{s, "ids=" + id + ",sc_nothing", 400, "sc_nothing"},
		{s, "ids=" + id + ",dc_nothing", 404, "dc_nothing"},
		{s, "ids=" + many, 400, "at most"},
		{s, "ids=dc_" + strings.Repeat("x", 70), 400, "characters"},
		{s, "ids=", 400, "ids"},
		{s, "ids=" + id + "&step=30", 400, "step"},
		// Bounds on the answer's size: each id once, and ids × points.
		{s, "ids=" + strings.TrimSuffix(strings.Repeat(id+",", apiv1.MaxStatsIDs), ","), 400, id + " twice"},
		{s, "ids=" + id + "," + wfID + "," + id, 400, id + " twice"},
		{s, fmt.Sprintf("ids=%s&step=60&from=%d", strings.Join(week, ","), weekAgo), 400, "at most 100000"},
	} {
		st, body := c.who.do("GET", "/v1/stats?"+c.query, nil)
		e, _ := body["error"].(map[string]any)
		if st != c.status || !strings.Contains(fmt.Sprint(e["message"], e["param"]), c.mustMention) {
			t.Errorf("GET /v1/stats?%.60s = %d %v, want %d naming %q", c.query, st, body, c.status, c.mustMention)
		}
	}
}
