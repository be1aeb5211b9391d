package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads url's metrics with the Prometheus text parser.
func scrape(t testing.TB, url string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return families, string(raw)
}

// gauge is the value of an unlabelled gauge of families; false when
// there is none.
func gauge(families map[string]*dto.MetricFamily, name string) (float64, bool) {
	f, ok := families[name]
	if !ok || len(f.GetMetric()) == 0 {
		return 0, false
	}
	return f.GetMetric()[0].GetGauge().GetValue(), true
}

// counter sums the values (a histogram: its sample counts) of a
// family's series whose labels include want.
func counter(families map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f, ok := families[name]
	if !ok {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if match {
			total += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// TestMetricsMoveWithRunsAndDeliveries: /metrics parses as Prometheus
// text; its counters move as a run, a failed run, a delivery and an API
// request happen; no label carries an id.
func TestMetricsMoveWithRunsAndDeliveries(t *testing.T) {
	t.Parallel()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	t.Cleanup(hook.Close)
	// On bbolt whatever FOUNT_TEST_STORE says: the store's metrics are
	// bbolt's (store.StatsReporter).
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, StoreURL: "bolt"})
	before, _ := scrape(t, s.base+"/metrics")
	for _, name := range []string{"go_goroutines", "fount_queued_invocations", "fount_pending_deliveries"} {
		if f, ok := before[name]; !ok || f.GetMetric()[0].GetGauge().GetValue() < 0 {
			t.Errorf("no %s gauge, or a store that did not answer: %v", name, f)
		}
	}
	src := s.deploySource(`export default { name: "m", version: "1", run(e) { if (e.fail) throw new TypeError("x"); this.$emit(e) } }`, nil)
	id := src["id"].(string)
	st, body := s.do("POST", "/v1/webhooks?url="+hook.URL+"/in", nil)
	if st != 200 {
		t.Fatalf("webhook: %d %v", st, body)
	}
	if st, body := s.do("POST", "/v1/subscriptions?emitter_id="+id+"&listener_id="+data(body)["id"].(string), nil); st != 200 {
		t.Fatalf("subscribe: %d %v", st, body)
	}
	s.run(id, map[string]any{"n": 1})
	s.run(id, map[string]any{"fail": true})
	s.events(id, "$errors", 1)

	var after map[string]*dto.MetricFamily
	var raw string
	wait.Poll(eventsDeadline, func() bool { // the checks below say what is missing
		after, raw = scrape(t, s.base+"/metrics")
		return counter(after, "fount_deliveries_total", map[string]string{"outcome": "delivered"}) >= 1
	})
	checks := []struct {
		name   string
		labels map[string]string
	}{
		{"fount_invocations_total", map[string]string{"kind": "manual", "outcome": "ok"}},
		{"fount_invocations_total", map[string]string{"kind": "manual", "outcome": "TypeError"}},
		{"fount_deliveries_total", map[string]string{"outcome": "delivered"}},
		{"fount_http_requests_total", map[string]string{"route": "/v1/sources/{id}/run", "status": "202"}},
		{"fount_sandbox_restores_total", nil},
		{"fount_store_commit_duration_seconds", nil},
		{"fount_store_commit_page_writes", nil},
		{"fount_store_page_writes_total", nil},
		{"fount_store_write_seconds_total", nil},
	}
	for _, c := range checks {
		if got, was := counter(after, c.name, c.labels), counter(before, c.name, c.labels); got <= was {
			t.Errorf("%s%v did not move: %v then %v", c.name, c.labels, was, got)
		}
	}
	if pages := after["fount_store_commit_page_writes"]; pages == nil || pages.GetMetric()[0].GetHistogram().GetSampleSum() <= 0 {
		t.Errorf("fount_store_commit_page_writes counts no page written: %v", pages)
	}
	if size := after["fount_store_size_bytes"]; size == nil || size.GetMetric()[0].GetGauge().GetValue() <= 0 {
		t.Errorf("fount_store_size_bytes: %v", size)
	}
	for _, line := range strings.Split(raw, "\n") {
		if !strings.HasPrefix(line, "#") && (strings.Contains(line, id) || strings.Contains(line, `"u_`) || strings.Contains(line, `"wh_`)) {
			t.Errorf("a metric label carries an id: %s", line)
		}
	}
}
