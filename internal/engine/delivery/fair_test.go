package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
	"github.com/fount-dev/fount/internal/wait"
)

var ctx = context.Background()

// The deliverer's fairness, driven step by step: the test is the loop
// (each poll is a call of deliverDue, so it may read the gate), and the
// attempts run in their goroutines against a fake sender.

// stepper is a deliverer that is never started: its polls are the test's.
type stepper struct {
	*Deliverer
	t     *testing.T
	st    *store.Bolt
	clock *clock.Fake
	ctx   context.Context
	logs  *syncBuffer
}

func newStepper(t *testing.T, send Sender) *stepper {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &stepper{t: t, st: st, clock: clock.NewFake(), ctx: ctx, logs: &syncBuffer{}}
	s.Deliverer = New(Config{Clock: s.clock, Log: slog.New(slog.NewTextHandler(s.logs, nil)), Store: st, Queues: st, Send: send, MaxAttempts: 100, RetryBase: time.Second})
	t.Cleanup(func() {
		cancel()
		s.wg.Wait()
		st.Close()
	})
	return s
}

// webhook creates an active webhook created by user, in an organization
// of its own: webhooks are counted by their creator, whoever owns them.
func (s *stepper) webhook(id, user string) {
	s.t.Helper()
	if err := s.st.CreateWebhook(ctx, model.Webhook{ID: id, OwnerID: "o_" + id, UserID: user, Active: true}); err != nil {
		s.t.Fatal(err)
	}
}

// queue routes n deliveries to webhook, due now on the fake clock, and
// returns their ids in creation order.
func (s *stepper) queue(webhook string, n int) []string {
	s.t.Helper()
	inv, err := s.st.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_a", Kind: "manual"})
	if err != nil {
		s.t.Fatal(err)
	}
	var evs []model.Event
	for i := range n {
		evs = append(evs, model.Event{EmitID: fmt.Sprint("e", i), Data: []byte(`{}`)})
	}
	due := s.clock.Now().UnixMilli()
	_, err = s.st.CompleteRuns(ctx, []store.CompletedRun{{Invocation: inv, Commit: store.RunCommit{Events: evs,
		Route: func(ev model.Event) store.Routed {
			return store.Routed{Deliveries: []model.Delivery{{ListenerID: webhook, EventID: ev.ID, Payload: []byte(`{}`), NextAttemptMs: due}}}
		}}}})
	if err != nil {
		s.t.Fatal(err)
	}
	var ids []string
	for _, d := range s.deliveries(webhook) {
		ids = append(ids, d.ID)
	}
	return ids[len(ids)-n:]
}

// deliveries lists webhook's deliveries, oldest first.
func (s *stepper) deliveries(webhook string) []model.Delivery {
	s.t.Helper()
	pg, err := s.st.ListDeliveries(ctx, webhook, model.Page{Limit: 1000})
	if err != nil {
		s.t.Fatal(err)
	}
	slices.Reverse(pg.Items)
	return pg.Items
}

// poll runs one poll of the loop.
func (s *stepper) poll() { s.deliverDue(s.ctx) }

// step runs one poll and waits for the attempts it started to end.
func (s *stepper) step() {
	s.poll()
	s.wg.Wait()
}

// waitFinished waits until n attempts ended and wait to be retired.
func (s *stepper) waitFinished(n int) {
	s.t.Helper()
	wait.Until(s.t, fmt.Sprintf("%d finished attempts", n), wait.Short, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.retired) >= n
	})
}

// syncBuffer is a log destination tests may read while goroutines write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

// heldSender holds each attempt until the test releases it, and records
// the most attempts in flight per webhook and per user.
type heldSender struct {
	mu       sync.Mutex
	arrived  []*heldAttempt
	inFlight map[string]int
	most     map[string]int
}

type heldAttempt struct {
	webhook, user, delivery string
	release                 chan struct{}
}

func newHeldSender() *heldSender {
	return &heldSender{inFlight: map[string]int{}, most: map[string]int{}}
}

func (h *heldSender) send(ctx context.Context, hook *model.Webhook, d model.Delivery, _ time.Time) (int, error) {
	a := &heldAttempt{webhook: hook.ID, user: hook.UserID, delivery: d.ID, release: make(chan struct{})}
	h.mu.Lock()
	h.arrived = append(h.arrived, a)
	for _, k := range []string{hook.ID, hook.UserID} {
		h.inFlight[k]++
		h.most[k] = max(h.most[k], h.inFlight[k])
	}
	h.mu.Unlock()
	select {
	case <-a.release:
	case <-ctx.Done():
	}
	h.mu.Lock()
	h.inFlight[hook.ID]--
	h.inFlight[hook.UserID]--
	h.mu.Unlock()
	return 200, nil
}

// wait waits until n attempts arrived and returns them in arrival order.
func (h *heldSender) wait(t *testing.T, n int) []*heldAttempt {
	t.Helper()
	var got []*heldAttempt
	wait.Until(t, fmt.Sprintf("%d attempts", n), wait.Short, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		got = slices.Clone(h.arrived)
		return len(got) >= n
	})
	return got
}

func (h *heldSender) mostInFlight(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most[key]
}

func TestDelivererOneAttemptPerWebhook(t *testing.T) {
	t.Parallel()
	h := newHeldSender()
	s := newStepper(t, h.send)
	s.webhook("wh_1", "u_a")
	want := s.queue("wh_1", 5)
	for i := range want {
		s.poll()
		s.poll() // a poll while the attempt is in flight starts nothing
		if s.gate.inFlight != 1 {
			t.Fatalf("%d attempts in flight for one webhook", s.gate.inFlight)
		}
		a := h.wait(t, i+1)[i]
		if a.delivery != want[i] {
			t.Fatalf("attempt %d was of delivery %s, want %s (due order)", i, a.delivery, want[i])
		}
		close(a.release)
		s.waitFinished(1)
	}
	s.step()
	if n := h.mostInFlight("wh_1"); n != 1 {
		t.Errorf("the webhook had %d attempts in flight at once", n)
	}
	for _, d := range s.deliveries("wh_1") {
		if d.Status != model.DeliveryDelivered {
			t.Errorf("delivery %s is %s", d.ID, d.Status)
		}
	}
}

// TestDelivererCapsAnAccount: one account's webhooks take at most
// perAccountDeliveries workers; another account's delivery starts in the
// same poll.
func TestDelivererCapsAnAccount(t *testing.T) {
	t.Parallel()
	h := newHeldSender()
	s := newStepper(t, h.send)
	for i := range 2 * perAccountDeliveries {
		s.webhook(fmt.Sprintf("wh_a%02d", i), "u_a")
		s.queue(fmt.Sprintf("wh_a%02d", i), 2)
	}
	s.webhook("wh_b", "u_b") // after all of u_a's in the walk
	s.queue("wh_b", 1)
	s.poll()
	s.poll()
	got := h.wait(t, perAccountDeliveries+1)
	if s.gate.inFlight != perAccountDeliveries+1 {
		t.Fatalf("%d attempts in flight, want %d of u_a and 1 of u_b", s.gate.inFlight, perAccountDeliveries)
	}
	if !slices.ContainsFunc(got, func(a *heldAttempt) bool { return a.user == "u_b" }) {
		t.Fatalf("u_b's delivery did not start with u_a's: %v", got)
	}
	// Release one at a time: u_a never has more in flight.
	for done := 0; done < 4*perAccountDeliveries+1; done++ {
		got = h.wait(t, done+1)
		close(got[done].release)
		s.waitFinished(1)
		s.poll()
	}
	s.step()
	if n := h.mostInFlight("u_a"); n != perAccountDeliveries {
		t.Errorf("u_a had %d attempts in flight at most, want %d", n, perAccountDeliveries)
	}
	if n := len(h.wait(t, 4*perAccountDeliveries+1)); n != 4*perAccountDeliveries+1 {
		t.Errorf("%d attempts, want %d", n, 4*perAccountDeliveries+1)
	}
}

// TestDelivererServesWebhooksInTurn: with more webhooks due than workers,
// every webhook gets an attempt before any gets a second.
func TestDelivererServesWebhooksInTurn(t *testing.T) {
	t.Parallel()
	h := newHeldSender()
	s := newStepper(t, h.send)
	const hooks = deliveryWorkers + 4
	for i := range hooks {
		id := fmt.Sprintf("wh_%02d", i)
		s.webhook(id, "u_"+id) // an account each: only the workers bound them
		s.queue(id, 2)
	}
	s.poll()
	// The first poll fills the workers, one webhook each, in key order.
	queue := h.wait(t, deliveryWorkers)
	slices.SortFunc(queue, func(a, b *heldAttempt) int { return strings.Compare(a.webhook, b.webhook) })
	for i, a := range queue {
		if want := fmt.Sprintf("wh_%02d", i); a.webhook != want {
			t.Fatalf("the first poll started %s as its %dth attempt, want %s", a.webhook, i, want)
		}
	}
	// Then each freed worker goes to the next webhook in turn.
	var order []string
	for i := range 2*hooks - deliveryWorkers {
		close(queue[i].release)
		s.waitFinished(1)
		s.poll()
		a := h.wait(t, deliveryWorkers+i+1)[deliveryWorkers+i]
		order = append(order, a.webhook)
		queue = append(queue, a)
	}
	for _, a := range queue[2*hooks-deliveryWorkers:] {
		close(a.release)
	}
	s.step()
	var want []string
	for i := deliveryWorkers; i < hooks; i++ {
		want = append(want, fmt.Sprintf("wh_%02d", i))
	}
	for i := range hooks {
		want = append(want, fmt.Sprintf("wh_%02d", i))
	}
	if !slices.Equal(order, want) {
		t.Errorf("after the first poll, webhooks were served in the order\n%v\nwant\n%v", order, want)
	}
	if n := len(h.wait(t, 2*hooks)); n != 2*hooks {
		t.Errorf("%d attempts, want %d", n, 2*hooks)
	}
}

// failingSender fails to reach wh_dead (a transport error) until healed,
// and answers 200 for every other webhook.
type failingSender struct {
	mu     sync.Mutex
	healed bool
	sends  map[string]int
}

func (f *failingSender) send(_ context.Context, hook *model.Webhook, _ model.Delivery, _ time.Time) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends[hook.ID]++
	if hook.ID == "wh_dead" && !f.healed {
		return 0, errors.New("dial tcp: i/o timeout")
	}
	return 200, nil
}

func (f *failingSender) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sends[id]
}

// TestDelivererBreaker: a webhook that stops answering is paused after
// breakerThreshold attempts, then tried once per pause; its deliveries
// stay pending with the attempts they had, and all go once it answers.
// Other webhooks are served throughout.
func TestDelivererBreaker(t *testing.T) {
	t.Parallel()
	f := &failingSender{sends: map[string]int{}}
	s := newStepper(t, f.send)
	s.webhook("wh_dead", "u_a")
	s.webhook("wh_ok", "u_a")
	dead := s.queue("wh_dead", 5)
	for range breakerThreshold {
		s.step()
	}
	s.step() // retires the last failure: the breaker opens
	if n := f.count("wh_dead"); n != breakerThreshold {
		t.Fatalf("%d attempts before the pause, want %d", n, breakerThreshold)
	}
	if n := s.logs.count("deliveries are paused"); n != 1 {
		t.Fatalf("the opening was logged %d times:\n%s", n, s.logs.buf.String())
	}

	// Paused: nothing more is sent to it, though its deliveries are due
	// (the retries' backoff is shorter than the pause); others are served.
	pending := func(attempts ...int) {
		t.Helper()
		ds := s.deliveries("wh_dead")
		for i, d := range ds {
			if d.Status != model.DeliveryPending || len(d.Attempts) != attempts[i] {
				t.Errorf("delivery %s (%d of %d): %s with %d attempts, want pending with %d", d.ID, i, len(ds), d.Status, len(d.Attempts), attempts[i])
			}
		}
	}
	pauses := []struct {
		length time.Duration
		trials int
	}{{breakerCoolOff, breakerThreshold}, {2 * breakerCoolOff, breakerThreshold + 1}}
	for _, p := range pauses {
		s.clock.Advance(p.length - time.Millisecond)
		s.queue("wh_ok", 1)
		s.step()
		s.step()
		if n := f.count("wh_dead"); n != p.trials {
			t.Fatalf("%d attempts during a %v pause, want %d", n, p.length, p.trials)
		}
		if n := f.count("wh_ok"); n != p.trials-breakerThreshold+1 {
			t.Fatalf("the healthy webhook got %d attempts during the pause", n)
		}
		s.clock.Advance(time.Millisecond)
		if p.trials == breakerThreshold {
			s.step() // the trial fails: a longer pause, not logged as an opening
			s.step()
			pending(1, 1, 1, 1, 0) // the trial took the earliest due, the 4th
		}
	}
	if n := s.logs.count("deliveries are paused"); n != 1 {
		t.Errorf("the breaker was logged opening %d times", n)
	}
	f.mu.Lock()
	f.healed = true
	f.mu.Unlock()
	for range 2 * len(dead) {
		s.clock.Advance(time.Minute) // past the retries' backoff
		s.step()
	}
	for i, d := range s.deliveries("wh_dead") {
		// The 4th failed the first trial; the 5th was the second trial.
		if want := []int{2, 2, 2, 2, 1}[i]; d.Status != model.DeliveryDelivered || len(d.Attempts) != want {
			t.Errorf("delivery %s: %s after %d attempts, want delivered after %d", d.ID, d.Status, len(d.Attempts), want)
		}
	}
	if n := s.logs.count("deliveries resume"); n != 1 {
		t.Errorf("the closing was logged %d times:\n%s", n, s.logs.buf.String())
	}
	if strings.Contains(s.logs.buf.String(), "http") {
		t.Errorf("the logs name a URL:\n%s", s.logs.buf.String())
	}
}
