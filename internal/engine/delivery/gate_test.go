package delivery

import (
	"fmt"
	"testing"
	"time"
)

func TestDeliveryGateOneAttemptPerWebhook(t *testing.T) {
	t.Parallel()
	g, now := newDeliveryGate(), time.Unix(1000, 0)
	if !g.admit(now, "wh_1", "u_a") {
		t.Fatal("the first attempt was refused")
	}
	if !g.skip(now, "wh_1") || g.admit(now, "wh_1", "u_a") {
		t.Fatal("a second attempt of the same webhook was admitted")
	}
	if !g.admit(now, "wh_2", "u_a") {
		t.Fatal("another webhook was refused")
	}
	g.done(now, "wh_1", outcomeAnswered)
	if g.skip(now, "wh_1") || !g.admit(now, "wh_1", "u_a") {
		t.Fatal("the webhook was refused after its attempt ended")
	}
	if g.free() != deliveryWorkers-2 {
		t.Errorf("free = %d, want %d", g.free(), deliveryWorkers-2)
	}
}

func TestDeliveryGateCapsAnAccount(t *testing.T) {
	t.Parallel()
	g, now := newDeliveryGate(), time.Unix(1000, 0)
	for i := range perAccountDeliveries {
		if !g.admit(now, fmt.Sprint("wh_a", i), "u_a") {
			t.Fatalf("attempt %d of the account was refused", i)
		}
	}
	if g.admit(now, "wh_a_more", "u_a") {
		t.Fatal("the account went over its cap")
	}
	// Its account is known now: skipped before its delivery is read.
	if !g.skip(now, "wh_a_more") {
		t.Error("a webhook of an account at its cap was not skipped")
	}
	if g.skip(now, "wh_unknown") || !g.admit(now, "wh_b", "u_b") {
		t.Error("another account was held back")
	}
	g.done(now, "wh_a0", outcomeAnswered)
	if g.skip(now, "wh_a_more") || !g.admit(now, "wh_a_more", "u_a") {
		t.Error("the account stayed capped after an attempt ended")
	}
}

// TestDeliveryGateBreaker walks a breaker through its states: closed while
// failures stay under the threshold or are answered, open for a cool-off
// that doubles to a cap, half-open for one trial, closed by an answer.
func TestDeliveryGateBreaker(t *testing.T) {
	t.Parallel()
	g, now := newDeliveryGate(), time.Unix(1000, 0)
	try := func(o outcome) (opened, closed bool, pause time.Duration) {
		t.Helper()
		if !g.admit(now, "wh_1", "u_a") {
			t.Fatalf("at %v the attempt was refused", now)
		}
		return g.done(now, "wh_1", o)
	}
	// An answer, whatever its status, resets the count.
	try(outcomeUnreachable)
	try(outcomeUnreachable)
	try(outcomeAnswered)
	try(outcomeNone) // not sent: tells nothing
	for i := 1; i < breakerThreshold; i++ {
		if opened, _, _ := try(outcomeUnreachable); opened {
			t.Fatalf("opened after %d failures", i)
		}
	}
	opened, closed, pause := try(outcomeUnreachable)
	if !opened || closed || pause != breakerCoolOff {
		t.Fatalf("after %d failures: opened %v, closed %v, pause %v", breakerThreshold, opened, closed, pause)
	}
	// Failed trials pause longer each time, up to the cap, and are not
	// reported as openings again.
	want := breakerCoolOff
	for range 8 {
		if !g.skip(now.Add(want-time.Millisecond), "wh_1") {
			t.Fatalf("not paused just before the end of a %v pause", want)
		}
		now = now.Add(want)
		if g.skip(now, "wh_1") {
			t.Fatalf("still paused at the end of a %v pause", want)
		}
		want = min(2*want, breakerMaxCoolOff)
		opened, closed, pause = try(outcomeUnreachable)
		if opened || closed || pause != want {
			t.Fatalf("failed trial: opened %v, closed %v, pause %v, want %v", opened, closed, pause, want)
		}
	}
	if want != breakerMaxCoolOff {
		t.Fatalf("the pause reached %v, not the cap %v", want, breakerMaxCoolOff)
	}
	// An answered trial closes it; the next failures start again.
	now = now.Add(want)
	if _, closed, _ := try(outcomeAnswered); !closed {
		t.Fatal("an answered trial did not close the breaker")
	}
	if len(g.hooks) != 0 || len(g.accounts) != 0 || g.inFlight != 0 {
		t.Errorf("state left for a healthy webhook: hooks %v, accounts %v, in flight %d", g.hooks, g.accounts, g.inFlight)
	}
	for i := 1; i < breakerThreshold; i++ {
		try(outcomeUnreachable)
	}
	if _, _, pause := try(outcomeUnreachable); pause != breakerCoolOff {
		t.Errorf("after closing, the first pause is %v, want %v", pause, breakerCoolOff)
	}
}

func TestDeliveryGateRemembersBoundedAccounts(t *testing.T) {
	t.Parallel()
	g, now := newDeliveryGate(), time.Unix(1000, 0)
	for i := range maxKnownAccounts + 10 {
		id := fmt.Sprint("wh_", i)
		g.admit(now, id, "u_a")
		g.done(now, id, outcomeAnswered)
	}
	if n := len(g.accountOf); n == 0 || n > maxKnownAccounts {
		t.Errorf("%d accounts remembered, want 1..%d", n, maxKnownAccounts)
	}
}

// TestDeliveryGateForgetsIdleWebhooks: the state of a webhook not tried
// for longer than the longest pause is dropped; a recent one is kept.
func TestDeliveryGateForgetsIdleWebhooks(t *testing.T) {
	t.Parallel()
	g, now := newDeliveryGate(), time.Unix(1000, 0)
	for range breakerThreshold {
		g.admit(now, "wh_gone", "u_a")
		g.done(now, "wh_gone", outcomeUnreachable)
	}
	g.admit(now, "wh_busy", "u_a") // in flight throughout
	g.forgetIdle(now)
	if len(g.hooks) != 2 {
		t.Fatalf("state dropped too early: %v", g.hooks)
	}
	now = now.Add(breakerCoolOff + breakerMaxCoolOff + time.Second)
	g.admit(now, "wh_recent", "u_a")
	g.done(now, "wh_recent", outcomeUnreachable)
	g.forgetIdle(now)
	if _, ok := g.hooks["wh_gone"]; ok {
		t.Error("the idle webhook's state was kept")
	}
	if _, ok := g.hooks["wh_busy"]; !ok {
		t.Error("the state of a webhook in flight was dropped")
	}
	if _, ok := g.hooks["wh_recent"]; !ok {
		t.Error("the state of a webhook that failed just now was dropped")
	}
}
