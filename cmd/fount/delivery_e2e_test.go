package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/wait"
)

// hangingEndpoint accepts webhook requests and never answers them (until
// the test ends), counting them.
type hangingEndpoint struct {
	url string

	mu       sync.Mutex
	inFlight int
	most     int // in flight at once, at most
	total    int
}

func newHangingEndpoint(t testing.TB) *hangingEndpoint {
	t.Helper()
	h := &hangingEndpoint{}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.inFlight++
		h.total++
		h.most = max(h.most, h.inFlight)
		h.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-release:
		}
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	h.url = srv.URL
	return h
}

// counts returns the requests in flight at most so far, and in all.
func (h *hangingEndpoint) counts() (most, total int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most, h.total
}

// subscribe subscribes listener to emitter's events.
func (s *testServer) subscribe(emitter, listener string) {
	s.t.Helper()
	if st, body := s.do("POST", "/v1/subscriptions?emitter_id="+emitter+"&listener_id="+listener, nil); st != 200 {
		s.t.Fatalf("subscribe %s to %s: %d %v", listener, emitter, st, body)
	}
}

// attackDeliveries makes attacker's webhooks point at dead (each of the
// hooks) and runs one source of attacker's, subscribed to all of them,
// that emits events events: hooks*events deliveries to an endpoint that
// never answers. It returns once the first of them is in flight.
func attackDeliveries(s *testServer, dead *hangingEndpoint, hooks, events int) {
	s.t.Helper()
	src := s.deploySource(fmt.Sprintf(`export default { name: "Flood", version: "1",
		run() { for (let i = 0; i < %d; i++) this.$emit({ i }) } }`, events), nil)
	for range hooks {
		st, hook := s.do("POST", "/v1/webhooks", map[string]any{"url": dead.url})
		if st != 200 {
			s.t.Fatalf("create a webhook: %d %v", st, hook)
		}
		s.subscribe(src["id"].(string), data(hook)["id"].(string))
	}
	s.run(src["id"].(string), nil)
	wait.Until(s.t, "a delivery to reach the dead endpoint", eventsDeadline, func() bool {
		_, total := dead.counts()
		return total > 0
	})
}

// TestDeadWebhookCannotDelayOtherAccounts: an account whose webhooks never
// answer, with a backlog of deliveries queued before another account's,
// holds at most its share of the delivery workers: the other account's
// delivery arrives while the backlog is still nearly all pending. Before
// deliveries were fair, the backlog took every worker and went first, and
// the other delivery waited for all of it (98.8 s in the finding).
func TestDeadWebhookCannotDelayOtherAccounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		hooks, events int
		most          int // requests in flight at the dead endpoint at most
	}{
		{"one webhook, 160 events", 1, 160, 1},                 // one attempt per webhook
		{"eight webhooks of one account, 20 events", 8, 20, 4}, // engine's perAccountDeliveries
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startEngineServer(t)
			attacker, victim := s.newUser("attacker", "paid"), s.newUser("victim", "paid")
			dead := newHangingEndpoint(t)
			attackDeliveries(attacker, dead, tt.hooks, tt.events)

			rc := &receiver{}
			hook := victim.webhookTo(rc)
			src := victim.deploySource(`export default { name: "Victim", version: "1", run() { this.$emit({ ok: true }) } }`, nil)
			victim.subscribe(src["id"].(string), hook)
			victim.run(src["id"].(string), nil)

			backlog := tt.hooks * tt.events
			var total int
			wait.Until(t, "the victim's delivery", eventsDeadline, func() bool {
				// Read the dead endpoint's counts first: when the delivery
				// has arrived, they are at most what they were at its arrival.
				most, seen := dead.counts()
				total = seen
				if most > tt.most {
					t.Fatalf("the dead endpoint had %d requests in flight at once, want at most %d", most, tt.most)
				}
				rc.mu.Lock()
				arrived, bad := len(rc.got), len(rc.bad)
				rc.mu.Unlock()
				if bad > 0 {
					t.Fatalf("%d deliveries had a bad signature", bad)
				}
				if total > backlog/10 {
					t.Fatalf("%d of the %d deliveries queued before the victim's were tried first (arrived: %v)", total, backlog, arrived > 0)
				}
				return arrived > 0
			})
			t.Logf("delivered after %d of the %d deliveries of the dead webhooks were tried", total, backlog)
		})
	}
}
