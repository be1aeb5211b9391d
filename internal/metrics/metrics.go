// Package metrics is fount's Prometheus instrumentation: counters and
// histograms of runs, deliveries, HTTP requests and egress denials, and
// the Go runtime's and the process's own metrics, served in the
// Prometheus text format. Labels stay low-cardinality: kinds, outcomes,
// route patterns and status codes, never a source, user or webhook id, so
// that no tenant's data reaches a scraper and no series grows with the
// number of tenants. Per-source figures are the API's (event summaries,
// executions, deliveries).
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds a server's metrics in a registry of its own (no package
// state: two servers in one process keep two sets).
type Metrics struct {
	reg          *prometheus.Registry
	runs         *prometheus.CounterVec
	runDuration  *prometheus.HistogramVec
	deliveries   *prometheus.CounterVec
	requests     *prometheus.CounterVec
	reqDuration  *prometheus.HistogramVec
	egressDenied prometheus.Counter
	sockets      *prometheus.CounterVec
	socketBytes  *prometheus.CounterVec
	commit       prometheus.Histogram
	commitPages  prometheus.Histogram
}

// New returns a set of metrics, with the Go and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fount_invocations_total", Help: "Runs of sources and workflow steps, by trigger kind and outcome.",
		}, []string{"kind", "outcome"}),
		runDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fount_run_duration_seconds", Help: "How long runs took in the sandbox, by trigger kind.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}, []string{"kind"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fount_deliveries_total", Help: "Delivery attempts to webhooks and workflows, by outcome (delivered, retry, failed).",
		}, []string{"outcome"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fount_http_requests_total", Help: "API requests, by route pattern and status code.",
		}, []string{"route", "status"}),
		reqDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fount_http_request_duration_seconds", Help: "API request durations, by route pattern.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
		egressDenied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fount_egress_denied_total", Help: "Outbound requests the egress policy refused.",
		}),
		sockets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fount_egress_sockets_total", Help: "Components' socket connections, by outcome (connected, denied, failed).",
		}, []string{"outcome"}),
		socketBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fount_egress_socket_bytes_total", Help: "Bytes components' sockets sent and received, by direction (sent, received).",
		}, []string{"direction"}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fount_store_commit_duration_seconds", Help: "How long the store's write transactions took to commit, write and fsync included (a group of queued invocations is one).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
		commitPages: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fount_store_commit_page_writes", Help: "Page writes of each store commit timed by fount_store_commit_duration_seconds (a write is a page or a run of overflow pages).",
			Buckets: prometheus.ExponentialBuckets(1, 4, 8),
		}),
	}
	m.reg.MustRegister(m.runs, m.runDuration, m.deliveries, m.requests, m.reqDuration, m.egressDenied, m.sockets, m.socketBytes, m.commit, m.commitPages,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// RunFinished counts a run of kind that ended with outcome ("ok", or the
// error's class) after d.
func (m *Metrics) RunFinished(kind, outcome string, d time.Duration) {
	m.runs.WithLabelValues(kind, outcome).Inc()
	m.runDuration.WithLabelValues(kind).Observe(d.Seconds())
}

// DeliveryFinished counts a delivery attempt's outcome.
func (m *Metrics) DeliveryFinished(outcome string) {
	m.deliveries.WithLabelValues(outcome).Inc()
}

// Request counts an API request to route that answered status after d.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.reqDuration.WithLabelValues(route).Observe(d.Seconds())
}

// EgressDenied counts a request the egress policy refused.
func (m *Metrics) EgressDenied() {
	m.egressDenied.Inc()
}

// SocketOpened counts a component's socket connection by outcome.
func (m *Metrics) SocketOpened(outcome string) {
	m.sockets.WithLabelValues(outcome).Inc()
}

// SocketBytes counts bytes a component's socket sent or received.
func (m *Metrics) SocketBytes(direction string, n int) {
	m.socketBytes.WithLabelValues(direction).Add(float64(n))
}

// WatchQueues adds gauges of the invocation and delivery queues' depths,
// read by depths at each scrape.
func (m *Metrics) WatchQueues(depths func() (invocations, deliveries int, err error)) {
	m.reg.MustRegister(&queueDepths{depths: depths,
		invocations: prometheus.NewDesc("fount_queued_invocations", "Invocations queued for sources and workflows, not yet run (-1 when the store did not answer).", nil, nil),
		deliveries:  prometheus.NewDesc("fount_pending_deliveries", "Deliveries waiting for an attempt or a retry (-1 when the store did not answer).", nil, nil),
	})
}

// queueDepths collects both queue gauges from one call of depths a
// scrape: counting costs the store a pass over its queues (or, on
// JetStream, a request to its leader).
type queueDepths struct {
	depths                  func() (invocations, deliveries int, err error)
	invocations, deliveries *prometheus.Desc
}

func (q *queueDepths) Describe(ch chan<- *prometheus.Desc) {
	ch <- q.invocations
	ch <- q.deliveries
}

func (q *queueDepths) Collect(ch chan<- prometheus.Metric) {
	i, d, err := q.depths()
	if err != nil {
		i, d = -1, -1
	}
	ch <- prometheus.MustNewConstMetric(q.invocations, prometheus.GaugeValue, float64(i))
	ch <- prometheus.MustNewConstMetric(q.deliveries, prometheus.GaugeValue, float64(d))
}

// WatchCluster adds the partitions of the work this node owns, read by
// owned at each scrape: on several nodes, each owns its share once the
// cluster is balanced, and a partition nobody owns waits.
func (m *Metrics) WatchCluster(owned func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_cluster_partitions_owned",
		Help: "Partitions of the work this node owns now (several nodes on a JetStream store)."},
		func() float64 { return float64(owned()) }))
}

// WatchSandbox adds the sandbox's instance counts, read by stats at each
// scrape: instances restored from snapshots, evicted when idle, and live.
func (m *Metrics) WatchSandbox(stats func() (restored, evicted, live int64)) {
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fount_sandbox_restores_total", Help: "Sandbox instances created from a snapshot."},
			func() float64 { r, _, _ := stats(); return float64(r) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fount_sandbox_evictions_total", Help: "Warm sandbox instances closed for being idle."},
			func() float64 { _, e, _ := stats(); return float64(e) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_sandbox_instances", Help: "Sandbox instances open now."},
			func() float64 { _, _, l := stats(); return float64(l) }),
	)
}

// WatchAdmission adds the sandboxes that calls hold now, their memory
// limits together, and the calls waiting for one, read by stats at each
// scrape.
func (m *Metrics) WatchAdmission(stats func() (held int, bytes int64, waiting int)) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_sandboxes_held", Help: "Sandboxes that calls hold now (--account-sandboxes bounds an account's)."},
			func() float64 { h, _, _ := stats(); return float64(h) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_sandbox_memory_held_bytes", Help: "The memory limits of the sandboxes calls hold now (--sandbox-memory bounds them)."},
			func() float64 { _, b, _ := stats(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_sandbox_calls_waiting", Help: "Calls waiting for a sandbox, their account's or the server's being full."},
			func() float64 { _, _, w := stats(); return float64(w) }),
	)
}

// StoreCommitted observes one store commit: its duration and page writes.
func (m *Metrics) StoreCommitted(d time.Duration, pageWrites int64) {
	m.commit.Observe(d.Seconds())
	m.commitPages.Observe(float64(pageWrites))
}

// WatchStore adds the store's cumulative write time and page writes, every
// commit included, and its size, read by stats at each scrape.
func (m *Metrics) WatchStore(stats func() (writeTime time.Duration, pageWrites, sizeBytes int64)) {
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fount_store_write_seconds_total", Help: "Time the store spent writing and syncing pages, every commit included."},
			func() float64 { d, _, _ := stats(); return d.Seconds() }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fount_store_page_writes_total", Help: "Page writes of the store, every commit included."},
			func() float64 { _, w, _ := stats(); return float64(w) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fount_store_size_bytes", Help: "The size of the store's data."},
			func() float64 { _, _, n := stats(); return float64(n) }),
	)
}
